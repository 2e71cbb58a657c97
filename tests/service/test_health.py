"""`GET /health` reports the database and the broker, on every backend we support."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient

from tests.helpers import make_test_app


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


@pytest.mark.integration
def test_broker_ok_with_real_redis(sqlite_url: str, redis_url: str) -> None:
    assert health_of(sqlite_url, redis_url) == (
        200,
        {"ok": True, "database": "ok", "broker": "ok", "jobs": "redis"},
    )


def test_broker_down_is_reported_but_the_service_still_answers(
    sqlite_url: str, closed_port: int
) -> None:
    status, body = health_of(sqlite_url, f"redis://127.0.0.1:{closed_port}/0")
    assert (status, body) == (
        200,
        {"ok": True, "database": "ok", "broker": "down", "jobs": "redis"},
    )


def test_the_sqlite_broker_is_reported(sqlite_url: str, tmp_path: Path) -> None:
    """`make run`'s default: jobs go through a SQLite file, which answers or not."""
    url = f"sqla+sqlite:///{tmp_path / 'broker.sqlite'}"
    app = make_test_app(sqlite_url, jobs="sqlite", broker_url=url, migrate=False)
    assert app.test_client().get("/health").get_json() == {
        "ok": True, "database": "ok", "broker": "ok", "jobs": "sqlite"
    }  # fmt: skip
    gone = f"sqla+sqlite:///{tmp_path / 'missing' / 'broker.sqlite'}"
    app = make_test_app(sqlite_url, jobs="sqlite", broker_url=gone, migrate=False)
    assert app.test_client().get("/health").get_json()["broker"] == "down"
