"""How the app holds its database: SQLite's one writer across threads and processes,
PostgreSQL connections pinged only after idling, and every connection opened kept."""

from __future__ import annotations

import multiprocessing
import threading
import uuid
from contextlib import ExitStack
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import create_engine, event, text

from service.storage import db as db_module
from service.storage.db import Database, init_app, run_migrations
from service.storage.eventstore import (
    GENESIS,
    EventStore,
    NewEvent,
    VersionConflict,
    canonical_event,
    chain_hash,
)


def _append_until_done(database: Database, stream: str, count: int, who: str) -> None:
    """Append ``count`` events, re-reading the head after each lost race."""
    done = 0
    while done < count:
        try:
            with database.writing() as connection:
                store = EventStore(connection)
                version, _ = store.head(stream)
                store.append(stream, version, [NewEvent("Noted", {"by": who, "n": done})])
            done += 1
        except VersionConflict:
            continue


def _child(url: str, stream: str, count: int) -> None:
    database = init_app(Flask("child"), url)
    _append_until_done(database, stream, count, "child")


def _forked(database: Database, stream: str, count: int) -> None:
    _append_until_done(database, stream, count, "forked")  # the parent's Database, inherited


def test_sqlite_threads_and_processes_share_the_one_writer_without_gaps(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'writers.db'}"
    run_migrations(url)
    database = init_app(Flask(__name__), url)
    stream = uuid.uuid4().hex
    with database.writing() as connection:
        EventStore(connection).create(stream, "table", [NewEvent("TableOpened", {})])
    fork = multiprocessing.get_context("fork")
    processes = [
        fork.Process(target=_child, args=(url, stream, 30)),
        fork.Process(target=_forked, args=(database, stream, 30)),
    ]
    threads = [
        threading.Thread(target=_append_until_done, args=(database, stream, 30, f"thread {i}"))
        for i in range(4)
    ]
    for worker in (*processes, *threads):
        worker.start()
    for thread in threads:
        thread.join(60)
    for process in processes:
        process.join(60)
        assert process.exitcode == 0
    with database.reading() as connection:
        store = EventStore(connection)
        rows = store.read(stream)
        head = store.head(stream)
    assert [r.version for r in rows] == list(range(1, 1 + 1 + 6 * 30))
    assert head == (rows[-1].version, rows[-1].hash)
    authors = [r.data["by"] for r in rows[1:]]
    assert {a: authors.count(a) for a in set(authors)} == {
        **{f"thread {i}": 30 for i in range(4)},
        "child": 30,
        "forked": 30,
    }
    previous = GENESIS
    for r in rows:
        canonical = canonical_event(stream, r.version, r.type, r.schema, r.data, r.recorded_at)
        assert r.hash == chain_hash(previous, canonical), f"version {r.version}"
        previous = r.hash


@pytest.mark.integration
def test_a_postgresql_connection_closed_while_idle_is_replaced_before_use(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = init_app(Flask(__name__), postgres_url)
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    try:
        with database.reading() as connection:
            first = connection.scalar(text("SELECT pg_backend_pid()"))
        with admin.connect() as connection:  # the server drops the idle pooled connection
            connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
        monkeypatch.setattr(db_module, "IDLE_BEFORE_PING", 0.0)
        with database.reading() as connection:
            assert connection.scalar(text("SELECT 1")) == 1
            assert connection.scalar(text("SELECT pg_backend_pid()")) != first
    finally:
        admin.dispose()
        database.engine.dispose()


@pytest.mark.integration
def test_a_postgresql_connection_used_a_moment_ago_is_not_pinged(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = init_app(Flask(__name__), postgres_url)
    pings: list[object] = []
    monkeypatch.setattr(database.engine.dialect, "do_ping", lambda c: pings.append(c) or True)
    try:
        for _ in range(3):
            with database.reading() as connection:
                connection.scalar(text("SELECT 1"))
        assert pings == []
        monkeypatch.setattr(db_module, "IDLE_BEFORE_PING", 0.0)
        with database.reading() as connection:
            connection.scalar(text("SELECT 1"))
        assert len(pings) == 1
    finally:
        database.engine.dispose()


def _burst(database: Database, users: int) -> list[object]:
    """``users`` readers holding a connection at once, as that many concurrent requests do;
    each one's connection as the database names it (PostgreSQL: its server process)."""
    with ExitStack() as held:
        connections = [held.enter_context(database.reading()) for _ in range(users)]
        if database.engine.dialect.name == "postgresql":
            return [c.scalar(text("SELECT pg_backend_pid()")) for c in connections]
        return [id(c.connection.driver_connection) for c in connections]


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)]
)
def test_a_burst_of_concurrent_requests_reuses_the_connections_it_opened(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Beyond SQLAlchemy's five kept connections, each request past them opened a
    connection and closed it again (on PostgreSQL, a server process each time)."""
    url = request.getfixturevalue("postgres_url") if backend == "postgresql" else None
    database = init_app(Flask(__name__), url or f"sqlite:///{tmp_path / 'burst.db'}")
    opened: list[object] = []
    event.listen(database.engine, "connect", lambda *_: opened.append(None))
    users = db_module.POOL_SIZE
    try:
        first = _burst(database, users)
        assert len(opened) == users
        for _ in range(3):
            assert sorted(_burst(database, users)) == sorted(first)
        assert len(opened) == users
    finally:
        database.engine.dispose()
