"""Issue 18, items 5 and 6, with `make worker` on Redis: `cardledger workers` (a worker
process of the live queue, two of the simulations queue, and the beat, supervised) on the
real Redis and PostgreSQL, the API in this process as the web side.

A big simulation does not stall a live table's bots and ``DELETE /jobs/{job}`` stops it
(nothing of it left in Redis); ``kill -9`` of every simulations worker mid-job: `/health`
says so, the supervisor starts them again, and the reaper resumes the job (long before
Redis's visibility timeout would hand its tasks on).

Isolation as in ``test_workers``: the session's own PostgreSQL schema, a Redis key prefix
of the test's own; the supervisor runs in its own process group, always stopped, and
every process carrying the test's prefix is killed in teardown. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.bots.simulate import Simulation, result, run_chunk
from service.core.config import Config
from service.running.app import create_app
from service.storage.db import get_database, run_migrations
from tests.helpers import ADMIN_TOKEN, wait_for
from tests.integration.test_embedded_jobs import ours

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
SIMULATION_WORKERS = ("worker-simulations-1", "worker-simulations-2")
RANDOM = {"game": "bottle-imp", "seats": ["random", "random", "random"], "max_deals": 1}


@pytest.fixture
def prefix(redis_url: str) -> Iterator[str]:
    value = f"cardledger-test-{uuid.uuid4().hex[:10]}:"
    yield value
    with redis.Redis.from_url(redis_url) as client:
        keys = list(client.scan_iter(match=f"{value}*"))
        if keys:
            client.delete(*keys)


@pytest.fixture
def app(
    postgres_url: str,
    redis_url: str,
    prefix: str,
    signing_key: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Flask]:
    """The web side: publishes to the test's prefix; a one-second heartbeat, like the
    workers'."""
    monkeypatch.setenv("CARDLEDGER_BROKER_PREFIX", prefix)
    run_migrations(postgres_url)
    config = Config(database_url=postgres_url, redis_url=redis_url, admin_token=ADMIN_TOKEN,
                    signing_key=signing_key, heartbeat_seconds=1.0)  # fmt: skip
    app = create_app(config)
    app.config["TESTING"] = True
    yield app
    get_database(app).engine.dispose()


class Supervised:
    """`cardledger workers`, as `make worker` runs it."""

    def __init__(self, env: dict[str, str], log: Path, marker: str) -> None:
        self.log, self.marker = log, marker
        self.process = subprocess.Popen(
            [str(ROOT / ".venv" / "bin" / "cardledger"), "workers", "--live-workers", "1",
             "--job-workers", "2"],
            cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def pid_of(self, child: str) -> int:
        found = re.findall(rf"cardledger serve: {child} pid (\d+)", self.output())
        assert found, self.output()[-3000:]
        return int(found[-1])

    def logged(self, task: str, what: str) -> set[str]:
        return set(re.findall(rf"Task {task}\[([0-9a-f-]+)\] {what}", self.output()))

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        for pid in ours(self.marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def workers(
    app: Flask, postgres_url: str, redis_url: str, prefix: str, signing_key: str, tmp_path: Path
) -> Iterator[Supervised]:
    env = {
        **os.environ, "DATABASE_URL": postgres_url, "REDIS_URL": redis_url,
        "CARDLEDGER_BROKER_PREFIX": prefix, "CARDLEDGER_HEARTBEAT_SECONDS": "1",
        "CARDLEDGER_ADMIN_TOKEN": ADMIN_TOKEN, "CARDLEDGER_SIGNING_KEY": signing_key,
    }  # fmt: skip
    env.pop("CARDLEDGER_JOBS", None)
    supervised = Supervised(env, tmp_path / "workers.log", prefix)
    try:
        yield supervised
    finally:
        supervised.stop()


def health(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/health")
    assert response.status_code == 200
    return dict(response.json)


def job(client: FlaskClient, job_id: str) -> dict[str, Any]:
    return dict(client.get(f"/jobs/{job_id}").json)


def simulate(client: FlaskClient, spec: dict[str, Any]) -> str:
    response = client.post("/simulations", json=spec, headers=ORGANISER)
    assert response.status_code == 202, response.json
    return str(response.json["job"])


def test_on_redis_live_bots_go_first_cancelling_works_and_killed_workers_come_back(
    app: Flask, workers: Supervised, redis_url: str, prefix: str
) -> None:
    client = app.test_client()
    wait_for(lambda: health(client)["jobs"] == "redis", 60, "the workers and beat to be up")

    # a big simulation takes both simulation workers; a live table's bots still answer
    big = {"game": "bottle-imp", "seats": ["heuristic"] * 3, "matches": 5000, "seed": "big"}
    big_job = simulate(client, big)
    wait_for(lambda: len(workers.logged(r"cardledger\.simulate_chunk", "received")) >= 2, 30,
             "chunks to be played")  # fmt: skip
    body = {"game": "bottle-imp", "seed": "beside", "max_deals": 1,
            "seats": [{"name": "Ann"}, {"bot": "heuristic"}, {"bot": "random"}]}  # fmt: skip
    table = client.post("/tables", json=body, headers=ORGANISER).json
    ann = {"Authorization": f"Bearer {table['seats'][0]['token']}"}
    path = f"/tables/{table['id']}"
    dealt = client.post(f"{path}/actions", json={"type": "deal"}, headers=ann).json

    def bots_answered() -> bool:
        state = client.get(f"{path}/state", headers=ann).json
        return bool(state["version"] >= dealt["version"] + 4 and state["to_act"] == [0])

    wait_for(bots_answered, 15, "the live table's bots, beside the simulation")
    assert job(client, big_job)["state"] == "running"
    cancelled = client.delete(f"/jobs/{big_job}", headers=ORGANISER)
    assert (cancelled.status_code, cancelled.json["state"]) == (200, "cancelled")

    def chunks_stopped() -> bool:
        with redis.Redis.from_url(redis_url) as queue:
            waiting = queue.llen(f"{prefix}simulations")
        taken = workers.logged(r"cardledger\.simulate_chunk", "received")
        return not waiting and taken <= workers.logged(r"cardledger\.simulate_chunk", "succeeded")

    wait_for(chunks_stopped, 30, "the cancelled simulation's chunks to stop")
    after = job(client, big_job)
    assert (after["state"], after["progress"]) == ("cancelled", cancelled.json["progress"])

    # every simulations worker killed mid-job: restarted, and the job resumed
    spec = {**RANDOM, "matches": 300, "seed": "redis-killed"}
    job_id = simulate(client, spec)
    wait_for(lambda: job(client, job_id)["progress"]["done"] >= 20, 60, "some chunks stored")
    killed = {name: workers.pid_of(name) for name in SIMULATION_WORKERS}
    for pid in killed.values():
        os.kill(pid, signal.SIGKILL)
    down = wait_for(lambda: (h := health(client))["jobs"] == "down" and h, 30, "/health: down")
    assert down["workers"]["simulations"] == "down" and down["ok"] is True
    wait_for(lambda: health(client)["jobs"] == "redis", 60, "the workers to be back")
    assert all(workers.pid_of(name) != pid for name, pid in killed.items())
    done = wait_for(lambda: (j := job(client, job_id))["state"] != "running" and j, 90,
                    "the resumed job")  # fmt: skip
    assert done["state"] == "done", done
    sim = Simulation.of(spec)
    assert done["result"] == result(sim, run_chunk(sim, range(sim.matches)))
