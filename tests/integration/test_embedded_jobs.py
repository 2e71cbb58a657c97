"""`make run` alone runs real jobs: no Redis, no request-sized budgets.

The real ``make run`` (``-o .venv/.installed``: the tests' virtualenv is the one it would
build) on a free port, a temporary SQLite database and a temporary SQLite broker
(``CARDLEDGER_BROKER_URL``), without ``REDIS_URL`` or ``CARDLEDGER_JOBS``: the embedded
default. Over HTTP only, a 1,000-match simulation is done with progress along the way,
a table of Monte Carlo bots plays its whole match with nobody asking, and a tournament
round's table filled with bots finishes with only its people acting. Stopping the
server stops its worker: no process started for it is left.

Every process started here carries the test's broker path in its environment, which is
how the test finds them (``ours``) and how teardown kills whatever is left; every wait
is bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import secrets
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import wait_for
from tests.integration.served import MAKE_RUN, Served, free_port, server_env

pytestmark = pytest.mark.integration


def ours(marker: str) -> list[int]:
    """The live processes whose environment holds ``marker`` (the test's broker path)."""
    found = []
    needle = marker.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            if needle in (entry / "environ").read_bytes():
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":  # a zombie has already exited
                    found.append(int(entry.name))
    return found


class EmbeddedServer:
    """``make run`` with the embedded default: gunicorn and the jobs' worker."""

    def __init__(self, tmp_path: Path, **more: str) -> None:
        self.admin = secrets.token_urlsafe(24)
        self.organiser = {"Authorization": f"Bearer {self.admin}"}
        self.broker = tmp_path / "celery-broker.sqlite"
        port = free_port()
        env = server_env(
            f"sqlite:///{tmp_path / 'cardledger.db'}", self.admin,
            PORT=str(port), WORKERS="1", THREADS="4", JOB_WORKERS="2",
            CARDLEDGER_BROKER_URL=f"sqla+sqlite:///{self.broker}", **more,
        )  # fmt: skip
        del env["CARDLEDGER_JOBS"]  # the default: make run chooses, never eager
        self.served = Served(MAKE_RUN, env, port, tmp_path / "make-run.log")

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        return self.served.request(method, path, body, self.organiser)

    def job(self, job_id: str) -> dict[str, Any]:
        status, job = self.request("GET", f"/jobs/{job_id}")
        assert status == 200, job
        return dict(job)

    def supervisor(self) -> int:
        """The pid of `cardledger serve` (make's child)."""
        for pid in ours(str(self.broker)):
            with contextlib.suppress(OSError):
                if b"serve" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[2:3]:
                    return pid
        raise AssertionError(f"no cardledger serve process:\n{self.served.output()}")

    def health(self) -> dict[str, Any]:
        status, found = self.request("GET", "/health")
        assert status == 200, found
        return dict(found)

    def jobs_running(self) -> dict[str, Any] | None:
        """The health report once every job part is heard from (None before)."""
        found = self.health()
        return found if found["jobs"] == "sqlite" else None

    def close(self) -> None:
        self.served.stop()
        for pid in ours(str(self.broker)):  # whatever outlived its parents
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    started = EmbeddedServer(tmp_path_factory.mktemp("embedded"))
    try:
        yield started
    finally:
        started.close()


def test_make_run_prints_the_organisers_console_link(server: EmbeddedServer) -> None:
    """The token comes from the environment here, so the link names it, never prints it."""
    port = server.served.port
    link = f"Organiser's console: http://127.0.0.1:{port}/console?token=<CARDLEDGER_ADMIN_TOKEN>"
    assert link in server.served.output()
    assert server.admin not in server.served.output()


def test_health_says_jobs_go_through_the_sqlite_broker(server: EmbeddedServer) -> None:
    """Up, the server says its jobs run; once its workers and beat are heard from, they do."""
    health = wait_for(server.jobs_running, 60, "the workers and the beat to be heard from")
    assert health == {"ok": True, "database": "ok", "broker": "ok", "jobs": "sqlite",
                      "workers": {"live": "ok", "simulations": "ok", "beat": "ok"}}  # fmt: skip


def test_a_thousand_match_simulation_runs_in_the_worker(server: EmbeddedServer) -> None:
    spec = {"game": "bottle-imp", "seats": ["random", "random", "random"], "matches": 1000,
            "seed": "embedded", "max_deals": 1}  # fmt: skip
    status, created = server.request("POST", "/simulations", spec)
    assert status == 202, created
    first = server.job(created["job"])  # queued for the worker, not played in the request
    assert first["state"] in ("queued", "running"), first
    assert first["progress"]["done"] < 1000 and first["result"] is None, first
    seen: set[int] = set()

    def finished() -> dict[str, Any] | None:
        job = server.job(created["job"])
        seen.add(job["progress"]["done"])
        return job if job["state"] in ("done", "failed") else None

    done = wait_for(finished, 180, "the simulation")
    assert done["state"] == "done", done
    assert done["progress"] == {"done": 1000, "total": 1000}
    assert done["result"]["matches"] == 1000
    assert [row["matches"] for row in done["result"]["seats"]] == [1000] * 3
    assert len(seen - {0, 1000}) >= 1, seen  # progress was seen along the way
    assert "cardledger.simulate_chunk" in server.served.output()  # the worker played it


def test_a_table_of_montecarlo_bots_plays_its_match_with_nobody_asking(
    server: EmbeddedServer,
) -> None:
    body = {"game": "bottle-imp", "seats": [{"bot": "montecarlo"}] * 3, "seed": "embedded",
            "max_deals": 1}  # fmt: skip
    status, created = server.request("POST", "/tables", body)
    assert status == 201, created
    table = created["id"]

    def summary() -> dict[str, Any]:
        status, found = server.request("GET", f"/tables/{table}")
        assert status == 200, found
        return dict(found)

    wait_for(lambda: summary()["status"] == "finished", 120, "the bots' match")
    assert summary()["version"] > 10
    status, verified = server.request("GET", f"/tables/{table}/verify")
    assert status == 200 and verified["ok"], verified


def test_a_tournament_round_filled_with_bots_finishes(server: EmbeddedServer) -> None:
    """Two people and two bots at a round's table: the people act over HTTP with their
    seat tokens; the bots' moves come from the worker, with nobody calling /autoplay."""
    body = {"name": "Embedded cup", "game": "bottle-imp", "table_size": 4, "rounds": 1,
            "fill_with_bots": "random", "max_deals": 1, "seed": "embedded"}  # fmt: skip
    status, tournament = server.request("POST", "/tournaments", body)
    assert status == 201, tournament
    for name in ("Ann", "Bo"):
        entry = {"name": name}
        status, _ = server.request("POST", f"/tournaments/{tournament['id']}/entries", entry)
        assert status == 201
    status, seated = server.request("POST", f"/tournaments/{tournament['id']}/rounds")
    assert status == 201, seated
    (table,) = seated["tables"]
    people = {s["seat"]: {"Authorization": f"Bearer {s['token']}"}
              for s in table["seats"] if not s["bot"]}  # fmt: skip
    assert len(people) == 2
    rng = random.Random("embedded")

    def play() -> bool:
        """One pass over the people: each acts if the table waits for it; finished?"""
        for seat, token in people.items():
            status, state = server.served.request("GET", f"/tables/{table['id']}/state",
                                                  headers=token)  # fmt: skip
            assert status == 200, state
            if state["status"] == "finished":
                return True
            if seat in state["to_act"] and state["legal_actions"]:
                action = rng.choice(state["legal_actions"])
                status, answer = server.served.request(
                    "POST", f"/tables/{table['id']}/actions", action, token
                )
                assert status in (201, 409, 422), answer  # a bot may have moved first
        return False

    wait_for(play, 120, "the round's table to finish")
    status, export = server.request("GET", f"/tables/{table['id']}/export")
    assert status == 200, export
    by = {json.loads(line).get("by") for line in export.splitlines()[1:]}  # who recorded
    assert {f"bot random seat {s['seat']}" for s in table["seats"] if s["bot"]} <= by, by
    status, standings = server.request("GET", f"/tournaments/{tournament['id']}/standings")
    assert status == 200, standings


def test_stopping_the_server_stops_its_worker(tmp_path: Path) -> None:
    """SIGTERM to `cardledger serve` alone (the worker and gunicorn are in process groups
    of their own): it stops both, make exits, and no process of this server is left."""
    server = EmbeddedServer(tmp_path)
    try:
        marker = str(server.broker)
        spec = {"game": "bottle-imp", "seats": ["random"] * 3, "matches": 30, "seed": 3,
                "max_deals": 1}  # fmt: skip
        status, created = server.request("POST", "/simulations", spec)
        assert status == 202, created
        wait_for(lambda: server.job(created["job"])["state"] == "done", 60, "a small job")
        output = server.served.output()
        for child in ("gunicorn", "worker-live-1", "worker-simulations-1", "beat"):
            assert f"cardledger serve: {child} pid" in output, output
        assert len(ours(marker)) >= 8  # make, serve, gunicorn and its worker, the job
        # workers (two per queue), the beat
        os.kill(server.supervisor(), signal.SIGTERM)
        server.served.process.wait(timeout=40)
        wait_for(lambda: not ours(marker), 20, "every process of the server to exit")
    finally:
        server.close()
