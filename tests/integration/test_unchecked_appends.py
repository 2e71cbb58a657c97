"""On PostgreSQL a process acts on a table it has cached without reading the stream's head
first: the append checks the stored head (version, hash, damage mark, guard stamp) in its
own guarded UPDATE and, being the whole transaction, is sent alone (``service.storage.
eventstore``'s ``hold_checked``; ``service.application.unit_of_work``).

What that must not cost: a process whose cache another process has overtaken still
decides on the stored log (nothing is refused or appended on the stale one), and a held
append reaches the database before any statement issued after it. What it saves is
counted here in the server's answers (libpq's own protocol trace), never timed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from psycopg import pq
from sqlalchemy import event, func, select, text

from service.storage.db import get_database, send_held_write
from service.storage.eventstore import EventStore, NewEvent, StaleHead
from service.storage.guard import stamp
from service.storage.models import events
from tests.helpers import ORGANISER, make_test_app

pytestmark = pytest.mark.integration


@pytest.fixture
def first(pg_app: Flask) -> Flask:
    """A process that records a table and has it cached."""
    return pg_app


@pytest.fixture
def second(postgres_url: str, first: Flask) -> Iterator[Flask]:
    """Another process (a second gunicorn worker) on the same database and key."""
    app = make_test_app(postgres_url, migrate=False)
    yield app
    get_database(app).engine.dispose()


def open_and_deal(app: Flask) -> str:
    client = app.test_client()
    body = {"game": "bottle-imp", "seats": [{"name": n} for n in "ABCD"], "seed": "unchecked"}
    created = client.post("/tables", json=body, headers=ORGANISER)
    assert created.status_code == 201, created.get_json()
    table_id: str = created.get_json()["id"]
    dealt = client.post(f"/tables/{table_id}/actions", json={"type": "deal"}, headers=ORGANISER)
    assert dealt.status_code == 201, dealt.get_json()
    return table_id


def state(app: Flask, table_id: str) -> dict[str, Any]:
    found = app.test_client().get(f"/tables/{table_id}/state", headers=ORGANISER)
    assert found.status_code == 200
    body: dict[str, Any] = found.get_json()
    return body


def act(app: Flask, table_id: str, body: dict[str, Any], **headers: str) -> Any:
    return app.test_client().post(
        f"/tables/{table_id}/actions", json=body, headers={**ORGANISER, **headers}
    )


def stored_versions(app: Flask, table_id: str) -> list[int]:
    """The versions stored, from the database itself (not any process's cache)."""
    with get_database(app).reading() as connection:
        query = select(events.c.version).where(events.c.stream == table_id)
        return sorted(connection.scalars(query))


def test_a_process_whose_cache_was_overtaken_decides_on_the_stored_log(
    first: Flask, second: Flask
) -> None:
    """``first`` caches the table; ``second`` plays on it. An action legal only on the
    stored log is accepted by ``first`` (its cache would refuse it: not that seat's turn,
    or that card already played), and If-Match at the stored version is too; each lands
    once, on the stored head."""
    table_id = open_and_deal(first)
    cached = state(first, table_id)  # first's cache is at this version now
    legal_before = cached["legal_actions"]
    only_now: list[dict[str, Any]] = []
    while not only_now:  # second moves the table on behind first's back, into the play
        moved = state(second, table_id)
        assert moved["version"] < cached["version"] + 20, "no action became legal"
        assert act(second, table_id, moved["legal_actions"][0]).status_code == 201
        moved = state(second, table_id)
        only_now = [a for a in moved["legal_actions"] if a not in legal_before]

    answer = act(first, table_id, only_now[0])
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["version"] > moved["version"]

    ruling = {"type": "adjust", "seat": 0, "points": 1, "reason": "late"}
    behind = act(second, table_id, ruling)  # first is behind again
    assert behind.status_code == 201
    at = behind.get_json()["version"]
    matched = act(first, table_id, ruling, **{"If-Match": f'"{at}"'})
    assert matched.status_code == 201, matched.get_json()
    stale = act(first, table_id, ruling, **{"If-Match": f'"{at}"'})
    assert (stale.status_code, stale.get_json()["code"]) == (409, "version_conflict")

    versions = stored_versions(first, table_id)
    assert versions == list(range(1, len(versions) + 1))
    assert state(first, table_id)["version"] == state(second, table_id)["version"] == len(versions)


def test_a_held_append_is_sent_before_any_later_statement(first: Flask) -> None:
    """A statement issued after a held append, on its connection, finds it written; a held
    append whose head moved meanwhile raises ``StaleHead`` there and writes nothing."""
    table_id = open_and_deal(first)
    database = get_database(first)
    with database.reading() as connection:
        version, previous = EventStore(connection).head(table_id)
        guard_stamp = stamp(connection)
    ruling = NewEvent("Adjusted", {"seat": 0, "points": 1, "reason": "held"})
    count = select(func.count()).where(events.c.stream == table_id)
    with database.writing() as connection:
        EventStore(connection).hold_checked(table_id, version, previous, guard_stamp, [ruling])
        assert connection.scalar(count) == version + 1  # sent first, so seen
    with pytest.raises(StaleHead), database.writing() as connection:  # at the old head again
        EventStore(connection).hold_checked(table_id, version, previous, guard_stamp, [ruling])
        connection.execute(text("SELECT 1"))
    with pytest.raises(StaleHead), database.writing() as connection:  # under another stamp
        head = EventStore(connection).head(table_id)
        EventStore(connection).hold_checked(table_id, *head, guard_stamp + "x", [ruling])
        send_held_write(connection, alone=True)
    assert stored_versions(first, table_id) == list(range(1, version + 2))


class Trace:
    """libpq's protocol trace of every connection ``app``'s pool opens from now on."""

    def __init__(self, app: Flask, path: Path) -> None:
        self.engine, self.path = get_database(app).engine, path
        self.engine.dispose()  # connections opened before are not traced
        self.file = path.open("w")
        self.traced: list[Any] = []
        event.listen(self.engine, "connect", self._trace)

    def _trace(self, dbapi_connection: Any, _record: Any) -> None:
        self._start(dbapi_connection.pgconn)
        self.traced.append(dbapi_connection.pgconn)

    def _start(self, pgconn: Any) -> None:
        pgconn.trace(os.dup(self.file.fileno()))  # libpq closes its copy on untrace
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)

    def mark(self) -> int:
        """Where what is sent from now on starts (libpq buffers its trace: each connection's
        is written out by stopping it, then started again)."""
        for pgconn in self.traced:
            pgconn.untrace()
            self._start(pgconn)
        return self.path.stat().st_size

    def since(self, start: int) -> list[str]:
        for pgconn in self.traced:  # libpq buffers its trace: have it written out
            pgconn.untrace()
        self.traced.clear()
        with self.path.open() as trace:
            trace.seek(start)
            return trace.read().splitlines()

    def close(self) -> None:
        event.remove(self.engine, "connect", self._trace)
        for pgconn in self.traced:
            pgconn.untrace()
        self.engine.dispose()
        self.file.close()


def test_an_action_on_a_cached_table_is_one_round_trip_without_begin_or_commit(
    first: Flask, tmp_path: Path
) -> None:
    """What the unchecked path is for: the whole transaction is the checked append, one
    statement the server answers once; a request with an Idempotency-Key still locks."""
    table_id = open_and_deal(first)
    trace = Trace(first, tmp_path / "libpq.trace")
    try:
        act(first, table_id, state(first, table_id)["legal_actions"][0])  # pool warmed
        actions = state(first, table_id)["legal_actions"]
        start = trace.mark()
        assert act(first, table_id, actions[0]).status_code == 201
        lines = trace.since(start)
    finally:
        trace.close()
    answers = [line for line in lines if re.match(r"B\s+\d+\s+ReadyForQuery", line)]
    sent = " ".join(line for line in lines if line.startswith("F"))
    assert len(answers) == 1, lines
    assert "BEGIN" not in sent and "COMMIT" not in sent, lines
    assert "INSERT INTO events" in sent, lines

    keyed = Trace(first, tmp_path / "keyed.trace")
    try:
        act(first, table_id, state(first, table_id)["legal_actions"][0])
        actions = state(first, table_id)["legal_actions"]
        start = keyed.mark()
        answer = act(first, table_id, actions[0], **{"Idempotency-Key": "k-1"})
        assert answer.status_code == 201
        lines = keyed.since(start)
    finally:
        keyed.close()
    assert "FOR UPDATE" in " ".join(lines), lines
