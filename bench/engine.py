"""Rules-engine speed: random legal self-play through the full decide/evolve path, with the
pure-Python engine (the reference) and the compiled one (``make engine``), beside OpenSpiel.

Reports decisions per second per variant and build, replay speed (events applied per
second, milliseconds to rebuild a finished 4-player deal), and OpenSpiel's ``hearts`` under
the same random legal play from Python (``pip install -e .[bench]``). A *decision* is a
player's choice: dealing (our ``deal`` action, OpenSpiel's chance nodes) is inside the
timed loop but not counted. It also times a rule-free loop of the same shape
(``python_floor``): no pure-Python engine of this design can beat it.

Every rate is per second of this process's CPU time (``time.process_time``), ours and
OpenSpiel's alike: on a machine shared with other work, wall-clock rates measure the
neighbours. Each build runs in a child process of its own (``CARDLEDGER_ENGINE=pure`` for
the sources) from a tree with a fresh compiled build: this checkout's (``make engine``), or
a temporary copy (``scripts/build_engine.py --into``, compiled once per state of the
sources). The headline (Bottle Imp, 4 players, against hearts) alternates the three
loops over several rounds and compares medians.

``python bench/engine.py [--quick] [--pure-only]``; the last line printed is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from functools import reduce
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if "--worker" not in sys.argv:  # a worker imports the tree it was started in
    sys.path.insert(0, str(ROOT))

from domain.games import GAMES  # noqa: E402
from domain.match import MatchRules  # noqa: E402
from domain.table import SeatSpec, Table  # noqa: E402

#: The clock of every rate: this process's CPU time.
clock = time.process_time

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
    decisions, elapsed, match = 0, 0.0, 0
    log: list[Any] = []
    while elapsed < seconds:
        match += 1
        seats = tuple(SeatSpec(name=f"P{i}") for i in range(players))
        table = Table(game, variant, seats, MatchRules(None, 20), f"bench-{match}")
        state = g.initial_state(table)
        log = []
        start = clock()
        while state.phase != "finished":
            acting = to_act(state)
            action = choice(legal(state, acting[0] if len(acting) == 1 else choice(acting)))
            events = decide(state, action)
            for e in events:
                state = evolve(state, e)
            log += events
            decisions += type(action).__name__ != "Deal"
        elapsed += clock() - start
    return decisions / elapsed, log, table


def replay_speed(log: list, table: Table, repeat: int) -> tuple[float, float]:
    """(events applied per second, ms to rebuild one complete deal) over ``log``."""
    g = GAMES[table.game]
    names = [type(e).__name__ for e in log]
    start = names.index("DealStarted")
    end = next(i for i, n in enumerate(names) if n in ("DealScored", "DealSettled"))
    one_deal = log[start : end + 1]
    initial = g.initial_state(table)
    t0 = clock()
    for _ in range(repeat):
        reduce(g.evolve, log, initial)
    per_event = (clock() - t0) / (repeat * len(log))
    t0 = clock()
    for _ in range(repeat * 10):
        reduce(g.evolve, one_deal, initial)
    per_deal = (clock() - t0) / (repeat * 10)
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
        start = clock()
        for _ in range(10_000):
            events = decide(state, choice(legal(state, to_act(state)[0])))
            for e in events:
                state = evolve(state, e)
        elapsed += clock() - start
        decisions += 10_000
    return decisions / elapsed


def openspiel_hearts(seconds: float, seed: int = 1) -> float | None:
    """OpenSpiel's hearts, random legal play from Python: player decisions per second."""
    try:
        import pyspiel  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    rng = random.Random(seed)
    decisions, elapsed = 0, 0.0
    while elapsed < seconds:
        start = clock()
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        elapsed += clock() - start
    return decisions / elapsed


def worker() -> None:
    """Answer measurements asked on stdin, one JSON line each, with this process's build."""
    from domain.engine import build

    for text in sys.stdin:
        ask = json.loads(text)
        if ask["what"] == "build":
            answer: dict[str, Any] = {"build": str(build())}
        elif ask["what"] == "floor":
            answer = {"rate": python_floor(ask["seconds"])}
        else:
            rate, log, table = self_play(
                ask["game"], ask["variant"], ask["players"], ask["seconds"]
            )
            answer = {"rate": rate}
            if ask.get("replay"):
                answer["events_per_s"], answer["deal_ms"] = replay_speed(log, table, ask["replay"])
        print(json.dumps(answer), flush=True)


class Engine:
    """A worker process running one build from ``tree``."""

    def __init__(self, tree: Path, pure: bool) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        env.pop("CARDLEDGER_ENGINE", None)
        if pure:
            env["CARDLEDGER_ENGINE"] = "pure"
        self.process = subprocess.Popen(
            [sys.executable, str(tree / "bench" / "engine.py"), "--worker"],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.build = self.ask(what="build")["build"]

    def ask(self, **question: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(question) + "\n")
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()


def compiled_tree(scratch: Path) -> Path | None:
    """This checkout if ``make engine`` built it and it is fresh, else a compiled copy
    (``None`` when it cannot be built here: no C compiler, say)."""
    probe = subprocess.run(
        [sys.executable, "-m", "domain.engine"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    ).stdout
    if probe.startswith("engine: compiled") and "STALE" not in probe:
        return ROOT
    tree = scratch / "tree"
    print("building the compiled engine in a copy (scripts/build_engine.py --into) ...")
    made = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_engine.py"), "--into", str(tree)],
        stdout=subprocess.DEVNULL,
    )
    if made.returncode != 0:
        print("the compiled engine could not be built: the pure engine only")
        return None
    return tree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="about a minute in all")
    parser.add_argument("--pure-only", action="store_true", help="no compiled build")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    seconds = 1.2 if args.quick else 4.0
    rounds = 3 if args.quick else 5
    with tempfile.TemporaryDirectory(prefix="cardledger-bench-") as scratch:
        compiled = None if args.pure_only else compiled_tree(Path(scratch))
        engines = {"pure": Engine(compiled or ROOT, pure=True)}
        if compiled is not None:
            engines["compiled"] = Engine(compiled, pure=False)
        try:
            result = measure(engines, seconds, rounds, args.quick)
        finally:
            for engine in engines.values():
                engine.close()
    print(json.dumps(result))


def measure(engines: dict[str, Engine], seconds: float, rounds: int, quick: bool) -> dict:
    result: dict[str, Any] = {
        "clock": "process CPU time",
        "builds": {name: e.build for name, e in engines.items()},
        "variants": {},
    }
    for name, engine in engines.items():
        print(f"{name:9} {engine.build}")
    for game, variant, players in TABLES:
        if game not in GAMES:
            continue
        row = result["variants"][f"{game}/{variant}-{players}"] = {}
        text = f"{game}/{variant}-{players}".ljust(26)
        for name, engine in engines.items():
            got = engine.ask(
                what="self_play",
                game=game,
                variant=variant,
                players=players,
                seconds=seconds,
                replay=3 if quick else 10,
            )
            row[name] = {
                "decisions_per_s": round(got["rate"]),
                "replay_events_per_s": round(got["events_per_s"]),
                "replay_deal_ms": round(got["deal_ms"], 3),
            }
            text += f"   {name} {got['rate']:>9,.0f}/s (replay {got['deal_ms']:.3f} ms/deal)"
        print(text)
    # The headline: the three loops in turn, medians over the rounds.
    rates: dict[str, list[float]] = {name: [] for name in (*engines, "openspiel")}
    for _ in range(rounds):
        for name, engine in engines.items():
            rates[name].append(
                engine.ask(
                    what="self_play",
                    game="bottle-imp",
                    variant="standard",
                    players=4,
                    seconds=seconds,
                )["rate"]
            )
        theirs = openspiel_hearts(seconds)
        if theirs is None:
            rates.pop("openspiel", None)
            break
        rates["openspiel"].append(theirs)
    medians = {name: statistics.median(r) for name, r in rates.items() if r}
    floor = engines["pure"].ask(what="floor", seconds=seconds)["rate"]
    result["no_rules_floor_decisions_per_s"] = round(floor)
    result["headline"] = {
        "table": "bottle-imp/standard-4",
        "rounds": rounds,
        **{f"{name}_decisions_per_s": round(m) for name, m in medians.items()},
    }
    best = "compiled" if "compiled" in medians else "pure"
    result["decisions_per_s"] = round(medians[best])
    result["replay_deal_ms"] = result["variants"]["bottle-imp/standard-4"][best]["replay_deal_ms"]
    theirs_median = medians.get("openspiel")
    result["openspiel_decisions_per_s"] = round(theirs_median) if theirs_median else None
    result["ratio"] = round(medians[best] / theirs_median, 3) if theirs_median else None
    print(f"{'no-rules floor (see doc)':28} {floor:>10,.0f} decisions/s")
    print(f"bottle-imp/standard-4, medians of {rounds} alternated rounds (CPU time):")
    for name, m in medians.items():
        label = "openspiel hearts" if name == "openspiel" else f"card ledger {name}"
        ratio = f"   {m / theirs_median:.2f}x openspiel" if theirs_median else ""
        print(f"  {label:26} {m:>10,.0f} decisions/s{ratio}")
    if not theirs_median:
        print("open_spiel not installed: pip install -e '.[bench]' to compare")
    return result


if __name__ == "__main__":
    main()
