"""`GET /health` reports the database, the broker and the jobs' workers and beat, on every
backend we support."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from service.jobs import heartbeats
from service.storage.db import get_database
from service.storage.models import job_heartbeats
from tests.helpers import make_test_app

NOT_HEARD_FROM = {"live": "down", "simulations": "down", "beat": "down"}


def health_of(database_url: str, redis_url: str | None = None) -> tuple[int, dict[str, object]]:
    app = make_test_app(database_url, redis_url, migrate=False)
    response = app.test_client().get("/health")
    assert response.mimetype == "application/json"
    return response.status_code, response.get_json()


def test_health_on_sqlite_without_broker(client: FlaskClient) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    assert response.get_json() == {"ok": True, "database": "ok", "broker": "eager", "jobs": "eager"}


@pytest.mark.integration
def test_health_on_postgresql(postgres_url: str) -> None:
    assert health_of(postgres_url) == (
        200,
        {"ok": True, "database": "ok", "broker": "eager", "jobs": "eager"},
    )


def test_database_down_is_503(closed_port: int) -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{closed_port}/test"
    assert health_of(url) == (
        503,
        {"ok": False, "database": "down", "broker": "eager", "jobs": "eager"},
    )


def heard_from(app: Flask, *parts: str) -> None:
    """What a worker running its queue's heartbeat, or the beat ticking, stamps."""
    with app.app_context():
        for part in parts:
            heartbeats.record(part)


@pytest.mark.integration
def test_broker_ok_with_real_redis(sqlite_url: str, redis_url: str) -> None:
    """No worker has been heard from yet: the jobs are down, the service is ok."""
    assert health_of(sqlite_url, redis_url) == (
        200,
        {"ok": True, "database": "ok", "broker": "ok", "jobs": "down",
         "workers": NOT_HEARD_FROM},
    )  # fmt: skip
    app = make_test_app(sqlite_url, redis_url)
    heard_from(app, *heartbeats.PARTS)
    assert app.test_client().get("/health").get_json() == {
        "ok": True, "database": "ok", "broker": "ok", "jobs": "redis",
        "workers": {"live": "ok", "simulations": "ok", "beat": "ok"},
    }  # fmt: skip


def test_broker_down_is_reported_but_the_service_still_answers(
    sqlite_url: str, closed_port: int
) -> None:
    status, body = health_of(sqlite_url, f"redis://127.0.0.1:{closed_port}/0")
    assert (status, body) == (
        200,
        {"ok": True, "database": "ok", "broker": "down", "jobs": "down",
         "workers": NOT_HEARD_FROM},
    )  # fmt: skip


def test_the_sqlite_broker_is_reported(sqlite_url: str, tmp_path: Path) -> None:
    """`make run`'s default: jobs go through a SQLite file, which answers or not."""
    url = f"sqla+sqlite:///{tmp_path / 'broker.sqlite'}"
    app = make_test_app(sqlite_url, jobs="sqlite", broker_url=url)
    heard_from(app, *heartbeats.PARTS)
    assert app.test_client().get("/health").get_json() == {
        "ok": True, "database": "ok", "broker": "ok", "jobs": "sqlite",
        "workers": {"live": "ok", "simulations": "ok", "beat": "ok"},
    }  # fmt: skip
    gone = f"sqla+sqlite:///{tmp_path / 'missing' / 'broker.sqlite'}"
    app = make_test_app(sqlite_url, jobs="sqlite", broker_url=gone, migrate=False)
    assert app.test_client().get("/health").get_json()["broker"] == "down"


@pytest.mark.parametrize("silent", heartbeats.PARTS)
def test_jobs_are_down_while_a_worker_or_the_beat_is_silent(
    sqlite_url: str, tmp_path: Path, silent: str
) -> None:
    """Each part is down once not heard from for three heartbeat periods, or as soon as
    `cardledger serve` saw its process exit; the service itself stays ok (200)."""
    url = f"sqla+sqlite:///{tmp_path / 'broker.sqlite'}"
    app = make_test_app(sqlite_url, jobs="sqlite", broker_url=url)
    client = app.test_client()
    heard_from(app, *heartbeats.PARTS)
    assert client.get("/health").get_json()["jobs"] == "sqlite"
    period = app.config["CARDLEDGER"].heartbeat_seconds
    with get_database(app).writing() as connection:
        connection.execute(
            update(job_heartbeats)
            .where(job_heartbeats.c.name == silent)
            .values(seen_at=heartbeats.ago(3 * period + 1))
        )
    response = client.get("/health")
    assert response.status_code == 200 and response.get_json()["ok"] is True
    assert response.get_json()["jobs"] == "down"
    assert response.get_json()["workers"] == {
        part: "down" if part == silent else "ok" for part in heartbeats.PARTS
    }
    heard_from(app, silent)
    assert client.get("/health").get_json()["jobs"] == "sqlite"
    heartbeats.mark_down(sqlite_url, (silent,))  # what the supervisor does, at once
    assert client.get("/health").get_json()["workers"][silent] == "down"
