"""Real Celery workers on the real Redis and PostgreSQL: bots autoplay a table to its
end, a simulation split over two workers equals the in-process result, a worker killed
with SIGKILL mid-job is replaced and the jobs finish with nothing recorded twice, and a
stopped Redis costs only the routes that need it.

Isolation from other test runs sharing the servers: the tables and jobs live in the
session's own PostgreSQL schema (``postgres_url``), and every Celery key in Redis (db 15)
carries a prefix unique to the test (``CARDLEDGER_BROKER_PREFIX``). Workers are subprocesses
(``celery -A workers.celery_app worker``) in their own process group, always stopped
in teardown; every wait is bounded.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from domain.bots import bot
from domain.bots.simulate import Simulation, play_match, result, run_chunk
from domain.games import game
from domain.match import MatchRules
from domain.table import SeatSpec, Table
from service.storage.db import get_database
from service.storage.models import events, job_chunks
from tests.conftest import service_missing
from tests.helpers import ADMIN_TOKEN, make_test_app, wait_for

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
CELERY = ROOT / ".venv" / "bin" / "celery"
ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
VISIBILITY_TIMEOUT = 3  # seconds before a dead worker's task goes to another


# --- isolated database and broker ---------------------------------------------------------------


@pytest.fixture
def database_url(postgres_url: str) -> str:
    """The session's own PostgreSQL schema (``postgres_url``), shared with the workers."""
    return postgres_url


@pytest.fixture
def prefix(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A Redis key prefix for this test's Celery traffic, removed afterwards."""
    value = f"cardledger-test-{uuid.uuid4().hex[:10]}:"
    monkeypatch.setenv("CARDLEDGER_BROKER_PREFIX", value)
    monkeypatch.setenv("CARDLEDGER_VISIBILITY_TIMEOUT", str(VISIBILITY_TIMEOUT))
    yield value
    with redis.Redis.from_url(redis_url) as client:
        keys = list(client.scan_iter(match=f"{value}*"))
        if keys:
            client.delete(*keys)


@pytest.fixture
def app(database_url: str, redis_url: str, prefix: str, signing_key: str) -> Iterator[Flask]:
    app = make_test_app(database_url, redis_url, signing_key=signing_key)
    yield app
    get_database(app).engine.dispose()


# --- workers ------------------------------------------------------------------------------------


class Worker:
    """``celery -A workers.celery_app worker`` as a subprocess in its own process group."""

    def __init__(
        self,
        name: str,
        env: dict[str, str],
        log: Path,
        concurrency: int,
        options: Sequence[str] = (),
    ) -> None:
        self.name, self.log = name, log
        command = [
            str(CELERY), "-A", "workers.celery_app", "worker", "-n", f"{name}@%h",
            "-P", "prefork", "-c", str(concurrency), "-l", "INFO",
            "--without-gossip", "--without-mingle", "--without-heartbeat", *options,
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for(lambda: self.exited() or "ready." in self.output(), 60, f"{name} to start")
        assert not self.exited(), self.output()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def exited(self) -> bool:
        return self.process.poll() is not None

    def kill(self) -> None:
        """SIGKILL the worker and its pool at once: no chance to finish or hand back."""
        if not self.exited():
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.exited():
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()


@pytest.fixture
def workers(
    database_url: str, redis_url: str, prefix: str, signing_key: str, tmp_path: Path
) -> Iterator[Callable[..., Worker]]:
    """Start workers sharing the test's database and broker; all stopped at the end."""
    started: list[Worker] = []
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CARDLEDGER_BROKER_PREFIX": prefix,
        "CARDLEDGER_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
        "CARDLEDGER_ADMIN_TOKEN": ADMIN_TOKEN,
        "CARDLEDGER_SIGNING_KEY": signing_key,
    }

    def start(name: str, concurrency: int = 1) -> Worker:
        worker = Worker(name, env, tmp_path / f"{name}-{len(started)}.log", concurrency)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


# --- helpers ------------------------------------------------------------------------------------


def job(client: FlaskClient, job_id: str) -> dict[str, Any]:
    response = client.get(f"/jobs/{job_id}")
    assert response.status_code == 200
    return dict(response.json)


def finished_job(client: FlaskClient, job_id: str, seconds: float) -> dict[str, Any]:
    found = wait_for(
        lambda: (j := job(client, job_id))["state"] in ("done", "failed") and j,
        seconds,
        f"job {job_id}",
    )
    assert found["state"] == "done", found
    return dict(found)


def simulate(client: FlaskClient, spec: dict[str, Any]) -> str:
    response = client.post("/simulations", json=spec, headers=ORGANISER)
    assert response.status_code == 202, response.json
    return str(response.json["job"])


def in_process(spec: dict[str, Any]) -> dict[str, Any]:
    """The result the same simulation gives in this process, unsplit."""
    sim = Simulation.of(spec)
    return result(sim, run_chunk(sim, range(sim.matches)))


def assert_clean_log(app: Flask, table_id: str) -> list[str]:
    """Gap-free versions, one row per version, hash chain and replay verified; the
    actors in order."""
    with get_database(app).reading() as connection:
        rows = connection.execute(
            select(events.c.version, events.c.actor)
            .where(events.c.stream == table_id)
            .order_by(events.c.version)
        ).all()
    assert [r.version for r in rows] == list(range(1, len(rows) + 1))
    verified = app.test_client().get(f"/tables/{table_id}/verify", headers=ORGANISER).json
    assert verified["ok"], verified
    return [r.actor for r in rows]


BOTS = ["heuristic", "random", "random"]


def bot_table(client: FlaskClient, seats: list[str], seed: str, deals: int) -> str:
    body = {"game": "bottle-imp", "seats": [{"bot": b} for b in seats], "seed": seed,
            "max_deals": deals}  # fmt: skip
    response = client.post("/tables", json=body, headers=ORGANISER)
    assert response.status_code == 201, response.json
    return str(response.json["id"])


def expected_totals(
    client: FlaskClient, table_id: str, seats: list[str], seed: str, deals: int
) -> list[int]:
    """The totals the engine alone plays for the table, dealt with the salt the server drew
    for it (``docs/rules/common.md``), as the organiser's log shows it."""
    log = client.get(f"/tables/{table_id}/events", headers=ORGANISER).json["events"]
    table = Table("bottle-imp", "standard", tuple(SeatSpec(bot=b) for b in seats),
                  MatchRules(None, deals), seed, salt=log[0]["data"]["salt"])  # fmt: skip
    return play_match(game("bottle-imp"), table, [bot(b) for b in seats])[0]


# --- the tests ------------------------------------------------------------------------------------


def test_a_worker_autoplays_a_bot_table_to_the_end(
    app: Flask, workers: Callable[..., Worker]
) -> None:
    workers("autoplay")
    client = app.test_client()
    table_id = bot_table(client, BOTS, "worker-autoplay", 2)  # opening it enqueues the bots
    wait_for(
        lambda: client.get(f"/tables/{table_id}").json["status"] == "finished", 60, "the match"
    )
    actors = assert_clean_log(app, table_id)
    assert {"bot heuristic seat 0", "bot random seat 1"} <= set(actors)
    summary = client.get(f"/tables/{table_id}").json
    assert summary["totals"] == expected_totals(client, table_id, BOTS, "worker-autoplay", 2)


def test_a_simulation_split_over_two_workers_equals_the_in_process_result(
    app: Flask, workers: Callable[..., Worker]
) -> None:
    first, second = workers("one"), workers("two")
    client = app.test_client()
    spec = {"game": "bottle-imp", "seats": BOTS, "matches": 120, "seed": "split",
            "max_deals": 1}  # fmt: skip
    done = finished_job(client, simulate(client, spec), 120)
    assert done["progress"] == {"done": 120, "total": 120}
    assert done["result"] == in_process(spec)
    for worker in (first, second):  # both took chunks
        assert "cardledger.simulate_chunk" in worker.output(), worker.output()[-2000:]


@pytest.mark.timeout(900)  # its waits are guards; on a loaded machine they add up
def test_a_worker_killed_mid_job_is_replaced_and_nothing_counts_twice(
    app: Flask, workers: Callable[..., Worker]
) -> None:
    """SIGKILL a worker (pool and all) while it runs a simulation chunk and a bot
    table's autoplay; a new worker gets both tasks back once the visibility timeout
    passes, and finishes them: every chunk stored once, every bot move recorded once."""
    doomed = workers("doomed", concurrency=2)
    client = app.test_client()
    mc = ["montecarlo", "heuristic", "random"]
    table_id = bot_table(client, mc, "killed", 2)
    spec = {"game": "bottle-imp", "seats": BOTS, "matches": 200, "seed": "killed",
            "max_deals": 1}  # fmt: skip
    job_id = simulate(client, spec)
    wait_for(lambda: job(client, job_id)["progress"]["done"] >= 20, 60, "some chunks done")
    wait_for(lambda: client.get(f"/tables/{table_id}").json["version"] > 10, 60, "bot moves")
    doomed.kill()
    assert job(client, job_id)["state"] == "running"
    assert client.get(f"/tables/{table_id}").json["status"] != "finished"
    stranded = tasks(doomed.output(), "received") - tasks(doomed.output(), "succeeded")
    assert stranded, "the worker died between tasks: nothing to hand on"
    replacement = workers("replacement", concurrency=2)
    done = finished_job(client, job_id, 300)  # a guard, not a speed: CI runs beside browsers
    assert done["result"] == in_process(spec)
    with get_database(app).reading() as connection:
        chunks = connection.scalar(
            select(func.count()).select_from(job_chunks).where(job_chunks.c.job_id == job_id)
        )
    assert chunks == len(Simulation.of(spec).chunks())
    wait_for(
        lambda: client.get(f"/tables/{table_id}").json["status"] == "finished", 300, "the match"
    )
    assert_clean_log(app, table_id)
    expected = expected_totals(client, table_id, mc, "killed", 2)
    assert client.get(f"/tables/{table_id}").json["totals"] == expected
    # handed on, none lost: a stranded autoplay may come back after the sweep has already
    # finished its table (it then finds nothing to do), so wait for it rather than race it
    wait_for(lambda: stranded <= tasks(replacement.output(), "received"), 60, "the stranded tasks")


def tasks(log: str, what: str) -> set[str]:
    """Ids of the tasks a worker's log says it ``received`` or that ``succeeded``."""
    return set(re.findall(rf"Task cardledger\.[a-z_]+\[([0-9a-f-]+)\] {what}", log))


# --- Redis stopped ------------------------------------------------------------------------------


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A redis-server of our own on a free port (never the shared one), killed after."""
    if shutil.which("redis-server") is None:
        service_missing("redis-server", "the binary is not installed")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--daemonize", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"

    def up() -> bool:
        try:
            with redis.Redis.from_url(url, socket_connect_timeout=0.2) as client:
                return bool(client.ping())
        except redis.RedisError:
            return False

    wait_for(up, 10, "our redis-server")
    yield url, process
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)


def test_with_redis_stopped_job_routes_answer_503_and_the_rest_works(
    database_url: str, own_redis: tuple[str, subprocess.Popen[bytes]]
) -> None:
    url, server = own_redis
    app = make_test_app(database_url, url)
    client = app.test_client()
    try:
        created = client.post(
            "/tables",
            json={"game": "bottle-imp", "seats": [{"name": "Ann"}, {"bot": "random"},
                                                   {"bot": "random"}], "seed": "down"},
            headers=ORGANISER,
        ).json  # fmt: skip
        table_id = created["id"]
        queued = client.post(f"/tables/{table_id}/autoplay", headers=ORGANISER)
        assert queued.status_code == 202  # Redis up: queued (no worker here to run it)
        server.kill()
        server.wait(timeout=10)
        again = client.post(f"/tables/{table_id}/autoplay", headers=ORGANISER)
        assert (again.status_code, again.json) == (202, queued.json)  # still pending: its job
        idle = client.post(
            "/tables",
            json={"game": "oh-quay", "seats": [{"name": "A"}, {"bot": "random"}]},
            headers=ORGANISER,
        ).json  # nothing pending there: a task for it would have been lost with Redis
        autoplay = client.post(f"/tables/{idle['id']}/autoplay", headers=ORGANISER)
        assert (autoplay.status_code, autoplay.json["code"]) == (503, "broker_unavailable")
        spec = {"game": "oh-quay", "seats": ["random", "random"], "matches": 2, "seed": 1}
        refused = client.post("/simulations", json=spec, headers=ORGANISER)
        assert (refused.status_code, refused.json["code"]) == (503, "broker_unavailable")
        assert client.get(f"/jobs/{queued.json['job']}").status_code == 200  # from the database
        ann = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
        dealt = client.post(f"/tables/{table_id}/actions", json={"type": "deal"}, headers=ann)
        assert dealt.status_code == 201  # a person's action: recorded, bots wait for Redis
        assert client.get(f"/tables/{table_id}").status_code == 200
        assert client.get(f"/tables/{table_id}/state", headers=ann).status_code == 200
        assert client.get(f"/tables/{table_id}/events", headers=ORGANISER).status_code == 200
        other = client.post("/tables", json={"game": "oh-quay", "seats": [{"name": "A"},
                                                                           {"name": "B"}]},
                            headers=ORGANISER)  # fmt: skip
        assert other.status_code == 201
        health = client.get("/health")
        assert (health.status_code, health.json["broker"]) == (200, "down")  # it reports it
    finally:
        get_database(app).engine.dispose()
