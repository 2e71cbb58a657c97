"""Simulations through the service: a 1,000-match Bottle Imp simulation of heuristic bots,
posted to ``make run``'s server, timed from ``POST /simulations`` to its result.

Each run starts a server as ``make run`` does (``cardledger serve``: gunicorn, the live and
simulation workers and beat, on the SQLite broker) on a fresh SQLite database, a broker file
and a free loopback port of its own, waits until ``/health`` says every worker is up, then
posts the simulation and polls ``GET /jobs/{id}`` until it is done. Runs:

- ``make run`` with 1 and with 2 simulation workers (``--job-workers``; 2 is ``make run``'s
  default, and the goal: under 15 s);
- with Redis (``REDIS_URL``, default ``redis://127.0.0.1:6379/0``, under a key prefix of its
  own): the server alone and ``cardledger workers --job-workers 4`` beside it.

Prints each run's wall time, matches/s and matches/s per worker, the scaling from one
worker, and whether every run gave the same result (it must: the same seed). The in-process
rate (``run_chunk`` in this process, no service) is the ceiling one worker can reach.
The last line is JSON.

``python bench/simulations.py [--quick] [--matches 1000] [--runs sqlite:1,sqlite:2,redis:4]``
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain.bots.simulate import Simulation, run_chunk  # noqa: E402

TOKEN = "bench-organiser-token"
SPEC = {
    "game": "bottle-imp",
    "variant": "standard",
    "seats": ["heuristic", "heuristic", "heuristic"],
    "seed": "bench",
}
GOAL_SECONDS = 15.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def call(port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


def wait_healthy(port: int, processes: list[subprocess.Popen[bytes]], seconds: float = 90) -> None:
    """Until ``/health`` answers with every worker and the beat up."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for process in processes:
            if process.poll() is not None:
                raise SystemExit(f"a process stopped (exit {process.returncode})")
        try:
            status, health = call(port, "GET", "/health")
            workers = health.get("workers") or {}
            if status == 200 and workers and all(v == "ok" for v in workers.values()):
                return
        except (OSError, http.client.HTTPException, ValueError):
            pass
        time.sleep(0.2)
    raise SystemExit("the server's workers did not come up")


@contextmanager
def served(tmp: Path, job_workers: int, redis_url: str | None) -> Iterator[tuple[int, list[int]]]:
    """A server as ``make run`` starts it (with Redis: the server and ``cardledger
    workers`` beside it), on a fresh database: its port and its processes' ids."""
    name = f"{'redis' if redis_url else 'sqlite'}-{job_workers}"
    database = f"sqlite:///{tmp}/{name}.db"
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "CARDLEDGER_ADMIN_TOKEN": TOKEN,
        "CARDLEDGER_BROKER_URL": f"sqla+sqlite:///{tmp}/{name}-broker.sqlite",
        "CARDLEDGER_MAX_SIMULATION_MATCHES": "100000",
    }
    env.pop("REDIS_URL", None)
    env.pop("CARDLEDGER_JOBS", None)
    if redis_url:
        env |= {
            "REDIS_URL": redis_url,
            "CARDLEDGER_BROKER_PREFIX": f"bench-{uuid.uuid4().hex[:8]}:",
        }
    bin_dir = Path(sys.executable).parent
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ROOT, env=env,
                   check=True, capture_output=True)  # fmt: skip
    port = free_port()
    commands = [[str(bin_dir / "cardledger"), "serve", "--port", str(port),
                 "--job-workers", str(job_workers)]]  # fmt: skip
    if redis_url:
        commands.append([str(bin_dir / "cardledger"), "workers", "--job-workers", str(job_workers)])
    log = (tmp / f"{name}.log").open("wb")
    quiet = None if os.environ.get("BENCH_VERBOSE") else log
    processes = [
        subprocess.Popen(c, cwd=ROOT, env=env, stdout=quiet, stderr=quiet, start_new_session=True)
        for c in commands
    ]
    try:
        wait_healthy(port, processes)
        yield port, [p.pid for p in processes]
    finally:
        for process in processes:
            os.killpg(process.pid, 15)
        for process in processes:
            process.wait(30)
        log.close()
        if redis_url:
            _clean(redis_url, env["CARDLEDGER_BROKER_PREFIX"])


def _clean(url: str, prefix: str) -> None:
    import redis

    with redis.Redis.from_url(url) as client:
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)


def _descendants(roots: list[int]) -> dict[int, str]:
    """Every process under ``roots`` (and the roots): pid to command line."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found = set(roots)
    grew = True
    while grew:
        more = {pid for pid, ppid in parent.items() if ppid in found} - found
        found |= more
        grew = bool(more)
    out = {}
    for pid in found:
        try:
            out[pid] = (
                (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            )
        except OSError:
            continue
    return out


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU seconds the processes have used so far (Linux ``/proc``)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def simulation_workers(roots: list[int]) -> list[int]:
    """The Celery workers of the simulations queue under ``roots``."""
    return [pid for pid, line in _descendants(roots).items()
            if "celery" in line and "-Q simulations" in line and "worker" in line]  # fmt: skip


def simulate(port: int, spec: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Seconds from ``POST /simulations`` to the job's result, and the result."""
    start = time.perf_counter()
    status, created = call(port, "POST", "/simulations", spec)
    assert status == 202, (status, created)
    job = created["job"]
    while True:
        status, body = call(port, "GET", f"/jobs/{job}")
        if body["state"] in ("done", "failed", "cancelled"):
            break
        time.sleep(0.05)
    elapsed = time.perf_counter() - start
    assert body["state"] == "done", body
    return elapsed, body["result"]


def redis_available(url: str) -> bool:
    try:
        import redis

        with redis.Redis.from_url(url, socket_connect_timeout=1) as client:
            return bool(client.ping())
    except Exception:
        return False


def in_process(spec: dict[str, Any], matches: int) -> float:
    """Matches per CPU second of ``run_chunk`` in this process: one worker's ceiling."""
    sim = Simulation.of({**spec, "matches": matches})
    start = time.process_time()
    run_chunk(sim, range(matches))
    return matches / (time.process_time() - start)


def measure(tmp: Path, run: str, spec: dict[str, Any], redis_url: str) -> dict[str, Any] | None:
    """One run (``sqlite:2``: ``make run`` with two simulation workers; ``redis:4``): its
    wall time, the simulation workers' CPU time and the result; None without Redis."""
    broker, count = run.split(":")
    workers = int(count)
    url = redis_url if broker == "redis" else None
    if url is not None and not redis_available(url):
        print(f"{run}: no Redis at {url}, skipped", flush=True)
        return None
    with served(tmp, workers, url) as (port, roots):
        pids = simulation_workers(roots)
        assert len(pids) == workers, _descendants(roots)
        everything = list(_descendants(roots))
        cpu, total = cpu_seconds(pids), cpu_seconds(everything)
        seconds, outcome = simulate(port, spec)
        cpu, total = cpu_seconds(pids) - cpu, cpu_seconds(everything) - total
    return {
        "run": "make run" if broker == "sqlite" else "redis",
        "workers": workers,
        "seconds": round(seconds, 2),
        "matches_per_s": round(spec["matches"] / seconds, 1),
        "per_worker": round(spec["matches"] / seconds / workers, 1),
        "worker_cpu_s": round(cpu, 2),
        "matches_per_worker_cpu_s": round(spec["matches"] / cpu, 1) if cpu else None,
        "all_cpu_s": round(total, 2),
        "result": outcome,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 matches, make run only")
    parser.add_argument("--matches", type=int, default=None)
    parser.add_argument("--runs", default=None, help="e.g. sqlite:1,sqlite:2,redis:4")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL")
                        or "redis://127.0.0.1:6379/0")  # fmt: skip
    args = parser.parse_args()
    matches = args.matches or (200 if args.quick else 1000)
    runs = args.runs or ("sqlite:1,sqlite:2" if args.quick else "sqlite:1,sqlite:2,redis:4")
    spec = {**SPEC, "matches": matches}
    report: dict[str, Any] = {"cpus": os.cpu_count(), "simulation": spec, "runs": []}
    ceiling = in_process(spec, 40 if args.quick else 100)
    report["in_process_cpu"] = round(ceiling, 1)
    load = os.getloadavg()[0]
    print(f"{matches} matches of {spec['game']}, seats {','.join(spec['seats'])}, "
          f"seed {spec['seed']!r}; {os.cpu_count()} CPUs, load {load:.1f}")  # fmt: skip
    print(f"in this process, no service: {ceiling:6.1f} matches per CPU second", flush=True)
    results = []
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        for run in runs.split(","):
            row = measure(Path(tmp), run, spec, args.redis_url)
            if row is None:
                continue
            results.append(row.pop("result"))
            rate, workers = row["matches_per_s"], row["workers"]
            if workers == 1 and row["run"] == "make run":
                base = rate
            row["scaling"] = round(rate / base, 2) if base else None
            report["runs"].append(row)
            scaling = f"  x{row['scaling']:.2f} of one worker" if base and workers > 1 else ""
            goal = ""
            if row["run"] == "make run" and workers == 2 and matches == 1000:
                met = row["seconds"] < GOAL_SECONDS
                goal = f"  (goal < {GOAL_SECONDS:.0f} s: {'met' if met else 'NOT met'})"
            print(f"{row['run']:8} {workers} simulation worker{'s' if workers > 1 else ' '} "
                  f"{row['seconds']:6.2f} s  {rate:6.1f} matches/s  "
                  f"{row['per_worker']:6.1f} per worker  "
                  f"({row['matches_per_worker_cpu_s']} per worker CPU second; every process "
                  f"{row['all_cpu_s']} CPU s){scaling}{goal}", flush=True)  # fmt: skip
    same = all(r == results[0] for r in results)
    report["same_result"] = same
    print(f"same result on every run: {'yes' if same else 'NO'}", flush=True)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
