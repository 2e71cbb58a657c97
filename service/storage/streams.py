"""Streams read back, checked and folded: the one read side of the event store, for tables
and tournaments alike.

Replay is the truth. A process keeps the last verified fold of each stream it has read
and extends it with the rows recorded since, so an action costs no replay. What it
keeps it trusts only while the database could not have changed those rows behind it:

- the database refuses UPDATE and DELETE of event rows (``service.storage.guard``), and every
  load reads the **guard stamp** with the stream's head: a stamp other than the one the
  process last checked the guard under clears every cache (the guard was touched, so
  whatever was read before may be stale), and while the guard is not whole nothing is
  cached at all: every load reads and checks every row;
- a stream marked damaged in the database (``streams.damage``, set by whichever process
  or verifier found it) is refused by every process at once, whatever it cached;
- rows read are checked before use: they chain on from the hash before them without a
  gap, decode and fold, end exactly at the stream's recorded head, and that head carries
  a signature of a trusted key (``service.core.signing``; an imported table instead carries
  this server's attestation of its import mark), so rows a database insider inserted,
  even with correct hashes, are found.

A stream that fails comes back as its verified prefix with the first fault as its
``damage``; reads show that prefix, writes are refused (409 ``log_damaged``), and the
stream is marked damaged once the transaction that found it is over (``writing``). The
background verifier (``service.jobs.verifier``) re-checks every stream's whole chain and all
its signatures, marks what it finds and clears the mark of a stream restored since.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy import Connection, select

from domain.audit import Problem
from service.core.refusals import NotFound
from service.core.signing import head_message, import_message, keyring
from service.storage.chain import RawRow, chain_faults, head_fault, signature_problems
from service.storage.damage import LogDamaged, Origin, marked, stream_problems
from service.storage.eventstore import GENESIS, EventStore, Head, StoredEvent, StreamNotFound
from service.storage.guard import Guard
from service.storage.models import events as event_rows
from service.storage.transactions import note_damage


@dataclass(frozen=True, slots=True)
class StreamLog:
    """A stream at ``version``: its stored rows, its decoded events and the folded state."""

    id: str
    rows: tuple[StoredEvent, ...]
    events: tuple[Any, ...]  # decoded: events[i] is version i + 1
    state: Any
    #: The first fault in the stored log after ``version`` (then rows, events and state
    #: are the verified prefix before it): the stream takes no more writes.
    damage: Problem | None = None
    #: An imported stream's origin; None for one recorded here.
    origin: Origin | None = None

    @property
    def version(self) -> int:
        return len(self.rows)

    @property
    def head(self) -> str:
        return self.rows[-1].hash if self.rows else GENESIS

    @property
    def created_at(self) -> str:
        return self.rows[0].recorded_at


L = TypeVar("L", bound=StreamLog)


class Kind(Protocol[L]):
    """What the repository needs to know of one kind of stream."""

    name: str  # ``streams.kind``; also how its errors name it ("table", "tournament")

    def start(self, connection: Connection, stream_id: str, first: StoredEvent) -> L:
        """The stream at version 1; ``NotFound`` when ``first`` opens another kind's stream.
        Raises anything else for a first row it cannot read."""
        ...

    def decode(self, log: L, row: StoredEvent) -> Any: ...

    def evolve(self, log: L, state: Any, event: Any) -> Any: ...


def fold(kind: Kind[L], log: L, rows: list[StoredEvent]) -> L:
    """``log`` extended by ``rows`` up to the first that cannot be decoded or folded, which
    is then the log's ``damage``."""
    state, decoded = log.state, []
    damage = None
    for row in rows:
        code = "undecodable_event"
        try:
            event = kind.decode(log, row)
            code = "replay_failed"
            state = kind.evolve(log, state, event)
        except Exception as error:  # a row the engine cannot take: the log stops here
            damage = Problem(row.version, code, f"version {row.version}: {error!r}")
            break
        decoded.append(event)
    kept = tuple(rows[: len(decoded)])
    return replace(
        log, rows=log.rows + kept, events=log.events + tuple(decoded), state=state, damage=damage
    )


def signature_fault(log: StreamLog) -> Problem | None:
    """Whether the log's head is vouched for: signed by a trusted key, or (an imported
    table) its import mark attested by this server."""
    ring, last = keyring(), log.rows[-1]
    if log.origin is not None:
        message = import_message(log.id, last.version, last.hash, log.origin.key_id)
        found = ring.fault(message, log.origin.attestation, ring.signer.key_id)
        what = "the import mark's attestation"
    else:
        found = ring.fault(head_message(log.id, last.version, last.hash), last.signature,
                           last.key_id)  # fmt: skip
        what = f"the head at version {last.version}"
    if found is None:
        return None
    code, detail = found
    if code == "unsigned":
        code = "unattested_import" if log.origin is not None else "unsigned_head"
    return Problem(
        last.version,
        code,
        f"{what} is not vouched for: {detail}. Rows were written or rewritten without "
        "this server's key",
    )


def _unreadable(store: EventStore, stream_id: str, after: int, until: int | None,
                previous: str) -> tuple[list[StoredEvent], Problem]:  # fmt: skip
    """The rows before the first whose data is not even JSON (the store decodes a read
    whole), and that fault."""
    column = event_rows.c
    query = select(event_rows).where(column.stream == stream_id, column.version > after)
    if until is not None:
        query = query.where(column.version <= until)
    raw = [
        RawRow(r.version, r.type, r.schema, r.data, r.recorded_at, r.hash, r.actor)
        for r in store.connection.execute(query.order_by(column.version))
    ]
    fault = next(chain_faults(stream_id, raw, previous, after + 1), None)
    if fault is None:  # unreachable: a row that is not JSON cannot be chained
        fault = Problem(after + 1, "unreadable_event", "a stored row is not JSON")
    good = [
        StoredEvent(stream_id, r.version, r.type, r.schema, json.loads(r.data), r.recorded_at,
                    r.hash, r.actor)
        for r in raw[: fault.version - after - 1]
    ]  # fmt: skip
    return good, fault


def _first_unvouched(log: StreamLog) -> Problem | None:
    """The first stored signature of the log that fails (a history rewritten without the
    key fails where its first rewritten head was signed), if any does."""
    rows = [
        RawRow(r.version, r.type, r.schema, None, r.recorded_at, r.hash, r.actor, r.signature,
               r.key_id)
        for r in log.rows
    ]  # fmt: skip
    found = signature_problems(log.id, rows, keyring(), log.origin)
    return min(found, key=lambda p: p.version) if found else None


class Streams(Generic[L]):
    """The per-process cache of one kind's streams (bounded, least recently used out),
    and the one way they are read."""

    def __init__(self, kind: Kind[L], guard_: Guard, capacity: int = 256) -> None:
        self.kind, self.capacity, self.guard = kind, capacity, guard_
        self._logs: OrderedDict[str, L] = OrderedDict()
        self._lock = threading.Lock()
        guard_.register(self.clear)

    def not_found(self, stream_id: str) -> NotFound:
        return NotFound(f"there is no {self.kind.name} {stream_id}")

    def head(self, connection: Connection, stream_id: str, *, lock: bool = False) -> Head:
        """The stream's head row (``lock``: held until the transaction ends)."""
        try:
            found = EventStore(connection).head_row(stream_id, lock=lock)
        except StreamNotFound:
            raise self.not_found(stream_id) from None
        if found.kind != self.kind.name:
            raise self.not_found(stream_id)
        return found

    def load(
        self,
        connection: Connection,
        stream_id: str,
        head: Head | None = None,
        *,
        lock: bool = False,
    ) -> L:
        """The stream as the database has it now (in the caller's transaction), checked as
        the module says; ``head``: its row when the caller has just read and locked it (a
        writer; ``lock`` does both here), so rows beyond it are damage too."""
        locked = lock or head is not None
        if head is None:
            head = self.head(connection, stream_id, lock=lock)
        trusted = self.guard.trusts(connection, head.guard)
        flagged = marked(head)
        if flagged is not None:  # restored since it was marked? Then the mark goes.
            found = stream_problems(connection, stream_id)
            if not found:
                note_damage(stream_id, None)
            flagged = found[0] if found else None
        cached = self._get(stream_id) if trusted and flagged is None else None
        if cached is not None and cached.version == head.version and cached.head == head.hash:
            log = cached  # nobody appended since and nothing could have changed: no reading
        else:
            base = cached if cached is not None and cached.version < head.version else None
            # A reader's head is not locked: rows a writer commits after it are not ours yet.
            log = self._verified(connection, stream_id, base, head, None if locked else head)
        if flagged is not None and log.damage is None:
            log = replace(log, damage=flagged)  # the mark stands until the verifier clears it
        if log.damage is None:
            if trusted:
                self.remember(log)
        else:
            self.forget(stream_id)
            if flagged is None:
                note_damage(stream_id, log.damage)
        return log

    def _verified(
        self,
        connection: Connection,
        stream_id: str,
        base: L | None,
        head: Head,
        until: Head | None,
    ) -> L:
        """``base`` (or nothing) extended by the rows after it, as far as they chain on,
        decode, fold, end at ``head`` and are vouched for; the first fault is ``damage``."""
        store = EventStore(connection)
        after, previous = (base.version, base.head) if base else (0, GENESIS)
        last = None if until is None else until.version
        try:
            rows, known = store.read(stream_id, after=after, until=last), None
        except (ValueError, TypeError):
            rows, known = _unreadable(store, stream_id, after, last, previous)
        fault = next(chain_faults(stream_id, rows, previous, after + 1), None) or known
        if fault is None:
            end, last_hash = (rows[-1].version, rows[-1].hash) if rows else (after, previous)
            fault = head_fault(end, last_hash, (head.version, head.hash))
        good = rows if fault is None else rows[: fault.version - after - 1]
        if base is None:
            if not good:  # not even version 1 can be read: there is nothing to show
                missing = Problem(1, "missing_event", "version 1 is missing")
                raise LogDamaged(self.kind.name, stream_id, fault or missing)
            try:
                base = self.kind.start(connection, stream_id, good[0])
            except Exception as error:  # a first row that cannot be read
                first = Problem(1, "undecodable_event", f"version 1: {error!r}")
                raise LogDamaged(self.kind.name, stream_id, first) from None
            good = good[1:]
        log = fold(self.kind, base, good)
        if log.damage is None and fault is None and log.version > after:
            fault = signature_fault(log)  # new rows: their head must be vouched for
            if fault is not None:  # then the first version whose signature fails is where
                fault = _first_unvouched(log) or fault
                if fault.version <= 1:
                    raise LogDamaged(self.kind.name, stream_id, fault)
                start = self.kind.start(connection, stream_id, log.rows[0])
                cut = fold(self.kind, start, list(log.rows[1 : fault.version - 1]))
                return replace(cut, damage=fault)
        return log if log.damage is not None or fault is None else replace(log, damage=fault)

    def warm(self, stream_id: str) -> tuple[L, str] | None:
        """The stream as this process last verified or appended it, with the guard stamp
        it is trusted under; None when not cached or the guard is not trusted. Unchecked
        against the database: only a write that checks the stored head itself
        (``EventStore.hold_checked``) may build on it."""
        stamp = self.guard.trusted_stamp  # first: a cache cleared for a new stamp stays so
        log = self._get(stream_id)
        return None if stamp is None or log is None else (log, stamp)

    def _get(self, stream_id: str) -> L | None:
        with self._lock:
            return self._logs.get(stream_id)

    def forget(self, stream_id: str) -> None:
        """Drop the stream's entry: its next load reads and checks it all."""
        with self._lock:
            self._logs.pop(stream_id, None)

    def clear(self) -> None:
        with self._lock:
            self._logs.clear()

    def remember(self, log: L) -> None:
        """Keep ``log`` (one this process just appended and committed, or verified)."""
        with self._lock:
            cached = self._logs.get(log.id)
            if cached is None or cached.version <= log.version:
                self._logs[log.id] = log
                self._logs.move_to_end(log.id)
            while len(self._logs) > self.capacity:
                self._logs.popitem(last=False)


def store(connection: Connection) -> EventStore:
    """The event store on ``connection``, signing the heads it appends with the house's key."""
    return EventStore(connection, keyring().signer)
