"""Seeded games written out event by event, to compare the engine's two builds.

``python -m tests.domain.engine_games`` plays, for every registered game, variant and
table size: random legal play with a refused action tried before each move (its code and
message recorded), and matches of the random and heuristic bots (and, once per game, of the
Monte Carlo bot, whose playouts run the engine) through the same path as
``domain.bots.simulate``; every event is printed as a JSON line, so two processes (pure
and compiled, ``tests/domain/test_compiled_engine.py``) can be compared byte for byte. The
first line names the build (``domain.engine``); it is the only line that may differ.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from domain.bots import bot, decision_rng
from domain.bots.observation import Observation
from domain.engine import build
from domain.errors import RuleViolation
from domain.events import event_type, to_data
from domain.games import SPECS, Rules, game
from domain.match import MatchRules
from domain.shuffle import deal_key
from domain.table import SeatSpec, Table

MOVES = 5_000  # per match: far above what these short matches take


def tables(deals: int) -> Iterator[Table]:
    """A table of every registered game, variant and size, seeded and salted."""
    for spec in SPECS.values():
        for variant in spec.variants:
            for players in spec.players[variant]:
                for first in range(min(players, 2)):
                    yield Table(
                        game=spec.id,
                        variant=variant,
                        seats=tuple(SeatSpec(name=f"P{i}") for i in range(players)),
                        match=MatchRules(None, deals),
                        seed=f"engine/{spec.id}/{variant}/{players}/{first}",
                        first_dealer=first,
                        salt="0123456789abcdef0123456789abcdef",
                    )


def line(kind: str, value: Any) -> str:
    return json.dumps([kind, value], sort_keys=True, separators=(",", ":"))


def written(event: Any) -> str:
    return line(event_type(event), to_data(event))


def random_play(rules: Rules, table: Table, rng: random.Random) -> Iterator[str]:
    """Random legal moves, each after one refused try: another seat's move, a stale one, or
    a move from the previous state (a wrong phase, an absent card, not your turn)."""
    state = rules.initial_state(table)
    previous: list[Any] = []
    for _ in range(MOVES):
        if state.phase == "finished":
            return
        acting = rules.to_act(state)
        seat = rng.choice(acting)
        legal = list(rules.legal_actions(state, seat))
        others = [
            a for s in range(table.players) if s != seat for a in rules.legal_actions(state, s)
        ]
        tried = rng.choice(others + previous) if others or previous else None
        if tried is not None:
            try:
                outcome = [written(e) for e in rules.decide(state, tried)]
                yield line("accepted", [repr(tried), outcome])
            except RuleViolation as refused:
                yield line("refused", [repr(tried), refused.code, refused.message])
        action = rng.choice(legal)
        previous = legal[:3]
        for event in rules.decide(state, action):
            yield written(event)
            state = rules.evolve(state, event)
        yield line("to_act", list(rules.to_act(state)))
    raise RuntimeError(f"{table.seed}: the match did not end")


def bots_play(rules: Rules, table: Table, names: list[str]) -> Iterator[str]:
    """A match of ``names`` (one bot per seat), decided as ``domain.bots.simulate`` does."""
    state = rules.initial_state(table)
    players = [bot(name) for name in names]
    version, deal = 1, []
    for _ in range(MOVES):
        if state.phase == "finished":
            yield line("view", rules.view(state, None))
            return
        seat = rules.to_act(state)[0]
        dice = decision_rng(deal_key(table.seed or "", table.salt), version, seat)
        body = players[seat].choose(table.game, Observation(rules, state, seat, deal), dice)
        events = rules.decide(state, rules.parse(body))
        for event in events:
            if event_type(event) == "DealStarted":
                deal = []
            deal.append(event)
            state = rules.evolve(state, event)
            yield written(event)
        version += len(events)
    raise RuntimeError(f"{table.seed}: the match did not end")


def games() -> Iterator[str]:
    """Every line, in order: the build first."""
    yield line("build", str(build()))
    searched: set[str] = set()
    for table in tables(deals=2):
        rules = game(table.game)
        yield line("table", [table.game, table.variant, table.players, table.first_dealer])
        yield from random_play(rules, table, random.Random(table.seed))
        for names in (["heuristic"] * table.players, ["random", "heuristic"] * table.players):
            yield line("bots", names[: table.players])
            yield from bots_play(rules, table, names[: table.players])
        if table.game not in searched:  # the Monte Carlo bot's playouts run the engine too
            searched.add(table.game)
            names = ["montecarlo"] + ["heuristic"] * (table.players - 1)
            one_deal = replace(table, match=MatchRules(None, 1))
            yield line("bots", names)
            yield from bots_play(rules, one_deal, names)


def main() -> None:
    out = sys.stdout
    for text in games():
        out.write(text + "\n")


if __name__ == "__main__":
    main()
