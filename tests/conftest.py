"""Shared fixtures. Real services are fixtures that skip locally when absent but fail under
CI=true, so CI can never pass by quietly not testing PostgreSQL or Redis."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.exc import SQLAlchemyError

from service.storage.db import get_database
from tests.helpers import SIGNING_KEY, make_test_app

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

settings.register_profile("dev", deadline=None, max_examples=100)
settings.register_profile(
    "ci",
    deadline=None,
    max_examples=200,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if IN_CI else "dev"))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``make test``'s ``--dist loadgroup`` (pytest-xdist), keep each module whose tests
    share a module- or class-scoped fixture (a server, a migrated app) on one worker, so it is
    set up once as without xdist; every other test goes to whichever worker is free."""
    if not config.getoption("loadgroup", False):  # xdist sets it on the workers that collect
        return
    shared = {"module", "class", "package"}
    for item in items:
        fixtures = getattr(item, "_fixtureinfo", None)
        defs = fixtures.name2fixturedefs.values() if fixtures else ()
        if any(chain and chain[-1].scope in shared for chain in defs):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Name each test as it is collected in reports (terminal, ``--junitxml``, ``--lf``), not
    with the ``@group`` xdist appends to the ids it schedules (its workers keep theirs)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    module = report.nodeid.split("::")[0]
    report.nodeid = report.nodeid.removesuffix(f"@{module}")


def service_missing(name: str, reason: str) -> None:
    """Skip locally; under CI=true a missing service is a failure, never a skip."""
    message = f"{name} unavailable: {reason}"
    if IN_CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A PostgreSQL URL whose tables live in a fresh schema (``search_path``), dropped at
    the end. The database outlives test runs and is shared by whoever runs tests on the
    machine, so tests never use its public schema."""
    base = os.environ.get("TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    schema = f"test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    engine = create_engine(base, connect_args={"connect_timeout": 3})
    try:
        with engine.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    except SQLAlchemyError as error:
        engine.dispose()
        service_missing("PostgreSQL", str(error).splitlines()[0])
    url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with engine.begin() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL schema of this test session's own."""
    with postgres_schema() as url:
        yield url


@pytest.fixture(scope="module")
def damage_postgres_url() -> Iterator[str]:
    """A PostgreSQL schema of the module's own, for tests that damage stored logs: the
    session's other tests (a rebuild of every projection, say) never meet their tables."""
    with postgres_schema() as url:
        yield url


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
    try:
        with redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2) as client:
            client.ping()
    except redis.RedisError as error:
        service_missing("Redis", str(error))
    return url


@pytest.fixture
def closed_port() -> int:
    """A local TCP port with nothing listening, for 'service is down' tests."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def signing_key() -> str:
    """The server's signing key, which all its processes share (the app here, its workers,
    a server started by the test): a head signed by a key it does not hold is damage."""
    return SIGNING_KEY


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'cardledger.db'}"


@pytest.fixture
def app(sqlite_url: str) -> Iterator[Flask]:
    """An app on a fresh SQLite file, no broker (tasks run eagerly)."""
    app = make_test_app(sqlite_url)
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def brokerless(sqlite_url: str, closed_port: int) -> Iterator[Flask]:
    """An app whose ``REDIS_URL`` points at a port nothing listens on: every task is lost."""
    app = make_test_app(sqlite_url, redis_url=f"redis://127.0.0.1:{closed_port}/0")
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def pg_app(postgres_url: str) -> Iterator[Flask]:
    """An app on this session's PostgreSQL schema, no broker (tasks run eagerly)."""
    app = make_test_app(postgres_url)
    yield app
    get_database(app).engine.dispose()
