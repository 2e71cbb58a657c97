"""Rules-engine speed: random legal self-play through the full decide/evolve path.

Reports decisions per second per variant, replay speed (events applied per second,
milliseconds to rebuild a finished 4-player deal), and, when ``open_spiel`` is
installed (``pip install -e .[bench]``), OpenSpiel's ``hearts`` under the same random
legal play from Python. A *decision* is a player's choice: dealing (our ``deal``
action, OpenSpiel's chance nodes) is inside the timed loop but not counted. It also
times a rule-free loop of the same shape (``python_floor``): no pure-Python engine of
this design can beat it, so it says how far from OpenSpiel any such engine can get.

``python bench/engine.py [--quick]``; the last line printed is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from functools import reduce
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.games import GAMES
from domain.match import MatchRules
from domain.table import SeatSpec, Table

#: (game, variant, players): every variant of every registered game.
TABLES = [
    ("bottle-imp", "standard", 4),
    ("bottle-imp", "standard", 3),
    ("bottle-imp", "lopaka", 2),
    ("bottle-imp", "bright-house", 2),
    ("bestia", "standard", 4),
    ("bestia", "standard", 6),
    ("oh-quay", "standard", 2),
]


def self_play(
    game: str, variant: str, players: int, seconds: float, seed: int = 1
) -> tuple[float, list, Table]:
    """Random legal play for about ``seconds``: (decisions per second, one match's log)."""
    g = GAMES[game]  # the module itself: the benchmark measures the engine, not wrappers
    rng = random.Random(seed)
    choice, to_act, legal, decide, evolve = (
        rng.choice,
        g.to_act,
        g.legal_actions,
        g.decide,
        g.evolve,
    )
    decisions, elapsed, log, match = 0, 0.0, [], 0
    while elapsed < seconds:
        match += 1
        seats = tuple(SeatSpec(name=f"P{i}") for i in range(players))
        table = Table(game, variant, seats, MatchRules(None, 20), f"bench-{match}")
        state = g.initial_state(table)
        log = []
        start = time.perf_counter()
        while state.phase != "finished":
            acting = to_act(state)
            action = choice(legal(state, acting[0] if len(acting) == 1 else choice(acting)))
            events = decide(state, action)
            for e in events:
                state = evolve(state, e)
            log += events
            decisions += type(action).__name__ != "Deal"
        elapsed += time.perf_counter() - start
    return decisions / elapsed, log, table


def replay_speed(log: list, table: Table, repeat: int) -> tuple[float, float]:
    """(events applied per second, ms to rebuild one complete deal) over ``log``."""
    g = GAMES[table.game]
    names = [type(e).__name__ for e in log]
    start = names.index("DealStarted")
    end = next(i for i, n in enumerate(names) if n in ("DealScored", "DealSettled"))
    one_deal = log[start : end + 1]
    initial = g.initial_state(table)
    t0 = time.perf_counter()
    for _ in range(repeat):
        reduce(g.evolve, log, initial)
    per_event = (time.perf_counter() - t0) / (repeat * len(log))
    t0 = time.perf_counter()
    for _ in range(repeat * 10):
        reduce(g.evolve, one_deal, initial)
    per_deal = (time.perf_counter() - t0) / (repeat * 10)
    return 1 / per_event, per_deal * 1000


def python_floor(seconds: float, seed: int = 1) -> float:
    """The same loop over an "engine" that applies no rule at all: the upper bound for any
    engine with our shape in this interpreter.

    Per decision it does only what every ``decide``/``evolve`` engine must: ask who acts
    and what is legal (both answers prebuilt), choose at random, return one prebuilt event,
    and rebuild the immutable Bottle Imp ``State`` with two fields changed, by slicing
    (as ``_card_played`` does). No suit is followed, no trick is won, no deal is shuffled.
    """
    from domain.games.bottle_imp.model import CardPlayed, Play
    from domain.games.bottle_imp.model import State as BottleImpState

    g = GAMES["bottle-imp"]
    seats = tuple(SeatSpec(name=f"P{i}") for i in range(4))
    state = g.initial_state(Table("bottle-imp", "standard", seats, MatchRules(None, 20), "s"))
    plays = [Play(0, c) for c in range(1, 10)]
    played = {a: [CardPlayed(a.seat, a.card)] for a in plays}
    acting = (0,)
    new, fields = tuple.__new__, BottleImpState._fields
    hands, trick = fields.index("hands"), fields.index("trick")

    def to_act(s: Any) -> tuple[int, ...]:
        return acting

    def legal(s: Any, seat: int) -> list[Any]:
        return plays

    def decide(s: Any, action: Any) -> list[Any]:
        if type(action) is not Play:
            raise TypeError(action)
        return played[action]

    def evolve(s: Any, e: Any) -> Any:
        held = s[hands]
        return new(
            BottleImpState,
            (
                *s[:hands],
                (held[0] ^ 1, *held[1:]),
                *s[hands + 1 : trick],
                (e.card,),
                *s[trick + 1 :],
            ),
        )

    choice = random.Random(seed).choice
    decisions, elapsed = 0, 0.0
    while elapsed < seconds:
        start = time.perf_counter()
        for _ in range(10_000):
            events = decide(state, choice(legal(state, to_act(state)[0])))
            for e in events:
                state = evolve(state, e)
        elapsed += time.perf_counter() - start
        decisions += 10_000
    return decisions / elapsed


def openspiel_hearts(seconds: float, seed: int = 1) -> float | None:
    """OpenSpiel's hearts, random legal play from Python: player decisions per second."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    rng = random.Random(seed)
    decisions, elapsed = 0, 0.0
    while elapsed < seconds:
        start = time.perf_counter()
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        elapsed += time.perf_counter() - start
    return decisions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="about 15 seconds in all")
    args = parser.parse_args()
    seconds = 1.2 if args.quick else 5.0
    result: dict[str, Any] = {"variants": {}}
    for game, variant, players in TABLES:
        if game not in GAMES:
            continue
        rate, log, table = self_play(game, variant, players, seconds)
        events_per_s, deal_ms = replay_speed(log, table, 3 if args.quick else 10)
        name = f"{game}/{variant}-{players}"
        result["variants"][name] = {
            "decisions_per_s": round(rate),
            "replay_events_per_s": round(events_per_s),
            "replay_deal_ms": round(deal_ms, 3),
        }
        print(
            f"{name:28} {rate:>10,.0f} decisions/s   replay {events_per_s:>10,.0f} events/s"
            f"   {deal_ms:.3f} ms per deal"
        )
    ours = result["variants"]["bottle-imp/standard-4"]["decisions_per_s"]
    theirs = openspiel_hearts(seconds * 2)
    result["decisions_per_s"] = ours
    result["replay_deal_ms"] = result["variants"]["bottle-imp/standard-4"]["replay_deal_ms"]
    result["openspiel_decisions_per_s"] = round(theirs) if theirs else None
    result["ratio"] = round(ours / theirs, 3) if theirs else None
    floor = python_floor(seconds)
    result["no_rules_floor_decisions_per_s"] = round(floor)
    print(f"{'no-rules floor (see doc)':28} {floor:>10,.0f} decisions/s")
    if theirs:
        print(
            f"{'openspiel hearts':28} {theirs:>10,.0f} decisions/s   ratio {ours / theirs:.2f}"
            f"   (the no-rules floor: {floor / theirs:.2f})"
        )
    else:
        print("open_spiel not installed: pip install -e '.[bench]' to compare")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
