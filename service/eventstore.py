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
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update

from service.models import events, streams

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


@dataclass(frozen=True, slots=True)
class StoredEvent:
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


def _rows(stored: Sequence[StoredEvent]) -> list[dict[str, Any]]:
    return [
        {
            "stream": e.stream,
            "version": e.version,
            "type": e.type,
            "schema": e.schema,
            "data": canonical_json(e.data),
            "recorded_at": e.recorded_at,
            "hash": e.hash,
            "actor": e.actor,
        }
        for e in stored
    ]


# Statements built once: SQLAlchemy caches their compiled form, and building them is
# a noticeable part of an API call.
_HEAD = select(streams.c.version, streams.c.head).where(streams.c.id == bindparam("stream"))
_LOCK = _HEAD.with_for_update()
_MOVE = (
    update(streams)
    .where(streams.c.id == bindparam("stream"), streams.c.version == bindparam("expected"))
    .values(version=bindparam("new_version"), head=bindparam("new_head"))
)
_INSERT = insert(events)
_READ = (
    select(events)
    .where(events.c.stream == bindparam("stream"), events.c.version > bindparam("after"))
    .order_by(events.c.version)
)


class EventStore:
    """Reads and appends on one connection, inside the caller's transaction."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def create(self, stream: str, kind: str, first: Sequence[NewEvent]) -> list[StoredEvent]:
        """Start a new stream with its first events."""
        at = now()
        stored = _chain(stream, 1, GENESIS, first, at)
        self.connection.execute(
            insert(streams).values(
                id=stream, kind=kind, version=len(stored), head=stored[-1].hash, created_at=at
            )
        )
        self.connection.execute(_INSERT, _rows(stored))
        return stored

    def lock(self, stream: str) -> tuple[int, str]:
        """The head, locking the stream's row until the transaction ends (PostgreSQL)."""
        row = self.connection.execute(_LOCK, {"stream": stream}).first()
        if row is None:
            raise StreamNotFound(stream)
        return row.version, row.head

    def restore(self, stream: str, kind: str, stored: Sequence[StoredEvent]) -> None:
        """Re-create a stream from verified rows, keeping their times and hashes (import)."""
        self.connection.execute(
            insert(streams).values(
                id=stream,
                kind=kind,
                version=len(stored),
                head=stored[-1].hash,
                created_at=stored[0].recorded_at,
            )
        )
        self.connection.execute(_INSERT, _rows(stored))

    def head(self, stream: str) -> tuple[int, str]:
        row = self.connection.execute(_HEAD, {"stream": stream}).first()
        if row is None:
            raise StreamNotFound(stream)
        return row.version, row.head

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
        moved = self.connection.execute(
            _MOVE,
            {
                "stream": stream,
                "expected": expected,
                "new_version": stored[-1].version,
                "new_head": stored[-1].hash,
            },
        )
        if moved.rowcount != 1:  # another writer got there between our read and our write
            raise VersionConflict(stream, expected, self.head(stream)[0])
        self.connection.execute(_INSERT, _rows(stored))
        return stored

    def read(
        self, stream: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``after < version <= until``, in version order."""
        query = _READ
        if until is not None:
            query = query.where(events.c.version <= until)
        if limit is not None:
            query = query.limit(limit)
        return [
            StoredEvent(
                r.stream,
                r.version,
                r.type,
                r.schema,
                json.loads(r.data),
                r.recorded_at,
                r.hash,
                r.actor,
            )
            for r in self.connection.execute(query, {"stream": stream, "after": after})
        ]
