"""The SQL event store: one immutable row per event, hash-chained, appended with an
expected version so two writers can never both extend the same version.

``hash = SHA-256(previous hash + canonical JSON)``, where the canonical JSON of an event
is ``{"by", "data", "recorded_at", "schema", "stream", "type", "version"}`` with sorted
keys, no spaces, UTF-8 (``by``: who acted — ``organiser``, ``seat N``, ``engine`` — or
null); the previous hash of version 1 is the empty string. Anyone holding an
export can recompute the chain (``chain_hash``).

The last row of each append also stores the server's Ed25519 signature of the new head
(``signature``, ``key_id``; ``service.core.signing``): the chain proves a log consistent, the
signature proves this server recorded it so. Neither is part of the hash. The database
refuses to change or delete a stored row (``service.storage.guard``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from service.storage.db import HELD_WRITE, send_held_write
from service.storage.guard import POSTGRES_STAMP, SQLITE_STAMP_VALUE

if TYPE_CHECKING:
    from service.core.signing import Signer

GENESIS = ""
_IDLE = 0  # libpq's PQTRANS_IDLE: no transaction open on the connection


class VersionConflict(Exception):
    """The stream moved on: ``current`` is its version now."""

    def __init__(self, stream: str, expected: int | None, current: int) -> None:
        super().__init__(f"stream {stream} is at version {current}, not {expected}")
        self.stream, self.expected, self.current = stream, expected, current


class StreamNotFound(Exception):
    pass


class StaleHead(Exception):
    """A checked append (``EventStore.hold_checked``) found the stored head other than the
    cached log it was built on: moved on, marked damaged, or under another guard stamp.
    Nothing was written; load the stream again (locked, checked) and decide again."""

    def __init__(self, stream: str) -> None:
        super().__init__(f"stream {stream}'s stored head is not the one its append built on")
        self.stream = stream


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
    #: The server's signature of the head at this version (the last row of an append).
    signature: str | None = None
    key_id: str | None = None


class Head(NamedTuple):
    """A stream's row: its kind and head, the damage mark, and the database's guard stamp."""

    kind: str
    version: int
    hash: str
    #: JSON of the first fault found in the stream's rows, or None (``service.storage.streams``).
    damage: str | None
    #: The guard stamp read with the head (``service.storage.guard``).
    guard: str


_ENCODER = json.JSONEncoder(  # what json.dumps builds per call with these options
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 text: the form every hash covers."""
    return _ENCODER.encode(value)


_string = json.encoder.encode_basestring  # a str as ``json.dumps(ensure_ascii=False)`` writes it


def canonical_event(
    stream: str,
    version: int,
    type_: str,
    schema: int,
    data: Any,
    recorded_at: str,
    actor: str | None = None,
) -> str:
    """``canonical_json`` of the event's fields (``by``, ``data``, …): the text its hash covers."""
    return _canonical(stream, version, type_, schema, canonical_json(data), recorded_at, actor)


def _canonical(
    stream: str,
    version: int,
    type_: str,
    schema: int,
    data_json: str,
    recorded_at: str,
    actor: str | None,
) -> str:
    # The keys in sorted order around the already canonical data: serialising the data once
    # instead of three times is most of an append's Python time.
    return (
        f'{{"by":{_field(actor)},"data":{data_json},"recorded_at":{_field(recorded_at)},'
        f'"schema":{_field(schema)},"stream":{_field(stream)},"type":{_field(type_)},'
        f'"version":{_field(version)}}}'
    )


def _field(value: Any) -> str:
    """One scalar as ``canonical_json`` writes it: strings and integers directly, anything
    else (a damaged row, say a number stored as text) through the encoder itself."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is int:
        return int.__repr__(value)
    return canonical_json(value)


def chain_hash(previous: str, canonical: str) -> str:
    return hashlib.sha256((previous + canonical).encode("utf-8")).hexdigest()


def now() -> str:
    """UTC, ISO 8601 with microseconds: stored as text so it hashes the same everywhere."""
    return datetime.now(UTC).isoformat(timespec="microseconds")[:-6] + "Z"  # not "+00:00"


def _chain(
    stream: str,
    start: int,
    previous: str,
    new: Sequence[NewEvent],
    at: str,
    signer: Signer | None,
) -> tuple[list[StoredEvent], list[tuple[Any, ...]]]:
    """The stored events after ``previous``, the last signed by ``signer``, and their rows
    for ``_INSERT``."""
    stored, rows = [], []
    last = start + len(new) - 1
    for version, e in enumerate(new, start=start):
        text = canonical_json(e.data)
        data = json.loads(text)  # exactly what a reader will get back
        previous = chain_hash(
            previous, _canonical(stream, version, e.type, e.schema, text, at, e.actor)
        )
        signature = key = None
        if signer is not None and version == last:
            signed = signer.sign_head(stream, version, previous)
            signature, key = signed.signature, signed.key_id
        event = StoredEvent(
            stream, version, e.type, e.schema, data, at, previous, e.actor, signature, key
        )
        stored.append(event)
        rows.append(_row(event, text))
    return stored, rows


def _row(e: StoredEvent, data_json: str) -> tuple[Any, ...]:
    """An event as the parameters of ``_INSERT`` (the data as its canonical JSON)."""
    return (
        e.stream, e.version, e.type, e.schema, data_json, e.recorded_at, e.hash, e.actor,
        e.signature, e.key_id,
    )  # fmt: skip


_COLUMNS = "stream, version, type, schema, data, recorded_at, hash, actor, signature, key_id"
_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_INSERT = f"INSERT INTO events ({_COLUMNS}) VALUES {_ROW}"
_MOVE_HEAD = "UPDATE streams SET version = ?, head = ? WHERE id = ? AND version = ?"
#: PostgreSQL, a checked append: the head moves only from the version and hash the cached
#: log ends at, while the stream is not marked damaged and the guard stamp is still the one
#: the cache was verified under: everything a locked read of the head would have checked.
_CHECKED_MOVE = f"{_MOVE_HEAD} AND head = ? AND damage IS NULL AND {POSTGRES_STAMP} = ?"


def _move_head_and_insert(rows: int, move: str = _MOVE_HEAD) -> str:
    """PostgreSQL: the guarded head UPDATE and the rows' INSERT as one statement, so an
    append is one round trip; the rows go in only if the head moved."""
    return (
        f"WITH moved AS ({move} RETURNING id) INSERT INTO events ({_COLUMNS}) "
        f"SELECT new.* FROM (VALUES {', '.join([_ROW] * rows)}) AS new ({_COLUMNS}) "
        "WHERE EXISTS (SELECT 1 FROM moved)"
    )


class EventStore:
    """Reads and appends on one connection, inside the caller's transaction; ``signer``
    signs the head each append leaves (without one, heads stay unsigned: tests of the
    store alone, benchmarks).

    The statements run on the driver's own cursor: an API call appends one or two rows
    and a replay reads hundreds, and SQLAlchemy's statement machinery cost more than
    the database did. The SQL is plain and portable (SQLite and PostgreSQL).
    """

    def __init__(self, connection: Connection, signer: Signer | None = None) -> None:
        self.connection = connection
        self.signer = signer
        self._format = connection.dialect.paramstyle != "qmark"  # psycopg: %s
        self._error = connection.dialect.loaded_dbapi.Error

    def _run(self, sql: str, params: Sequence[Any] = (), many: bool = False) -> Any:
        if self._format:
            if HELD_WRITE in self.connection.info:  # a held append goes first, in order
                send_held_write(self.connection)
            sql = sql.replace("?", "%s")
        cursor = self.connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            if many:
                cursor.executemany(sql, params)
            else:
                cursor.execute(sql, params)
        except self._error as error:  # the driver's error, as SQLAlchemy would raise it
            cursor.close()
            raise DBAPIError.instance(sql, params, error, self._error) from error
        return cursor

    def _insert(self, rows: Sequence[tuple[Any, ...]]) -> None:
        if len(rows) == 1:
            self._run(_INSERT, rows[0]).close()
        else:
            self._run(_INSERT, rows, many=True).close()

    def _start(self, stream: str, kind: str, stored: Sequence[StoredEvent], at: str) -> None:
        self._run(
            "INSERT INTO streams (id, kind, version, head, created_at) VALUES (?, ?, ?, ?, ?)",
            (stream, kind, len(stored), stored[-1].hash, at),
        ).close()

    def create(self, stream: str, kind: str, first: Sequence[NewEvent]) -> list[StoredEvent]:
        """Start a new stream with its first events."""
        at = now()
        stored, rows = _chain(stream, 1, GENESIS, first, at, self.signer)
        self._start(stream, kind, stored, at)
        self._insert(rows)
        return stored

    def restore(self, stream: str, kind: str, stored: Sequence[StoredEvent]) -> None:
        """Re-create a stream from verified rows, keeping their times, hashes and
        signatures (import)."""
        self._start(stream, kind, stored, stored[0].recorded_at)
        self.insert_rows(stored)

    def insert_rows(self, stored: Sequence[StoredEvent]) -> None:
        """Insert verified rows as they are (import; ``cardledger restore``)."""
        self._insert([_row(e, canonical_json(e.data)) for e in stored])

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

    def head_row(self, stream: str, *, lock: bool = False) -> Head:
        """The stream's head with its damage mark and the guard stamp, in one statement
        (``lock`` as in ``head``): one round trip on PostgreSQL, and on SQLite one call
        less while the write lock is held."""
        stamp = POSTGRES_STAMP if self._format else SQLITE_STAMP_VALUE
        sql = f"SELECT kind, version, head, damage, {stamp} FROM streams WHERE id = ?"
        if lock and self._format:
            sql += " FOR UPDATE OF streams"
        cursor = self._run(sql, (stream,))
        row = cursor.fetchone()
        cursor.close()
        if row is None:
            raise StreamNotFound(stream)
        return Head(row[0], int(row[1]), str(row[2]), row[3], str(row[4]))

    def mark_damage(self, stream: str, damage: str | None) -> bool:
        """Set (or, with None, clear) the stream's damage mark; whether it changed."""
        sql = "UPDATE streams SET damage = ? WHERE id = ? AND damage IS NOT ?"
        if self._format:
            sql = "UPDATE streams SET damage = ? WHERE id = ? AND damage IS DISTINCT FROM ?"
        return self._rowcount(sql, (damage, stream, damage)) == 1

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
        stored, rows = _chain(stream, expected + 1, previous_hash, new, now(), self.signer)
        if not self._move_head(stream, expected, stored[-1], rows):
            # another writer got there between our read and our write
            raise VersionConflict(stream, expected, self.head(stream)[0])
        return stored

    def _move_head(
        self, stream: str, expected: int, last: StoredEvent, rows: list[tuple[Any, ...]]
    ) -> bool:
        """Move the head from ``expected`` to ``last`` and insert ``rows``; False (and
        nothing written) when the stream is no longer at ``expected``."""
        head = (last.version, last.hash, stream, expected)
        if self._format:  # PostgreSQL: one statement, so one round trip
            both = _move_head_and_insert(len(rows))
            return self._rowcount(both, (*head, *chain(*rows))) == len(rows)
        moved = self._rowcount(_MOVE_HEAD, head) == 1  # SQLite is in-process: no trips to save
        if moved:
            self._insert(rows)
        return moved

    def hold_checked(
        self,
        stream: str,
        expected: int,
        previous_hash: str,
        stamp: str,
        new: Sequence[NewEvent],
    ) -> list[StoredEvent]:
        """PostgreSQL: append after a cached log (at ``expected``, ending at
        ``previous_hash``, verified under guard stamp ``stamp``) without reading the head
        first: the one statement checks the head as a locked read would, and writes only if
        it is that log's, undamaged, under that stamp (else ``StaleHead``, nothing written).

        The statement is held back (``service.storage.db.HELD_WRITE``) until the next
        statement on the connection or the end of the unit of work (``send_held_write``);
        sent alone, it is its transaction's only statement and needs no BEGIN or COMMIT.
        The events it will store are returned now, signed.
        """
        if not self._format:
            raise RuntimeError("a checked append is PostgreSQL's (SQLite reads in-process)")
        if new:
            stored, rows = _chain(stream, expected + 1, previous_hash, new, now(), self.signer)
        else:
            stored, rows = [], []
        if HELD_WRITE in self.connection.info:
            send_held_write(self.connection)
        to = (stored[-1].version, stored[-1].hash) if stored else (expected, previous_hash)
        params = (*to, stream, expected, previous_hash, stamp, *chain(*rows))
        sql = _move_head_and_insert(len(rows), _CHECKED_MOVE) if rows else _CHECKED_MOVE
        want = len(rows) if rows else 1

        def send(alone: bool) -> None:
            if self._sent_alone(sql, params, alone) != want:
                raise StaleHead(stream)

        self.connection.info[HELD_WRITE] = send
        return stored

    def _sent_alone(self, sql: str, params: Sequence[Any], alone: bool) -> int:
        """``sql``'s row count; ``alone`` and nothing sent yet in this transaction: as a
        transaction of its own (no BEGIN, no COMMIT: one round trip)."""
        driver = self.connection.connection.driver_connection
        if not alone or driver.pgconn.transaction_status != _IDLE:  # type: ignore[union-attr]
            return self._rowcount(sql, params)
        driver.autocommit = True  # type: ignore[union-attr]
        try:
            return self._rowcount(sql, params)
        finally:
            driver.autocommit = False  # type: ignore[union-attr]

    def _rowcount(self, sql: str, params: Sequence[Any]) -> int:
        cursor = self._run(sql, params)
        count: int = cursor.rowcount
        cursor.close()
        return count

    def read(
        self, stream: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``after < version <= until``, in version order."""
        sql = (
            "SELECT version, type, schema, data, recorded_at, hash, actor, signature, key_id "
            "FROM events WHERE stream = ? AND version > ?"
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
        # One JSON document for the whole read: decoding is most of a replay's time, and
        # each separate ``json.loads`` call costs half as much again as its text.
        datas = json.loads(f"[{','.join([row[3] for row in rows])}]")
        return [
            StoredEvent(stream, version, kind, schema, data, at, digest, actor, signature, key)
            for (version, kind, schema, _, at, digest, actor, signature, key), data in zip(
                rows, datas, strict=True
            )
        ]
