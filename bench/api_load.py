"""HTTP load: accepted actions per second through ``make run``'s server, 8 concurrent clients,
beside the same stack's ceiling and the wave-one code, in one run.

Each mode starts a server on a fresh database and a free loopback port, and each client plays
its own tables as the organiser, choosing legal actions with a local copy of the engine (so it
only POSTs), for a fixed time:

- ``noop``: the ceiling: the same gunicorn (2 workers of 4 threads, ``make run``'s config)
  serving Card Ledger's app with one route that does nothing (``bench/_noop.py``);
- ``sqlite``: ``cardledger serve`` as ``make run`` starts it (gunicorn, the jobs' workers and
  beat), on a SQLite file;
- ``postgresql``: the same on a fresh database of the local PostgreSQL;
- ``old``: the wave-one code (``--old``, commit 97b09c3) checked out beside, on SQLite, served
  as its own ``make run`` served it: one listening socket shared by gunicorn's two workers,
  so that how the 8 connections fall to the workers decides its rate (all on one worker:
  about 800/s; spread: about 1,500/s);
- ``old-spread``: the same code served with this code's gunicorn settings
  (``service/running/gunicorn_conf.py``: a socket per worker, the kernel spreading the
  connections, and the lean access line): its code against this code's, served alike.

Each run starts measuring once the server answers, its jobs' workers run and the machine is
idle again (their boot is not counted against the load). The modes run in turn, ``--rounds``
times (3; this machine's speed drifts from minute to minute), and each mode reports its
median run: accepted actions/s, latency percentiles, the share of the ceiling, the CPU time
gunicorn's processes (master and workers) and the load's own client spent per request, and
how many of the machine's cores were busy. The last line is JSON.

``python bench/api_load.py [--quick] [--clients 8] [--seconds 10] [--rounds 3] [--modes ...]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.live_updates import server_cpu  # noqa: E402
from domain.games import bottle_imp as g  # noqa: E402
from domain.match import MatchRules  # noqa: E402
from domain.replay import event_from_json  # noqa: E402
from domain.table import SeatSpec, Table  # noqa: E402

TOKEN = "bench-organiser-token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


POSTGRES = os.environ.get(
    "CARDLEDGER_BENCH_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432"
)
OLD = "97b09c3"


def wait_for(port: int, server: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        if server.poll() is not None:
            raise SystemExit(f"the server stopped (exit {server.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def environment(database_url: str) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": database_url, "CARDLEDGER_ADMIN_TOKEN": TOKEN}
    env.pop("REDIS_URL", None)
    return env


def gunicorn(app: str, port: int) -> list[str]:
    """``make run``'s gunicorn command line, for another app."""
    return [sys.executable, "-m", "gunicorn", app, "--bind", f"127.0.0.1:{port}",
            "--workers", "2", "--threads", "4",
            "--config", "python:service.running.gunicorn_conf"]  # fmt: skip


@contextmanager
def database(mode: str, tmp: str) -> Iterator[str]:
    """A fresh database for one mode: a SQLite file, or a PostgreSQL database dropped after."""
    if mode != "postgresql":
        yield f"sqlite:///{tmp}/{mode}.db"
        return
    from sqlalchemy import create_engine, text

    name = f"cardledger_bench_{os.getpid()}"
    admin = create_engine(f"{POSTGRES}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield f"{POSTGRES}/{name}"
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def server(mode: str, port: int, tmp: str, old: str) -> Iterator[None]:
    """The server of one mode, serving on ``port`` until the block ends."""
    with database(mode, tmp) as url:
        env, cwd = environment(url), ROOT
        python = sys.executable
        if mode in ("old", "old-spread"):
            cwd, python = old_code(old)
            command = [python, "-m", "gunicorn", "service.app:create_app()",
                       "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "4",
                       "--access-logfile", "-"]  # fmt: skip
            if mode == "old-spread":  # this code's gunicorn settings: a socket per worker
                command[3:3] = ["--config", str(ROOT / "service/running/gunicorn_conf.py")]
        elif mode == "noop":
            command = gunicorn("bench._noop:create()", port)
        else:
            cardledger = Path(sys.executable).parent / "cardledger"
            command = [str(cardledger), "serve", "--port", str(port)]
        subprocess.run([python, "-m", "alembic", "upgrade", "head"], cwd=cwd, env=env,
                       check=True, capture_output=True)  # fmt: skip
        quiet = None if os.environ.get("BENCH_VERBOSE") else subprocess.DEVNULL
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=quiet, stderr=quiet,
                                   start_new_session=True)  # fmt: skip
        try:
            wait_for(port, process)
            yield
        finally:
            os.killpg(process.pid, 15)
            process.wait(30)


def old_code(commit: str) -> tuple[Path, str]:
    """The old code checked out under ``var/bench/`` with a virtualenv of its own
    dependencies (made once, kept for later runs): its folder and its python."""
    home = ROOT / "var" / "bench" / f"old-{commit}"
    source, venv = home / "src", home / "venv"
    python = venv / "bin" / "python"
    if not (home / ".ready").exists():
        if not source.exists():
            subprocess.run(["git", "worktree", "add", "--detach", "-q", str(source), commit],
                           cwd=ROOT, check=True)  # fmt: skip
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-e", str(source)],
                       check=True)  # fmt: skip
        (home / ".ready").touch()
    return source, str(python)


class Client:
    """One player of many tables over one keep-alive connection.

    It speaks just enough HTTP/1.1 itself (a request's bytes built in one go, a response
    read by its ``Content-Length``): ``http.client`` parses every response's headers with
    the ``email`` package, and on a 2-core machine every microsecond the load generator
    spends is taken from the server it measures (``client_cpu_us`` reports what is left).
    """

    def __init__(self, port: int, seed: int) -> None:
        self.port = port
        self.sock: socket.socket | None = None
        self.unread = b""  # bytes received past the last response (none, in practice)
        self.headers = (
            f"Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\n"
            "Content-Type: application/json\r\n"
        )
        self.rng = random.Random(seed)
        self.latencies: list[float] = []
        self.accepted = 0
        self.refused = 0

    def call(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        if self.sock is None:
            self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.unread = b""
        data = b"" if body is None else json.dumps(body).encode()
        self.sock.sendall(
            f"{method} {path} HTTP/1.1\r\n{self.headers}Content-Length: {len(data)}\r\n\r\n"
            .encode() + data
        )  # fmt: skip
        status, payload = self.response(self.sock)
        return status, json.loads(payload)

    def response(self, sock: socket.socket) -> tuple[int, bytes]:
        """The status and body of the next response on ``sock``."""
        received = self.unread
        while (end := received.find(b"\r\n\r\n")) < 0:
            received += self.receive(sock)
        lines = received[:end].decode("latin-1").split("\r\n")
        status, length = int(lines[0].split(" ", 2)[1]), None
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value)
        if length is None:
            raise SystemExit(f"a response without Content-Length: {lines}")
        start = end + 4
        while len(received) < start + length:
            received += self.receive(sock)
        self.unread = received[start + length :]
        return status, received[start : start + length]

    @staticmethod
    def receive(sock: socket.socket) -> bytes:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        return chunk

    def warm_up(self, workers: bool) -> None:
        """Wait for the server to answer, and for its jobs' workers and beat to run if it
        has them (``/health``'s ``workers``)."""
        for _ in range(300):
            try:
                status, health = self.call("GET", "/health", None)
                if status == 200 and not (workers and "down" in health["workers"].values()):
                    return
            except OSError:
                if self.sock is not None:
                    self.sock.close()
                self.sock = None
            time.sleep(0.1)
        raise SystemExit("the server does not answer /health")

    def new_table(self) -> tuple[str, Any]:
        seed = str(self.rng.random())
        status, created = self.call("POST", "/tables", {
            "game": "bottle-imp", "variant": "standard", "seats": [{"name": n} for n in "ABCD"],
            "target_score": None, "max_deals": 3, "seed": seed,
        })  # fmt: skip
        assert status == 201, created
        seats = tuple(SeatSpec(name=n) for n in "ABCD")
        table = Table("bottle-imp", "standard", seats, MatchRules(None, 3), seed)
        return created["id"], g.initial_state(table)

    def run(self, until: float, noop: bool) -> None:
        table_id, state = ("", None) if noop else self.new_table()
        while time.perf_counter() < until:
            if noop:
                path, body = "/bench/noop", {"type": "play", "card": 1}
            else:
                if state.phase == "finished":
                    table_id, state = self.new_table()
                acting = g.to_act(state)
                action = self.rng.choice(g.legal_actions(state, self.rng.choice(acting)))
                path, body = f"/tables/{table_id}/actions", g.body(action)
            start = time.perf_counter()
            status, answer = self.call("POST", path, body)
            self.latencies.append(time.perf_counter() - start)
            if status != 201:
                self.refused += 1
                continue
            self.accepted += 1
            for e in answer["events"]:
                state = g.evolve(state, event_from_json("bottle-imp", e["type"], e["data"]))


def machine_cpu() -> tuple[float, float]:
    """CPU seconds the whole machine has been busy, and stolen by its hypervisor, so far
    (Linux ``/proc/stat``): whether a mode ran out of cores, and whose they were."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle, iowait, steal = values[3], values[4], values[7]
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(values[:8]) - idle - iowait - steal) / tick, steal / tick


def settle(quiet: float = 0.2, limit: float = 60.0) -> None:
    """Wait until the machine is idle (below ``quiet`` cores busy for half a second): a
    server that answers may still be booting its jobs' workers, whose imports would
    otherwise be counted against the first seconds of load."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = machine_cpu()[0]
        time.sleep(0.5)
        if (machine_cpu()[0] - before) / 0.5 < quiet:
            return
    print(f"the machine did not settle below {quiet} cores busy in {limit:.0f} s: measuring anyway")


def measure(mode: str, clients: int, seconds: float, old: str) -> dict[str, Any]:
    """Accepted actions/s and latencies of ``clients`` clients against one mode's server."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp, server(mode, port, tmp, old):
        players = [Client(port, i) for i in range(clients)]
        for player in players:  # one warm-up request each: every worker has loaded the app
            player.warm_up(workers=mode in ("sqlite", "postgresql"))  # `cardledger serve`
        settle()
        until = time.perf_counter() + seconds
        threads = [threading.Thread(target=c.run, args=(until, mode == "noop")) for c in players]
        cpu, client_cpu, machine = server_cpu(port), time.process_time(), machine_cpu()
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
        cpu = server_cpu(port) - cpu
        client_cpu = time.process_time() - client_cpu
        busy, stolen = (
            after - before for after, before in zip(machine_cpu(), machine, strict=True)
        )
    latencies = sorted(x for c in players for x in c.latencies)
    accepted = sum(c.accepted for c in players)
    refused = sum(c.refused for c in players)
    return {
        "mode": mode,
        "accepted_per_s": round(accepted / elapsed),
        "cpu_us": round(cpu / accepted * 1e6),
        "client_cpu_us": round(client_cpu / (accepted + refused) * 1e6),
        "cores_busy": round(busy / elapsed, 2),
        "cores_stolen": round(stolen / elapsed, 2),
        "refused": refused,
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p99_ms": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 2),
    }


WORDS = {
    "noop": "ceiling (a no-op route, same stack)",
    "sqlite": "recorded play, SQLite (make run)",
    "postgresql": "recorded play, PostgreSQL",
    "old": "recorded play, SQLite, wave-one code",
    "old-spread": "the same, this code's gunicorn settings",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--modes", default="noop,sqlite,postgresql,old,old-spread")
    parser.add_argument("--old", default=OLD, help="the commit of the old code (mode old)")
    args = parser.parse_args()
    seconds = args.seconds or (4.0 if args.quick else 10.0)
    rounds = args.rounds or (1 if args.quick else 3)
    modes = args.modes.split(",")
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
    for _ in range(rounds):  # the modes in turn: a noisy minute weighs on each alike
        for mode in modes:
            runs[mode].append(measure(mode, args.clients, seconds, args.old))
    results = []
    for measured in runs.values():  # each mode's median run, and every run's rate
        measured.sort(key=lambda r: r["accepted_per_s"])
        rates = [r["accepted_per_s"] for r in measured]
        results.append({**measured[len(measured) // 2], "runs_per_s": rates})
    ceiling = next((r["accepted_per_s"] for r in results if r["mode"] == "noop"), None)
    runs_said = "one run" if rounds == 1 else f"the median of {rounds} alternated runs"
    print(f"{args.clients} clients, {seconds:.0f} s a run, {runs_said} of each mode:")
    for r in results:
        share = f", {r['accepted_per_s'] / ceiling:.0%} of the ceiling" if ceiling else ""
        spread = "–".join(f"{x:,}" for x in (r["runs_per_s"][0], r["runs_per_s"][-1]))
        print(f"  {WORDS[r['mode']]:<42} {r['accepted_per_s']:>6,}/s (runs {spread}, "
              f"{r['refused']} refused){share}, latency p50 {r['p50_ms']:.1f} ms, "
              f"p99 {r['p99_ms']:.1f} ms, gunicorn's CPU {r['cpu_us']:,} µs a request (the "
              f"client's {r['client_cpu_us']} µs), {r['cores_busy']:.2f} cores busy")  # fmt: skip
    print(json.dumps({"clients": args.clients, "seconds": seconds, "rounds": rounds,
                      "results": results}))  # fmt: skip


if __name__ == "__main__":
    main()
