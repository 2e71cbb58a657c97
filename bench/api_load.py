"""HTTP load: accepted actions per second through gunicorn on SQLite, 8 concurrent clients.

Starts ``make run``'s server (gunicorn, 2 workers of 4 threads) on a fresh SQLite file
and a free loopback port; each client plays its own tables as the organiser, choosing
legal actions with a local copy of the engine (so it only POSTs), for a fixed time.
Reports accepted actions/s and latency percentiles; the last line is JSON.

``python bench/api_load.py [--quick] [--clients 8] [--seconds 10]``
"""

from __future__ import annotations

import argparse
import http.client
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain.games import bottle_imp as g  # noqa: E402
from domain.match import MatchRules  # noqa: E402
from domain.replay import event_from_json  # noqa: E402
from domain.table import SeatSpec, Table  # noqa: E402

TOKEN = "bench-organiser-token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int, database_url: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DATABASE_URL": database_url, "CARDLEDGER_ADMIN_TOKEN": TOKEN}
    env.pop("REDIS_URL", None)
    bin_dir = Path(sys.executable).parent
    subprocess.run([bin_dir / "alembic", "upgrade", "head"], cwd=ROOT, env=env, check=True,
                   capture_output=True)  # fmt: skip
    server = subprocess.Popen(
        [bin_dir / "gunicorn", "service.running.app:create_app()", "--bind", f"127.0.0.1:{port}",
         "--workers", "2", "--threads", "4", "--log-level", "warning"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("the server did not start")


class Client:
    """One player of many tables over one keep-alive connection."""

    def __init__(self, port: int, seed: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.rng = random.Random(seed)
        self.latencies: list[float] = []
        self.accepted = 0
        self.refused = 0

    def call(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        self.conn.request(method, path, json.dumps(body), headers)
        response = self.conn.getresponse()
        return response.status, json.loads(response.read())

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

    def run(self, until: float) -> None:
        table_id, state = self.new_table()
        while time.perf_counter() < until:
            if state.phase == "finished":
                table_id, state = self.new_table()
            acting = g.to_act(state)
            action = self.rng.choice(g.legal_actions(state, self.rng.choice(acting)))
            start = time.perf_counter()
            status, body = self.call("POST", f"/tables/{table_id}/actions", g.body(action))
            self.latencies.append(time.perf_counter() - start)
            if status != 201:
                self.refused += 1
                continue
            self.accepted += 1
            for e in body["events"]:
                state = g.evolve(state, event_from_json("bottle-imp", e["type"], e["data"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=None)
    args = parser.parse_args()
    seconds = args.seconds or (4.0 if args.quick else 15.0)
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(port, f"sqlite:///{tmp}/load.db")
        try:
            clients = [Client(port, i) for i in range(args.clients)]
            until = time.perf_counter() + seconds
            threads = [threading.Thread(target=c.run, args=(until,)) for c in clients]
            start = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.perf_counter() - start
        finally:
            server.terminate()
            server.wait(10)
    latencies = sorted(x for c in clients for x in c.latencies)
    accepted = sum(c.accepted for c in clients)
    refused = sum(c.refused for c in clients)
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(len(latencies) * 0.99) - 1] * 1000
    rate = accepted / elapsed
    print(f"{args.clients} clients, {elapsed:.1f} s: {rate:,.0f} accepted actions/s "
          f"({refused} refused), latency p50 {p50:.1f} ms, p99 {p99:.1f} ms")  # fmt: skip
    print(json.dumps({
        "clients": args.clients, "accepted_per_s": round(rate), "refused": refused,
        "p50_ms": round(p50, 2), "p99_ms": round(p99, 2),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
