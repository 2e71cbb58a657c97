"""How strong the bots are, and how long the Monte Carlo bot thinks.

1. Strength, per game and table size: the win rate of the first seat's bot against the
   others (montecarlo against heuristic bots, heuristic against random bots), with the
   simulation's own 95% interval (``domain.bots.stats``: Wilson) against parity (1 /
   players). A row is a simulation like ``POST /simulations``' (match ``i`` seeded
   ``"strength/{i}"``, the first dealer rotating), its matches spread over local processes
   (the result does not depend on the split). "beats parity": the interval's lower end is
   above parity.
2. The Monte Carlo bot's decision time with its default budget (decisions with a choice,
   wall clock and CPU, p50 and p95), per game and table size, over a few matches.

Simulation throughput through the service is ``bench/simulations.py``.

``python bench/bots.py [--quick] [--processes N] [--only bestia]``; the last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain.bots import bot  # noqa: E402
from domain.bots.simulate import Simulation, play_match, result, run_chunk  # noqa: E402

#: (game, variant, players, label): every table size of every game.
TABLES = [
    ("bottle-imp", "standard", 3, "The Bottle Imp, 3 players"),
    ("bottle-imp", "standard", 4, "The Bottle Imp, 4 players"),
    ("bottle-imp", "lopaka", 2, "The Bottle Imp, Lopaka (2)"),
    ("bottle-imp", "bright-house", 2, "The Bottle Imp, Bright House (2)"),
    ("oh-quay", "standard", 2, "Oh Quay (2)"),
    *[("bestia", "standard", n, f"Bestia, {n} players") for n in range(3, 9)],
]
#: Matches per row (montecarlo vs heuristic, heuristic vs random), enough for the
#: interval to clear parity where the bot is stronger; ``--quick`` plays a quarter.
MATCHES = {
    ("bottle-imp", "standard", 3): (120, 120),
    ("bottle-imp", "standard", 4): (120, 120),
    ("bottle-imp", "lopaka", 2): (80, 80),
    ("bottle-imp", "bright-house", 2): (80, 80),
    ("oh-quay", "standard", 2): (300, 80),
    **{("bestia", "standard", n): (400, 300) for n in range(3, 9)},
}
#: Matches whose Monte Carlo decisions are timed, per table.
TIMED_MATCHES = 2
PAIRS = (("montecarlo", "heuristic"), ("heuristic", "random"))


def _chunk(args: tuple[dict[str, Any], int, int]) -> list[list[Any]]:
    spec, start, stop = args
    return run_chunk(Simulation.of(spec), range(start, stop))


def simulate(spec: dict[str, Any], pool: ProcessPoolExecutor) -> dict[str, Any]:
    """The simulation's result, its matches spread over the pool in chunks of five."""
    sim = Simulation.of(spec)
    parts = [(spec, i, min(sim.matches, i + 5)) for i in range(0, sim.matches, 5)]
    matches = [m for chunk in pool.map(_chunk, parts) for m in chunk]
    return result(sim, matches)


def strength(tables: list[tuple[Any, ...]], quick: bool, processes: int) -> list[dict[str, Any]]:
    out = []
    with ProcessPoolExecutor(processes) as pool:
        for game_id, variant, players, label in tables:
            for k, (first, others) in enumerate(PAIRS):
                matches = MATCHES[(game_id, variant, players)][k]
                matches = max(8, matches // 4) if quick else matches
                seats = [first] + [others] * (players - 1)
                spec = {"game": game_id, "variant": variant, "seats": seats,
                        "matches": matches, "seed": "strength"}  # fmt: skip
                start = time.perf_counter()
                summary = simulate(spec, pool)
                seat = summary["seats"][0]
                parity = 1 / players
                low, high = seat["win_rate_ci95"]
                row = {
                    "game": game_id,
                    "variant": variant,
                    "players": players,
                    "label": label,
                    "bot": first,
                    "against": others,
                    "matches": summary["matches"],
                    "win_rate": seat["win_rate"],
                    "ci95": [low, high],
                    "parity": round(parity, 4),
                    "beats_parity": low > parity,
                    "seconds": round(time.perf_counter() - start, 1),
                }
                out.append(row)
                verdict = "beats parity" if row["beats_parity"] else "NOT beyond parity"
                print(f"{label:34} {first:>10} vs {others:9} {row['matches']:>4} matches  "
                      f"win {seat['win_rate']:.3f} [{low:.3f}, {high:.3f}]  parity {parity:.3f}  "
                      f"{verdict}  ({row['seconds']} s)", flush=True)  # fmt: skip
    return out


class Timed:
    """A bot whose decisions with a choice are timed (wall clock and CPU)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def choose(self, game_id: str, view: Any, rng: Any) -> Any:
        start, start_cpu = time.perf_counter(), time.process_time()
        body = self.inner.choose(game_id, view, rng)
        if len(view["legal_actions"]) > 1:
            self.wall.append(time.perf_counter() - start)
            self.cpu.append(time.process_time() - start_cpu)
        return body


def decision_times(game_id: str, variant: str, players: int, matches: int) -> dict[str, Any]:
    """Wall and CPU seconds per Monte Carlo decision (those with a choice), seat 0
    montecarlo and the others heuristic, as a simulation plays them."""
    seats = ("montecarlo",) + ("heuristic",) * (players - 1)
    sim = Simulation(game_id, seats, matches, "latency", variant=variant)
    timed = Timed(bot("montecarlo"))
    bots = [timed, *(bot(name) for name in seats[1:])]
    for i in range(matches):
        play_match(sim.rules, sim.table(i), bots)
    wall, cpu = timed.wall, timed.cpu

    def pct(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000, 1)

    return {
        "decisions": len(wall),
        "p50_ms": pct(wall, 0.5),
        "p95_ms": pct(wall, 0.95),
        "cpu_p50_ms": pct(cpu, 0.5),
        "cpu_p95_ms": pct(cpu, 0.95),
    }


def latency(tables: list[tuple[Any, ...]], quick: bool) -> list[dict[str, Any]]:
    out = []
    for game_id, variant, players, label in tables:
        times = decision_times(game_id, variant, players, 1 if quick else TIMED_MATCHES)
        row = {"game": game_id, "variant": variant, "players": players, "label": label, **times}
        out.append(row)
        print(f"{label:34} montecarlo decision  p50 {row['p50_ms']:5.1f} ms  "
              f"p95 {row['p95_ms']:5.1f} ms  (CPU p50 {row['cpu_p50_ms']:5.1f}, "
              f"p95 {row['cpu_p95_ms']:5.1f}; {row['decisions']} decisions)",
              flush=True)  # fmt: skip
    return out


def markdown(
    tables: list[tuple[Any, ...]], rows: list[dict[str, Any]], times: list[dict[str, Any]]
) -> str:
    """The README's table: one line per game and size measured."""
    by = {(r["game"], r["variant"], r["players"], r["bot"]): r for r in rows}
    ms = {(t["game"], t["variant"], t["players"]): t for t in times}
    lines = [
        "| game, players | montecarlo vs heuristic | heuristic vs random | parity "
        "| montecarlo p50 / p95 |",
        "| --- | --- | --- | ---: | ---: |",
    ]
    for game_id, variant, players, label in tables:
        cells = []
        for first in ("montecarlo", "heuristic"):
            r = by.get((game_id, variant, players, first))
            cells.append(
                ""
                if r is None
                else f"{r['win_rate']:.3f} [{r['ci95'][0]:.3f}, "
                f"{r['ci95'][1]:.3f}], {r['matches']} matches"
            )
        t = ms.get((game_id, variant, players))
        timing = f"{t['p50_ms']:.0f} / {t['p95_ms']:.0f} ms" if t else ""
        lines.append(f"| {label} | {cells[0]} | {cells[1]} | {1 / players:.3f} | {timing} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a quarter of the matches")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", default=None, help="games to run, e.g. bestia,oh-quay")
    parser.add_argument("--skip-strength", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args()
    tables = [t for t in TABLES if args.only is None or t[0] in args.only.split(",")]
    report: dict[str, Any] = {"cpus": os.cpu_count(), "load": os.getloadavg()[0]}
    print(f"== montecarlo decision time, default budget (load {report['load']:.1f})", flush=True)
    report["latency"] = [] if args.skip_latency else latency(tables, args.quick)
    print(f"== strength ({args.processes} processes)", flush=True)
    report["strength"] = [] if args.skip_strength else strength(tables, args.quick, args.processes)
    report["targets"] = {
        "beats_parity": all(r["beats_parity"] for r in report["strength"]),
        "p95_under_50ms": all(t["p95_ms"] < 50 for t in report["latency"]),
    }
    print(markdown(tables, report["strength"], report["latency"]), flush=True)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
