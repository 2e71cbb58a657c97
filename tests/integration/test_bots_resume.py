"""Bots whose task a broker outage lost move on by themselves once the broker is back:
real Celery workers (``worker -B``: the beat embedded) on the real PostgreSQL
and a redis-server of the test's own, stopped and started again on the same port. Nobody
calls ``POST /tables/{id}/autoplay``.

Helpers, isolation and bounded waits are ``test_workers``'s; every Celery key carries the
test's own prefix, and the redis-server is killed in teardown.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from service.jobs import autoplays, sweep
from service.jobs.heartbeats import ago
from service.storage.db import get_database
from service.storage.models import pending_autoplays
from tests.conftest import service_missing
from tests.helpers import ADMIN_TOKEN, make_test_app, wait_for
from tests.integration.test_workers import (
    ORGANISER,
    VISIBILITY_TIMEOUT,
    Worker,
    assert_clean_log,
)

pytestmark = pytest.mark.integration


class RedisServer:
    """A redis-server of our own on a fixed free port, that the test stops and starts
    again (empty: no persistence, as after a crash of a cache-only Redis)."""

    def __init__(self, directory: Path) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        self.directory = directory
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def up(self) -> bool:
        try:
            with redis.Redis.from_url(self.url, socket_connect_timeout=0.2) as client:
                return bool(client.ping())
        except redis.RedisError:
            return False

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--dir", str(self.directory)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for(self.up, 10, "our redis-server")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        if self.process is not None:
            self.process.wait(timeout=10)
        assert not self.up()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        service_missing("redis-server", "the binary is not installed")
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def prefix(monkeypatch: pytest.MonkeyPatch) -> str:
    """The Celery key prefix the app here and the workers share."""
    value = f"cardledger-test-{uuid.uuid4().hex[:10]}:"
    monkeypatch.setenv("CARDLEDGER_BROKER_PREFIX", value)
    return value


@pytest.fixture
def app(postgres_url: str, broker: RedisServer, prefix: str, signing_key: str) -> Iterator[Flask]:
    app = make_test_app(postgres_url, broker.url, signing_key=signing_key)
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def start_worker(
    postgres_url: str, broker: RedisServer, prefix: str, signing_key: str, tmp_path: Path
) -> Iterator[Any]:
    """Start ``celery worker -B`` (the sweep's beat embedded) with the given sweep
    interval and idle time; stopped at the end."""
    started: list[Worker] = []

    def start(sweep_seconds: float, idle_seconds: float) -> Worker:
        env = {
            **os.environ,
            "DATABASE_URL": postgres_url,
            "REDIS_URL": broker.url,
            "CARDLEDGER_BROKER_PREFIX": prefix,
            "CARDLEDGER_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
            "CARDLEDGER_ADMIN_TOKEN": ADMIN_TOKEN,
            "CARDLEDGER_SIGNING_KEY": signing_key,
            "CARDLEDGER_SWEEP_SECONDS": str(sweep_seconds),
            "CARDLEDGER_SWEEP_IDLE_SECONDS": str(idle_seconds),
        }
        log = tmp_path / f"worker-{len(started)}.log"
        worker = Worker(f"resume{len(started)}", env, log, 1, options=["-B"])
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


# --- helpers ------------------------------------------------------------------------------------


class BotTable:
    """Ann at seat 0 (she deals first), bots at seats 1 and 2."""

    def __init__(self, client: FlaskClient, seed: str) -> None:
        body = {"game": "bottle-imp", "seed": seed, "max_deals": 1,
                "seats": [{"name": "Ann"}, {"bot": "heuristic"}, {"bot": "random"}]}  # fmt: skip
        created = client.post("/tables", json=body, headers=ORGANISER)
        assert created.status_code == 201, created.json
        self.client, self.id = client, str(created.json["id"])
        self.ann = {"Authorization": f"Bearer {created.json['seats'][0]['token']}"}

    def state(self) -> dict[str, Any]:
        return dict(self.client.get(f"/tables/{self.id}/state", headers=self.ann).json)

    def deal(self) -> int:
        """Ann deals: every seat must now lay a card in the devil's trick and pass, the
        bots too. The version it was recorded at."""
        dealt = self.client.post(f"/tables/{self.id}/actions", json={"type": "deal"},
                                 headers=self.ann)  # fmt: skip
        assert dealt.status_code == 201, dealt.json
        assert {1, 2} <= set(self.state()["to_act"])
        return int(dealt.json["version"])

    def bots_moved_on(self, after: int) -> dict[str, Any] | None:
        """The state once the bots prepared and only Ann is waited for (or the match is
        over); None before."""
        state = self.state()
        done = state["version"] > after and (state["to_act"] == [0] or not state["to_act"])
        return state if done else None


def assert_bots_moved(app: Flask, table: BotTable, state: dict[str, Any], dealt: int) -> None:
    assert state["version"] >= dealt + 4  # two bots, each laid a card and passed
    actors = assert_clean_log(app, table.id)
    assert {"bot heuristic seat 1", "bot random seat 2"} <= set(actors)


# --- the tests ------------------------------------------------------------------------------------


def test_bots_a_broker_outage_left_waiting_resume_once_it_is_back(
    app: Flask, broker: RedisServer, start_worker: Any
) -> None:
    """The worker (and its beat) run throughout; Redis dies, Ann's deal is recorded
    (201) but the bots' task is lost; Redis comes back empty; the beat's sweep finds the
    table waiting on its bots and they move, with nobody asking."""
    worker = start_worker(sweep_seconds=1, idle_seconds=1)
    table = BotTable(app.test_client(), "outage-beat")
    broker.stop()
    dealt = table.deal()
    broker.start()
    state = wait_for(lambda: table.bots_moved_on(dealt), 120, "the bots to move by themselves")
    assert_bots_moved(app, table, state, dealt)
    assert "cardledger.resume_bots" in worker.output()


def test_a_worker_starting_after_the_outage_resumes_the_bots_at_once(
    app: Flask, broker: RedisServer, start_worker: Any
) -> None:
    """No worker during the outage, and beat's interval an hour: the worker's start-up
    sweep alone resumes the table."""
    table = BotTable(app.test_client(), "outage-start")
    broker.stop()
    dealt = table.deal()
    broker.start()
    assert table.bots_moved_on(dealt) is None  # nothing moves them: the task was lost
    start_worker(sweep_seconds=3600, idle_seconds=0)
    state = wait_for(lambda: table.bots_moved_on(dealt), 60, "the start-up sweep")
    assert_bots_moved(app, table, state, dealt)


def test_a_sweep_queues_a_waiting_table_once_while_it_is_pending(
    app: Flask, broker: RedisServer, prefix: str
) -> None:
    """Without a worker the queued task stays queued: the next sweep does not queue the
    table again while its autoplay is pending (a row in the database, not a Redis key,
    so Redis restarting empty forgets nothing); once it has been pending for
    ``LOST_SECONDS`` it is sent again. A table waiting on a person is never queued."""
    waiting, persons = (
        BotTable(app.test_client(), "claim-a"),
        BotTable(app.test_client(), "claim-b"),
    )
    broker.stop()
    waiting.deal()  # recorded; its bots' task lost, and nothing pending
    broker.start()
    with app.app_context():  # (other tests' tables may share the session's database)
        first, second = sweep.resume_bots(idle=0), sweep.resume_bots(idle=0)
    assert waiting.id in first and waiting.id not in second
    assert persons.id not in first + second
    with get_database(app).writing() as connection:
        lost = ago(autoplays.LOST_SECONDS + 1)
        connection.execute(
            update(pending_autoplays)
            .where(pending_autoplays.c.table_id == waiting.id)
            .values(queued_at=lost)
        )
    with app.app_context():
        assert waiting.id in sweep.resume_bots(idle=0)
        assert autoplays.pending_job(persons.id) is None
    assert queued_autoplays(broker.url, prefix).count(waiting.id) == 2


def queued_autoplays(url: str, prefix: str) -> list[str]:
    """The table of each autoplay task waiting in the live queue."""
    with redis.Redis.from_url(url) as client:
        messages = client.lrange(f"{prefix}live", 0, -1)
    found = []
    for raw in messages:
        message = json.loads(raw)
        if message["headers"]["task"] == "cardledger.autoplay":
            found.append(json.loads(base64.b64decode(message["body"]))[0][0])
    return found
