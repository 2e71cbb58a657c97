"""The SQL event store: one immutable row per event, hash-chained, appended with an
expected version so two writers can never both extend the same version.

``hash = SHA-256(previous hash + canonical JSON)``, where the canonical JSON of an event
is ``{"by", "data", "recorded_at", "schema", "stream", "type", "version"}`` with sorted
keys, no spaces, UTF-8 (``by``: who acted — ``organiser``, ``seat N``, ``engine`` — or
null); the previous hash of version 1 is the empty string. Anyone holding an
export can recompute the chain (``chain_hash``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

GENESIS = ""


class VersionConflict(Exception):
    """The stream moved on: ``current`` is its version now."""

    def __init__(self, stream: str, expected: int | None, current: int) -> None:
        super().__init__(f"stream {stream} is at version {current}, not {expected}")
        self.stream, self.expected, self.current = stream, expected, current


class StreamNotFound(Exception):
    pass


@dataclass(frozen=True, slots=True)
class NewEvent:
    type: str
    data: Mapping[str, Any]
    schema: int = 1
    actor: str | None = None


class StoredEvent(NamedTuple):
    """A stored event (a tuple: replay builds thousands of them)."""

    stream: str
    version: int
    type: str
    schema: int
    data: dict[str, Any]
    recorded_at: str
    hash: str
    actor: str | None = None


def canonical_json(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def canonical_event(
    stream: str,
    version: int,
    type_: str,
    schema: int,
    data: Any,
    recorded_at: str,
    actor: str | None = None,
) -> str:
    return canonical_json(
        {
            "by": actor,
            "data": data,
            "recorded_at": recorded_at,
            "schema": schema,
            "stream": stream,
            "type": type_,
            "version": version,
        }
    )


def chain_hash(previous: str, canonical: str) -> str:
    return hashlib.sha256((previous + canonical).encode("utf-8")).hexdigest()


def now() -> str:
    """UTC, ISO 8601 with microseconds: stored as text so it hashes the same everywhere."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _chain(
    stream: str, start: int, previous: str, new: Sequence[NewEvent], at: str
) -> list[StoredEvent]:
    out = []
    for i, e in enumerate(new, start=start):
        data = json.loads(canonical_json(e.data))  # exactly what a reader will get back
        canonical = canonical_event(stream, i, e.type, e.schema, data, at, e.actor)
        previous = chain_hash(previous, canonical)
        out.append(StoredEvent(stream, i, e.type, e.schema, data, at, previous, e.actor))
    return out


_COLUMNS = "stream, version, type, schema, data, recorded_at, hash, actor"
_INSERT = f"INSERT INTO events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"


class EventStore:
    """Reads and appends on one connection, inside the caller's transaction.

    The statements run on the driver's own cursor: an API call appends one or two rows
    and a replay reads hundreds, and SQLAlchemy's statement machinery cost more than
    the database did. The SQL is plain and portable (SQLite and PostgreSQL).
    """

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._format = connection.dialect.paramstyle != "qmark"  # psycopg: %s

    def _run(self, sql: str, params: Sequence[Any] = (), many: bool = False) -> Any:
        if self._format:
            sql = sql.replace("?", "%s")
        dbapi = self.connection.dialect.loaded_dbapi
        cursor = self.connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            if many:
                cursor.executemany(sql, params)
            else:
                cursor.execute(sql, params)
        except dbapi.Error as error:  # the driver's error, as SQLAlchemy would raise it
            cursor.close()
            raise DBAPIError.instance(sql, params, error, dbapi.Error) from error
        return cursor

    def _insert(self, stored: Sequence[StoredEvent]) -> None:
        rows = [
            (e.stream, e.version, e.type, e.schema, canonical_json(e.data), e.recorded_at,
             e.hash, e.actor)
            for e in stored
        ]  # fmt: skip
        self._run(_INSERT, rows, many=True).close()

    def _start(self, stream: str, kind: str, stored: Sequence[StoredEvent], at: str) -> None:
        self._run(
            "INSERT INTO streams (id, kind, version, head, created_at) VALUES (?, ?, ?, ?, ?)",
            (stream, kind, len(stored), stored[-1].hash, at),
        ).close()
        self._insert(stored)

    def create(self, stream: str, kind: str, first: Sequence[NewEvent]) -> list[StoredEvent]:
        """Start a new stream with its first events."""
        at = now()
        stored = _chain(stream, 1, GENESIS, first, at)
        self._start(stream, kind, stored, at)
        return stored

    def restore(self, stream: str, kind: str, stored: Sequence[StoredEvent]) -> None:
        """Re-create a stream from verified rows, keeping their times and hashes (import)."""
        self._start(stream, kind, stored, stored[0].recorded_at)

    def head(self, stream: str, *, lock: bool = False) -> tuple[int, str]:
        """The stream's version and last hash; ``lock`` holds its row until the transaction
        ends (PostgreSQL; SQLite's writer already holds the whole database)."""
        sql = "SELECT version, head FROM streams WHERE id = ?"
        if lock and self._format:
            sql += " FOR UPDATE"
        cursor = self._run(sql, (stream,))
        row = cursor.fetchone()
        cursor.close()
        if row is None:
            raise StreamNotFound(stream)
        return int(row[0]), str(row[1])

    def lock(self, stream: str) -> tuple[int, str]:
        return self.head(stream, lock=True)

    def append(
        self,
        stream: str,
        expected: int,
        new: Sequence[NewEvent],
        previous_hash: str | None = None,
    ) -> list[StoredEvent]:
        """Append after version ``expected``, or raise ``VersionConflict``.

        A caller that has just read the stream may pass its head hash to save a query;
        the guarded UPDATE still refuses the append if the stream moved meanwhile.
        """
        if previous_hash is None:
            version, previous_hash = self.head(stream)
            if version != expected:
                raise VersionConflict(stream, expected, version)
        if not new:
            return []
        stored = _chain(stream, expected + 1, previous_hash, new, now())
        moved = self._run(
            "UPDATE streams SET version = ?, head = ? WHERE id = ? AND version = ?",
            (stored[-1].version, stored[-1].hash, stream, expected),
        )
        count = moved.rowcount
        moved.close()
        if count != 1:  # another writer got there between our read and our write
            raise VersionConflict(stream, expected, self.head(stream)[0])
        self._insert(stored)
        return stored

    def read(
        self, stream: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``after < version <= until``, in version order."""
        sql = (
            "SELECT version, type, schema, data, recorded_at, hash, actor FROM events "
            "WHERE stream = ? AND version > ?"
        )
        params: list[Any] = [stream, after]
        if until is not None:
            sql += " AND version <= ?"
            params.append(until)
        sql += " ORDER BY version"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        cursor = self._run(sql, params)
        rows = cursor.fetchall()
        cursor.close()
        return [
            StoredEvent(stream, version, kind, schema, json.loads(data), at, digest, actor)
            for version, kind, schema, data, at, digest, actor in rows
        ]
