"""Live updates in a club room: how soon a move reaches the other phones, with 40 of them
connected, and what holding them costs recorded play.

One server as ``make run`` starts it (``cardledger serve``: gunicorn, 2 workers of
``THREADS`` + ``CARDLEDGER_WATCHERS`` threads, and the jobs' workers), on a fresh SQLite
file and a free loopback port:

1. *latency*: ``--watchers`` (40) plain HTTP Server-Sent Events clients and ``--browsers``
   (2) real Chromium pages (Playwright, Debian's ``/usr/bin/chromium``: the table page,
   which follows its stream and re-reads the table) follow one table; a player records a
   move every ``--pace`` seconds. Each move's latency is from the player's POST to each
   watcher's ``version`` event, and to each page showing the table at that version. It
   reports p50, p95 and the worst, and how many connections were held all along.
2. *recorded actions/s*: ``--clients`` (8) clients record legal moves as fast as the
   server takes them for ``--seconds``, first with nobody watching, then with the
   watchers following the clients' tables (each move an event to five of them).

``python bench/live_updates.py [--quick] [--watchers 40] [--browsers 2] [--moves 60]``;
the last line printed is JSON.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain.games import bottle_imp as g  # noqa: E402
from domain.match import MatchRules  # noqa: E402
from domain.replay import event_from_json  # noqa: E402
from domain.table import SeatSpec, Table  # noqa: E402

TOKEN = "bench-organiser-token"
HEADERS = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
HEARTBEAT = 15  # seconds (service/web/api/watch.py)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server(tmp: str) -> Iterator[int]:
    """``cardledger serve`` (what ``make run`` runs) on a fresh database; yields its port."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp}/live.db",
           "CARDLEDGER_ADMIN_TOKEN": TOKEN,
           "CARDLEDGER_BROKER_URL": f"sqla+sqlite:///{tmp}/broker.sqlite"}  # fmt: skip
    for name in ("REDIS_URL", "CARDLEDGER_JOBS"):
        env.pop(name, None)
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ROOT, env=env,
                   check=True, capture_output=True)  # fmt: skip
    quiet = None if os.environ.get("BENCH_VERBOSE") else subprocess.DEVNULL
    cardledger = Path(sys.executable).parent / "cardledger"
    command = [str(cardledger), "serve", "--port", str(port)]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=quiet, stderr=quiet,
                               start_new_session=True)  # fmt: skip
    try:
        for _ in range(300):
            if process.poll() is not None:
                raise SystemExit(f"the server stopped (exit {process.returncode})")
            with suppress(OSError, http.client.HTTPException):
                if call(port, "GET", "/health")[0] == 200:
                    break
            time.sleep(0.1)
        else:
            raise SystemExit("the server did not start")
        yield port
    finally:
        os.killpg(process.pid, 15)
        process.wait(30)


def call(port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, None if body is None else json.dumps(body), HEADERS)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


class Player:
    """Plays one table after another as the organiser over one keep-alive connection,
    choosing legal moves with a local copy of the engine (so it only POSTs)."""

    def __init__(self, port: int, seed: int, deals: int = 3) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.rng, self.deals = random.Random(seed), deals
        self.accepted, self.used = 0, time.monotonic()
        self.table, self.state = self.new_table()

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        if time.monotonic() - self.used > 1.0:  # gunicorn closes a connection idle for 2 s
            self.connection.close()
        self.connection.request("POST", path, json.dumps(body), HEADERS)
        response = self.connection.getresponse()
        self.used = time.monotonic()
        return response.status, json.loads(response.read())

    def new_table(self) -> tuple[str, Any]:
        seed = str(self.rng.random())
        status, created = self.post("/tables", {
            "game": "bottle-imp", "seats": [{"name": n} for n in "ABCD"],
            "target_score": None, "max_deals": self.deals, "seed": seed})  # fmt: skip
        assert status == 201, created
        seats = tuple(SeatSpec(name=n) for n in "ABCD")
        table = Table("bottle-imp", "standard", seats, MatchRules(None, self.deals), seed)
        return created["id"], g.initial_state(table)

    def move(self) -> int:
        """One legal move (a new table once the match is over); the version recorded."""
        if self.state.phase == "finished":
            self.table, self.state = self.new_table()
        action = self.rng.choice(g.legal_actions(self.state, self.rng.choice(g.to_act(self.state))))
        status, answer = self.post(f"/tables/{self.table}/actions", g.body(action))
        assert status == 201, answer
        self.accepted += 1
        for e in answer["events"]:
            self.state = g.evolve(self.state, event_from_json("bottle-imp", e["type"], e["data"]))
        return int(answer["version"])


class Watcher(threading.Thread):
    """A phone's stream, as a plain HTTP client: the time each ``version`` arrived. It
    follows ``table()`` and, once that table's stream ends, whichever table it names then."""

    def __init__(self, port: int, table: Callable[[], str]) -> None:
        super().__init__(daemon=True)
        self.port, self.table = port, table
        self.seen: dict[str, dict[int, float]] = {}
        self.connects = self.refused = 0
        self.stopping = threading.Event()
        self.ready = threading.Event()
        self.connection: http.client.HTTPConnection | None = None

    def run(self) -> None:
        while not self.stopping.is_set():
            table = self.table()
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            try:
                self.connection.request("GET", f"/tables/{table}/watch")
                response = self.connection.getresponse()
                if response.status != 200:  # 503: the server holds as many as it may
                    self.refused += 1
                    raise ValueError(response.read()[:300])
                self.connects += 1
                self.read(table, response)
            except (OSError, http.client.HTTPException, ValueError):
                if not self.stopping.is_set():
                    time.sleep(0.2)
            finally:
                self.connection.close()

    def read(self, table: str, response: http.client.HTTPResponse) -> None:
        event = ""
        seen = self.seen.setdefault(table, {})
        for raw in iter(response.readline, b""):
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "version":
                seen.setdefault(json.loads(line[6:])["version"], time.perf_counter())
                self.ready.set()
            elif line.startswith("data: ") and event == "finished":
                return

    def stop(self) -> None:
        self.stopping.set()
        if self.connection is not None and self.connection.sock is not None:
            with suppress(OSError):
                self.connection.sock.shutdown(socket.SHUT_RDWR)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def summary(latencies: list[float]) -> dict[str, float]:
    ms = [x * 1000 for x in latencies]
    return {"p50_ms": round(statistics.median(ms), 1), "p95_ms": round(percentile(ms, 0.95), 1),
            "max_ms": round(max(ms), 1), "samples": len(ms)}  # fmt: skip


@contextmanager
def browsers(count: int, url: str) -> Iterator[list[Any]]:
    """``count`` Chromium pages on ``url`` that note when their table shows each version
    (``window.__seen[version] = Date.now()``); none without Playwright or Chromium."""
    if count == 0 or not Path(CHROMIUM).exists():
        yield []
        return
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        yield []
        return
    note = """() => { window.__seen = {}; const mark = () => {
        const t = document.querySelector('#table'); if (!t) return;
        const v = t.dataset.version; if (!(v in window.__seen)) window.__seen[v] = Date.now(); };
      new MutationObserver(mark).observe(document.body, {subtree: true, childList: true,
                                                         attributes: true}); mark(); }"""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                              args=["--no-sandbox", "--disable-gpu"])  # fmt: skip
        pages = []
        for _ in range(count):
            page = chromium.new_context(viewport={"width": 390, "height": 844}).new_page()
            page.goto(url)
            page.evaluate(note)
            pages.append(page)
        try:
            yield pages
        finally:
            chromium.close()


def latency(port: int, watchers: int, pages: int, moves: int, pace: float) -> dict[str, Any]:
    """Moves at one table, each timed to every watcher and page."""
    player = Player(port, seed=1, deals=20)
    table = player.table
    phones = [Watcher(port, lambda: table) for _ in range(watchers)]
    for phone in phones:
        phone.start()
    for phone in phones:
        assert phone.ready.wait(60), "a watcher could not connect"
    to_phones: list[float] = []
    to_pages: list[float] = []
    with browsers(pages, f"http://127.0.0.1:{port}/tables/{table}/view") as opened:
        sent_at: dict[int, float] = {}
        for _ in range(moves):
            wall, start = time.time(), time.perf_counter()
            version = player.move()
            sent_at[version] = wall
            deadline = time.perf_counter() + 10
            for phone in phones:
                while version not in phone.seen.get(table, {}) and time.perf_counter() < deadline:
                    time.sleep(0.001)
                arrived = phone.seen.get(table, {}).get(version)
                to_phones.append((arrived if arrived is not None else deadline) - start)
            time.sleep(pace)
        time.sleep(1)  # the pages' last swaps
        for page in opened:
            shown = page.evaluate("window.__seen")
            to_pages += [shown[str(v)] / 1000 - sent for v, sent in sent_at.items()
                         if str(v) in shown]  # fmt: skip
    held = sum(1 for phone in phones if phone.connects == 1 and phone.is_alive())
    for phone in phones:
        phone.stop()
    result = {"watchers": watchers, "held": held, "moves": moves,
              "to_phones": summary(to_phones), "browsers": len(opened)}  # fmt: skip
    if to_pages:
        result["to_pages"] = summary(to_pages)
    return result


def watch_elsewhere(port: int, tables: list[str], stop: Any, told: Any) -> None:
    """In a process of its own: a watcher on each of ``tables`` until ``stop`` is set; then
    ``told`` gets how many events they heard and how often they were refused."""
    phones = [Watcher(port, lambda table=table: table) for table in tables]
    for phone in phones:
        phone.start()
    ready = all(phone.ready.wait(60) for phone in phones)
    told.put(("ready", ready))
    stop.wait()
    for phone in phones:
        phone.stop()
    heard = sum(len(seen) for phone in phones for seen in phone.seen.values())
    told.put(("done", heard, sum(phone.refused for phone in phones)))


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used so far (Linux ``/proc``); 0
    for one that is gone."""
    with suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def server_cpu(port: int) -> float:
    """CPU seconds the server's gunicorn processes (master and workers: the processes
    whose command line binds ``port``) have used so far (Linux ``/proc``)."""
    used = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with suppress(OSError):
            if f"127.0.0.1:{port}".encode() in (entry / "cmdline").read_bytes():
                used += cpu_seconds(int(entry.name))
    return used


def throughput(port: int, clients: int, watchers: int, seconds: float) -> dict[str, Any]:
    """Accepted moves/s of ``clients`` players, with ``watchers`` following their tables
    from another process (so that the watchers' own reading takes no turn from the
    players' threads here)."""
    players = [Player(port, seed=100 + i, deals=200) for i in range(clients)]  # no match ends
    tables = [players[i % clients].table for i in range(watchers)]
    stop, told = multiprocessing.Event(), multiprocessing.Queue()
    phones = multiprocessing.Process(target=watch_elsewhere, args=(port, tables, stop, told))
    if watchers:
        phones.start()
        assert told.get(timeout=90) == ("ready", True), "the watchers could not connect"
    until = time.perf_counter() + seconds

    def play(player: Player) -> None:
        while time.perf_counter() < until:
            player.move()

    threads = [threading.Thread(target=play, args=(p,)) for p in players]
    cpu, start = server_cpu(port), time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed, cpu = time.perf_counter() - start, server_cpu(port) - cpu
    accepted = sum(p.accepted for p in players)
    heard = refused = 0
    if watchers:
        stop.set()
        _, heard, refused = told.get(timeout=60)
        phones.join(30)
    return {"watchers": watchers, "events": heard, "refused": refused,
            "accepted_per_s": round(accepted / elapsed),
            "server_cpu_ms_per_action": round(1000 * cpu / max(1, accepted), 3)}  # fmt: skip


def mean_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    rates = [r["accepted_per_s"] for r in runs]
    cpu = statistics.mean(r["server_cpu_ms_per_action"] for r in runs)
    return {**runs[0], "accepted_per_s": round(statistics.mean(rates)), "runs": rates,
            "server_cpu_ms_per_action": round(cpu, 3),
            "events": sum(r["events"] for r in runs),
            "refused": sum(r["refused"] for r in runs)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--watchers", type=int, default=40)
    parser.add_argument("--browsers", type=int, default=2)
    parser.add_argument("--moves", type=int, default=None)
    parser.add_argument("--pace", type=float, default=0.25, help="seconds between moves")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--repeat", type=int, default=None, help="runs of each, alternated")
    args = parser.parse_args()
    args.repeat = args.repeat or (1 if args.quick else 2)
    moves = args.moves or (20 if args.quick else 60)
    seconds = args.seconds or (4.0 if args.quick else 10.0)
    with tempfile.TemporaryDirectory() as tmp, server(tmp) as port:
        moved = latency(port, args.watchers, args.browsers, moves, args.pace)
        runs = []  # alternated, so a busy moment of the machine does not fall on one side
        for _ in range(args.repeat):
            time.sleep(HEARTBEAT + 1)  # the server lets closed streams go at their heartbeat
            runs.append(throughput(port, args.clients, 0, seconds))
            runs.append(throughput(port, args.clients, args.watchers, seconds))
    alone = mean_of([r for r in runs if not r["watchers"]])
    watched = mean_of([r for r in runs if r["watchers"]])
    phones = moved["to_phones"]
    print(f"{args.watchers} watchers and {moved['browsers']} Chromium pages on one table, "
          f"{moves} moves {args.pace:g} s apart:")  # fmt: skip
    print(f"  move to the other phones (SSE):  p50 {phones['p50_ms']} ms, p95 "
          f"{phones['p95_ms']} ms, worst {phones['max_ms']} ms")  # fmt: skip
    if "to_pages" in moved:
        pages = moved["to_pages"]
        print(f"  move to the pages' tables shown: p50 {pages['p50_ms']} ms, p95 "
              f"{pages['p95_ms']} ms, worst {pages['max_ms']} ms")  # fmt: skip
    print(f"  connections held all along: {moved['held']} of {args.watchers} streams "
          f"(+ {moved['browsers']} pages)")  # fmt: skip
    share = watched["accepted_per_s"] / alone["accepted_per_s"]
    print(f"recorded actions/s, {args.clients} clients, {args.repeat} x {seconds:g} s each: "
          f"{alone['accepted_per_s']:,} alone, {watched['accepted_per_s']:,} with "
          f"{args.watchers} watchers ({share:.0%})")  # fmt: skip
    print(f"  server CPU per recorded action: {alone['server_cpu_ms_per_action']:.2f} ms alone, "
          f"{watched['server_cpu_ms_per_action']:.2f} ms with the watchers "
          f"({watched['events']:,} events sent)")  # fmt: skip
    print(json.dumps({"latency": moved, "throughput": [alone, watched]}))


if __name__ == "__main__":
    main()
