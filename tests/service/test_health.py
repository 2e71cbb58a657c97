"""`GET /health` reports the database and the broker, on every backend we support."""

from __future__ import annotations

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
    assert response.get_json() == {"ok": True, "database": "ok", "broker": "eager"}


@pytest.mark.integration
def test_health_on_postgresql(postgres_url: str) -> None:
    assert health_of(postgres_url) == (200, {"ok": True, "database": "ok", "broker": "eager"})


def test_database_down_is_503(closed_port: int) -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{closed_port}/test"
    assert health_of(url) == (503, {"ok": False, "database": "down", "broker": "eager"})


@pytest.mark.integration
def test_broker_ok_with_real_redis(sqlite_url: str, redis_url: str) -> None:
    assert health_of(sqlite_url, redis_url) == (
        200,
        {"ok": True, "database": "ok", "broker": "ok"},
    )


def test_broker_down_is_reported_but_the_service_still_answers(
    sqlite_url: str, closed_port: int
) -> None:
    status, body = health_of(sqlite_url, f"redis://127.0.0.1:{closed_port}/0")
    assert (status, body) == (200, {"ok": True, "database": "ok", "broker": "down"})
