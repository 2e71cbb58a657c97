"""Simulated matches between bots, in memory: the pure core of ``POST /simulations``,
``cardledger simulate`` and ``bench/bots.py``.

Match ``i`` of a simulation is the table seeded ``"{seed}/{i}"``, whose first dealer
rotates with ``i`` (so no seat keeps the advantage of the first deal); every bot
decision is seeded from that table seed, the version it is taken at and the seat,
exactly as the service seeds a bot at a real table. A match is therefore the same
whichever worker plays it, and a simulation's result the same on any number of workers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.bots import Bot, bot, decision_rng
from domain.bots.observation import Observation
from domain.bots.stats import summarize
from domain.errors import RuleViolation
from domain.games import Rules, game
from domain.match import MatchRules
from domain.shuffle import deal_key
from domain.table import SeatSpec, Table

#: Matches per chunk (one task): fixed by the simulation, never by the workers.
CHUNK = 10


@dataclass(frozen=True, slots=True)
class Simulation:
    """What ``POST /simulations`` asks for."""

    game: str
    seats: tuple[str, ...]
    matches: int
    seed: str
    variant: str | None = None
    target_score: int | None = None
    max_deals: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, spec: Mapping[str, Any]) -> Simulation:
        return cls(
            game=spec["game"],
            seats=tuple(spec["seats"]),
            matches=int(spec["matches"]),
            seed=str(spec["seed"]),
            variant=spec.get("variant"),
            target_score=spec.get("target_score"),
            max_deals=spec.get("max_deals"),
            options=dict(spec.get("rules") or {}),
        )

    def spec(self) -> dict[str, Any]:
        """The JSON form stored with the job (what ``of`` reads back)."""
        return {
            "game": self.game,
            "variant": self.variant,
            "seats": list(self.seats),
            "matches": self.matches,
            "seed": self.seed,
            "target_score": self.target_score,
            "max_deals": self.max_deals,
            "rules": dict(self.options),
        }

    @property
    def rules(self) -> Rules:
        return game(self.game)

    def table(self, i: int) -> Table:
        """Match ``i``'s table (0-based)."""
        rules = self.rules
        players = len(self.seats)
        if self.target_score is None and self.max_deals is None:
            match = rules.default_match(players)
        else:
            match = MatchRules(self.target_score, self.max_deals)
        return Table(
            game=self.game,
            variant=self.variant or rules.DEFAULT_VARIANT,
            seats=tuple(SeatSpec(bot=name) for name in self.seats),
            match=match,
            seed=f"{self.seed}/{i}",
            first_dealer=i % players,
            options=dict(self.options),
        )

    def check(self) -> None:
        """Refuse what could never run: unknown bots, or a table the rules refuse."""
        if self.matches < 1:
            raise RuleViolation("invalid_simulation", "a simulation plays at least one match")
        bots = [bot(name) for name in self.seats]
        for b in bots:
            b.chooser(self.game)
        table = self.table(0)
        rules = self.rules
        rules.check_options(table)
        rules.initial_state(table)

    def chunks(self) -> list[range]:
        """The matches of each chunk, in order."""
        count = math.ceil(self.matches / CHUNK)
        return [range(c * CHUNK, min(self.matches, (c + 1) * CHUNK)) for c in range(count)]


MAX_MOVES = 200_000  # far above any real match: a guard against a rules bug looping


class Stopped(Exception):
    """The caller's ``stop`` said to give up (a time budget ran out)."""


class Match:
    """One match between ``bots`` (one per seat), played as the caller iterates: each step
    yields the seat about to decide and what it observes, and ``state`` is the state that
    decision is taken in (after the last step, the finished match's).

    The seat that acts is the lowest in ``to_act``, as at a real table's autoplay.
    ``stop`` is asked before each decision; when it answers true, ``Stopped`` is raised.
    """

    def __init__(
        self,
        rules: Rules,
        table: Table,
        bots: Sequence[Bot],
        stop: Callable[[], bool] | None = None,
    ) -> None:
        self.rules, self.table, self.bots, self.stop = rules, table, bots, stop
        self.state = rules.initial_state(table)

    def __iter__(self) -> Iterator[tuple[int, Observation]]:
        rules, table = self.rules, self.table
        assert table.seed is not None, "a simulated match deals from its seed"
        version = 1  # TableOpened
        deal: list[Any] = []
        started = rules.spec.landmarks.deal_started
        # The deal key: a salted table's dice hold its salt (docs/rules/common.md, "Bots'
        # dice"); a simulation's table has none, so its dice are its seed's.
        key = deal_key(table.seed, table.salt)
        for _ in range(MAX_MOVES):
            state = self.state
            if state.phase == "finished":
                return
            acting = rules.to_act(state)
            if not acting:
                raise RuntimeError(f"nobody is to act in phase {state.phase}")
            if self.stop is not None and self.stop():
                raise Stopped(f"stopped in match {table.seed}")
            seat = acting[0]
            observation = Observation(rules, state, seat, deal)
            yield seat, observation
            body = self.bots[seat].choose(table.game, observation, decision_rng(key, version, seat))
            events = rules.decide(state, rules.parse(body))
            for e in events:
                if type(e) is started:
                    deal = []
                deal.append(e)
                state = rules.evolve(state, e)
            self.state = state
            version += len(events)
        raise RuntimeError("the match did not end")


def play_match(
    rules: Rules,
    table: Table,
    bots: Sequence[Bot],
    stop: Callable[[], bool] | None = None,
) -> tuple[list[int], list[int | None]]:
    """Play one match between ``bots`` to its end (``Match``): (totals, ranking)."""
    match = Match(rules, table, bots, stop)
    for _ in match:
        pass
    view = rules.view(match.state, None)
    return list(view["totals"]), list(view["ranking"])


def run_chunk(
    sim: Simulation, matches: range, stop: Callable[[], bool] | None = None
) -> list[list[Any]]:
    """``[totals, ranking]`` of each match of the chunk, in order."""
    rules = sim.rules
    bots = [bot(name) for name in sim.seats]
    return [list(play_match(rules, sim.table(i), bots, stop)) for i in matches]


def result(sim: Simulation, results: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """The simulation's summary (``domain.bots.stats``) with what was simulated."""
    table = sim.table(0)
    return {
        "game": sim.game,
        "variant": table.variant,
        "seed": sim.seed,
        "target_score": table.match.target_score,
        "max_deals": table.match.max_deals,
        **summarize(sim.seats, results),
    }
