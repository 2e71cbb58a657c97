"""Tournament speed: standings from events, and Swiss seating, at club-festival scale.

- *standings*: a 1,000-entry, 10-round tournament of 4-player tables (2,500 finished
  tables), from its stored events (JSON, as the event store returns them) to sorted
  standings rows: decode, fold, score, tie-break, rank.
- *swiss seating*: seating round 11 of that tournament (1,000 entries into 4-player
  tables) from its state: standings, byes, neighbours, repeat avoidance, seat order.

Both targets: under 200 ms. The best of ``--repeat`` runs is reported (the least noisy
figure); the tournament is built once, by the same pairing code, seeded.

``python bench/standings.py [--quick]``; the last line printed is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.events import to_data
from domain.tournament.decide import plan_round, round_seated, standings_of
from domain.tournament.events import (
    EntryAdded,
    TableFinished,
    TournamentCreated,
    decode,
)
from domain.tournament.state import Tournament, evolve, fold

TARGET_MS = 200.0


def build(entries: int, rounds: int, table_size: int, seed: str) -> list[dict[str, Any]]:
    """A played tournament's events as stored: ``{"type", "data"}`` JSON objects."""
    rng = random.Random(seed)
    events: list[Any] = [
        TournamentCreated(
            name="Bench Open",
            game="bottle-imp",
            variant="standard",
            table_size=table_size,
            pairing="swiss",
            seed=seed,
            rounds=rounds,
        )
    ]
    events += [EntryAdded(e, f"Player {e:04d}") for e in range(1, entries + 1)]
    state = fold(events)
    for _ in range(rounds):
        seating = plan_round(state)
        ids = [f"{len(state.rounds) + 1}-{t}" for t in range(1, len(seating.tables) + 1)]
        seated = round_seated(state, seating, ids)
        state = evolve(state, seated)
        events.append(seated)
        for table_id, seats in zip(ids, seating.tables, strict=True):
            totals = tuple(rng.randrange(0, 120) for _ in seats)
            ranking = tuple(1 + sum(o > t for o in totals) for t in totals)
            finished = TableFinished(table_id, len(state.rounds), totals, ranking)
            state = evolve(state, finished)
            events.append(finished)
    return [{"type": type(e).__name__, "data": json.loads(json.dumps(to_data(e)))} for e in events]


def best_ms(run: Any, repeat: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, (time.perf_counter() - start) * 1000)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--table-size", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one run of each")
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat

    built = time.perf_counter()
    stored = build(args.entries, args.rounds, args.table_size, "bench-standings")
    build_s = time.perf_counter() - built

    def from_events() -> list[Any]:
        state: Tournament = fold(decode(e["type"], e["data"]) for e in stored)
        return standings_of(state)

    standings_ms, rows = best_ms(from_events, repeat)
    state = fold(decode(e["type"], e["data"]) for e in stored)
    swiss_ms, seating = best_ms(lambda: plan_round(state), repeat)

    tables = sum(1 for e in stored if e["type"] == "TableFinished")
    print(
        f"{args.entries} entries, {args.rounds} rounds, {tables} finished tables, "
        f"{len(stored)} events (built in {build_s:.1f} s)"
    )
    print(f"{'measure':34} {'ms':>8}  target")
    print(f"{'standings (events -> sorted rows)':34} {standings_ms:8.1f}  < {TARGET_MS:.0f}")
    print(f"{'swiss seating (round 11)':34} {swiss_ms:8.1f}  < {TARGET_MS:.0f}")
    print(
        f"top: {rows[0].name} rank {rows[0].rank}; "
        f"{len(seating.tables)} tables, {len(seating.byes)} byes"
    )
    print(
        json.dumps(
            {
                "entries": args.entries,
                "rounds": args.rounds,
                "events": len(stored),
                "standings_ms": round(standings_ms, 2),
                "swiss_seating_ms": round(swiss_ms, 2),
                "target_ms": TARGET_MS,
                "ok": standings_ms < TARGET_MS and swiss_ms < TARGET_MS,
            }
        )
    )


if __name__ == "__main__":
    main()
