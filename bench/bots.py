"""Bots: simulation throughput (in-process versus Celery workers) and bot strength.

1. Simulated matches per second for one simulation job run through the task code:
   eager (in this process, no broker), then on one and two Celery worker processes
   (Redis at ``REDIS_URL`` or 127.0.0.1:6379/14, a throwaway SQLite database shared by
   the workers, a key prefix of its own so nothing else on that Redis is touched).
2. The strength table, per game: heuristic against random, and montecarlo against
   heuristic (the other seats), win rates with Wilson 95% intervals against parity
   (1 / players). Matches are split over local processes; the result does not depend
   on the split.
3. The Monte Carlo bot's decision time with its default budget (p50, p95), per game.

``python bench/bots.py [--quick] [--full] [--processes N]``; the last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain.bots import bot, decision_rng  # noqa: E402
from domain.bots.common import observe  # noqa: E402
from domain.bots.simulate import Simulation, result, run_chunk  # noqa: E402
from domain.events import event_type  # noqa: E402

#: (label, game, variant, seats, matches, quick matches)
STRENGTH = [
    ("bottle-imp heuristic vs random", "bottle-imp", "standard",
     ("heuristic", "random", "random"), 120, 30),
    ("bottle-imp montecarlo vs heuristic", "bottle-imp", "standard",
     ("montecarlo", "heuristic", "heuristic"), 60, 16),
    ("oh-quay heuristic vs random", "oh-quay", "standard", ("heuristic", "random"), 80, 20),
    ("oh-quay montecarlo vs heuristic", "oh-quay", "standard",
     ("montecarlo", "heuristic"), 160, 30),
    ("bestia heuristic vs random", "bestia", "standard",
     ("heuristic", "random", "random"), 150, 40),
    ("bestia montecarlo vs heuristic", "bestia", "standard",
     ("montecarlo", "heuristic", "heuristic"), 450, 60),
]  # fmt: skip
FULL = [
    ("bottle-imp/4 montecarlo vs heuristic", "bottle-imp", "standard",
     ("montecarlo", "heuristic", "heuristic", "heuristic"), 60, 12),
    ("lopaka montecarlo vs heuristic", "bottle-imp", "lopaka", ("montecarlo", "heuristic"), 60, 12),
    ("bright-house montecarlo vs heuristic", "bottle-imp", "bright-house",
     ("montecarlo", "heuristic"), 60, 12),
    ("bestia/5 montecarlo vs heuristic", "bestia", "standard",
     ("montecarlo", "heuristic", "heuristic", "heuristic", "heuristic"), 200, 30),
]  # fmt: skip
THROUGHPUT = {"game": "bottle-imp", "seats": ["heuristic", "random", "random"], "seed": "bench"}


# --- strength ---------------------------------------------------------------------------------


def _chunk(args: tuple[dict[str, Any], int, int]) -> list[list[Any]]:
    spec, start, stop = args
    return run_chunk(Simulation.of(spec), range(start, stop))


def simulate(spec: dict[str, Any], processes: int) -> dict[str, Any]:
    """The simulation's result, its chunks spread over local processes."""
    sim = Simulation.of(spec)
    parts = [(spec, c.start, c.stop) for c in sim.chunks()]
    with ProcessPoolExecutor(processes) as pool:
        matches = [m for chunk in pool.map(_chunk, parts) for m in chunk]
    return result(sim, matches)


def strength(rows: list[tuple[Any, ...]], quick: bool, processes: int) -> list[dict[str, Any]]:
    out = []
    for label, game_id, variant, seats, matches, quick_matches in rows:
        spec = {"game": game_id, "variant": variant, "seats": list(seats),
                "matches": quick_matches if quick else matches, "seed": "strength"}  # fmt: skip
        start = time.perf_counter()
        summary = simulate(spec, processes)
        seat = summary["seats"][0]
        parity = 1 / len(seats)
        low, high = seat["win_rate_ci95"]
        row = {
            "label": label,
            "bot": seat["bot"],
            "matches": summary["matches"],
            "win_rate": seat["win_rate"],
            "ci95": [low, high],
            "parity": round(parity, 4),
            "beats_parity": low > parity,
            "mean_score": seat["mean_score"],
            "others_mean_score": round(
                sum(s["mean_score"] for s in summary["seats"][1:]) / (len(seats) - 1), 3
            ),
            "seconds": round(time.perf_counter() - start, 1),
        }
        out.append(row)
        print(
            f"{label:40} {row['matches']:>5} matches  win {seat['win_rate']:.3f} "
            f"[{low:.3f}, {high:.3f}]  parity {parity:.3f}  "
            f"{'beats parity' if row['beats_parity'] else 'NOT beyond parity'}  "
            f"({row['seconds']} s)",
            flush=True,
        )
    return out


# --- decision time ----------------------------------------------------------------------------


def decision_times(game_id: str, seats: tuple[str, ...], matches: int) -> list[float]:
    """Seconds per Monte Carlo decision (those with a choice) over a few matches."""
    sim = Simulation(game_id, seats, matches, "latency")
    rules = sim.rules
    times: list[float] = []
    for i in range(matches):
        table = sim.table(i)
        state = rules.initial_state(table)
        version, deal = 1, []
        bots = [bot(name) for name in seats]
        assert table.seed is not None
        while state.phase != "finished":
            seat = rules.to_act(state)[0]
            view = observe(rules, state, seat, deal)
            start = time.perf_counter()
            body = bots[seat].choose(game_id, view, decision_rng(table.seed, version, seat))
            if seats[seat] == "montecarlo" and len(view["legal_actions"]) > 1:
                times.append(time.perf_counter() - start)
            for e in rules.decide(state, rules.parse(body)):
                if event_type(e) == "DealStarted":
                    deal = []
                deal.append(e)
                state = rules.evolve(state, e)
                version += 1
    return times


def latency(quick: bool) -> dict[str, Any]:
    cases = [
        ("bottle-imp", ("montecarlo", "heuristic", "heuristic")),
        ("oh-quay", ("montecarlo", "heuristic")),
        ("bestia", ("montecarlo", "heuristic", "heuristic")),
    ]
    out = {}
    for game_id, seats in cases:
        times = sorted(decision_times(game_id, seats, 1 if quick else 3))
        p50 = times[len(times) // 2] * 1000
        p95 = times[min(len(times) - 1, int(len(times) * 0.95))] * 1000
        out[game_id] = {"decisions": len(times), "p50_ms": round(p50, 1), "p95_ms": round(p95, 1)}
        print(f"{game_id:12} montecarlo decision  p50 {p50:5.1f} ms  p95 {p95:5.1f} ms  "
              f"({len(times)} decisions)", flush=True)  # fmt: skip
    return out


# --- throughput through the task code --------------------------------------------------


def _redis_url() -> str | None:
    import redis

    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/14"
    try:
        with redis.Redis.from_url(url, socket_connect_timeout=1) as client:
            client.ping()
    except redis.RedisError:
        return None
    return url


def _run_job(app: Any, spec: dict[str, Any]) -> float:
    """Seconds from enqueueing a simulation job to its result."""
    from service.jobs import queue
    from service.storage.db import get_database

    with app.app_context():
        sim = Simulation.of(spec)
        job_id = queue.create(queue.SIMULATION, sim.spec(), sim.matches)
        start = time.perf_counter()
        queue.enqueue("cardledger.simulate", job_id, None)
        while True:
            with get_database().reading() as connection:
                state = queue.view(connection, job_id)["state"]
            if state in ("done", "failed"):
                break
            time.sleep(0.05)
        elapsed = time.perf_counter() - start
        assert state == "done", state
    return elapsed


def throughput(quick: bool) -> dict[str, Any]:
    from service.core.config import Config
    from service.running.app import create_app
    from service.storage.db import run_migrations

    matches = 40 if quick else 320
    spec = {**THROUGHPUT, "matches": matches}
    out: dict[str, Any] = {"simulation": spec}
    with tempfile.TemporaryDirectory() as tmp:
        database = f"sqlite:///{tmp}/bench.db"
        run_migrations(database)
        eager = _run_job(create_app(Config(database_url=database, jobs="eager")), spec)
        out["eager"] = round(matches / eager, 1)
        print(f"in-process (eager)   {matches / eager:7.1f} matches/s", flush=True)
        url = _redis_url()
        if url is None:
            print("no Redis: worker throughput skipped", flush=True)
            out["one_worker"] = out["two_workers"] = None
            return out
        prefix = f"bench-{uuid.uuid4().hex[:8]}:"
        os.environ["CARDLEDGER_BROKER_PREFIX"] = prefix
        env = {**os.environ, "DATABASE_URL": database, "REDIS_URL": url}
        for label, count in (("one_worker", 1), ("two_workers", 2)):
            workers = [_start_worker(f"bench{i}", env, Path(tmp)) for i in range(count)]
            try:
                app = create_app(Config(database_url=database, redis_url=url))
                seconds = _run_job(app, spec)
            finally:
                for w in workers:
                    os.killpg(w.pid, signal.SIGTERM)
                    w.wait(timeout=20)
            out[label] = round(matches / seconds, 1)
            print(f"{count} worker process{'es' if count > 1 else '  '}  "
                  f"{matches / seconds:7.1f} matches/s", flush=True)  # fmt: skip
        _clean(url, prefix)
    return out


def _start_worker(name: str, env: dict[str, str], tmp: Path) -> subprocess.Popen[bytes]:
    log = tmp / f"{name}.log"
    process = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "celery"), "-A", "workers.celery_app", "worker",
         "-n", f"{name}@%h", "-c", "1", "-l", "INFO", "--without-gossip", "--without-mingle",
         "--without-heartbeat"],
        cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while "ready." not in log.read_text(errors="replace"):
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError(f"worker {name} did not start:\n{log.read_text()}")
        time.sleep(0.1)
    return process


def _clean(url: str, prefix: str) -> None:
    import redis

    with redis.Redis.from_url(url) as client:
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small samples, a minute or two")
    parser.add_argument("--full", action="store_true", help="also the other variants")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--skip-workers", action="store_true")
    args = parser.parse_args()
    random.seed(0)
    report: dict[str, Any] = {"cpus": os.cpu_count()}
    print("== throughput: one simulation job through the task code", flush=True)
    report["throughput"] = None if args.skip_workers else throughput(args.quick)
    print("== montecarlo decision time (default budget)", flush=True)
    report["latency"] = latency(args.quick)
    print(f"== strength ({args.processes} processes)", flush=True)
    rows = STRENGTH + (FULL if args.full else [])
    report["strength"] = strength(rows, args.quick, args.processes)
    report["targets"] = {
        "beats_parity": all(r["beats_parity"] for r in report["strength"]),
        "p95_under_50ms": all(v["p95_ms"] < 50 for v in report["latency"].values()),
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
