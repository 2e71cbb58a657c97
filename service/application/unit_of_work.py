"""The one write path: a unit of work owns a write transaction, from the lock of the
stream it writes to what follows its commit. Every command that records events goes
through one, in this order:

1. It opens the write transaction (``service.storage.transactions.writing``), or joins
   the one the caller opened with it: seating a round opens its tables in the
   tournament's transaction, a console form records its one-time key in the table's.
2. ``lock_table``, ``table``, ``tournament``: the stream's row is locked for the
   transaction (one writer per stream at a time, in every process) and the stream is
   loaded through its repository (``service.storage.streams``: chained, signed and
   checked, cached), refused if its log is damaged (409 ``log_damaged``) and, for a table,
   if it was imported (409 ``imported_read_only``). On PostgreSQL an action may instead
   build on the table as this process cached it (``lock_table(unchecked=True)``): its
   append then checks the stored head itself, in the same statement, and writes nothing
   unless the head, damage mark and guard stamp are still those the cache was verified
   with (else ``StaleHead``: the caller loads it locked and decides again).
3. ``answered``, ``answer``: an Idempotency-Key the stream has seen gives the first
   answer and nothing is appended; a new one is recorded with its answer in the same
   transaction (docs/api.md, "Acting at a table").
4. ``append_table``, ``append_tournament``: the events are appended at the version loaded
   (a writer that raced it fails on the store's expected version) and folded once: that
   log is what the command answers from, what the policies and read models see, and what
   the stream's cache keeps, once the transaction has committed.
5. The policies a table's new events call for (``service.application.policies``: a
   finished table tells its tournament and rates its players) run in the same
   transaction, then the stream's read models follow (``service.storage.projections``).
6. Once committed, each table it opened or changed is published
   (``service.application.changes.TableChanged``: what wakes a bot left to move); never
   before the commit, never after a rollback, and never by the command itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from sqlalchemy import Connection, insert, select

from domain.events import TableOpened, event_type, to_data
from domain.table import ORGANISER
from domain.tournament.ratings import PlayerRegistered
from domain.tournament.state import evolve as tournament_evolve
from domain.tournament.state import fold as tournament_fold
from service.application import changes
from service.application.policies import ON_TABLE_EVENT
from service.core.refusals import Conflict, Unprocessable
from service.storage.damage import refuse_if_damaged
from service.storage.db import HELD_WRITE, drop_held_write, send_held_write
from service.storage.eventstore import Head, NewEvent
from service.storage.models import idempotency_keys
from service.storage.projections import players, tables, tournaments
from service.storage.streams import StreamLog, store
from service.storage.tablelog import KIND as TABLE
from service.storage.tablelog import TableLog, table_logs
from service.storage.tournamentlog import KIND as TOURNAMENT
from service.storage.tournamentlog import TournamentLog, tournament_logs
from service.storage.transactions import (
    is_writing,
    remember_when_committed,
    when_committed,
    writing,
)

L = TypeVar("L", bound=StreamLog)


@dataclass(frozen=True, slots=True)
class Accepted:
    """What an accepted command answers: the status and body (also what a retry gets)."""

    status: int
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Request:
    """An Idempotency-Key sent to a stream, and what it stands for (``fingerprint``: a hash
    of the request, so the key replayed with another request is refused)."""

    stream: str
    key: str
    fingerprint: str


@contextmanager
def unit_of_work(
    connection: Connection | None = None, *, publish: bool = True
) -> Iterator[UnitOfWork]:
    """A unit of work in a write transaction of its own, or in the caller's (``connection``:
    one that ``writing`` opened, which then commits it and publishes what it changed).
    ``publish`` off: nothing is told of its changes (the bots' own loop, which plays on)."""
    if connection is not None:
        if not is_writing(connection):
            raise RuntimeError(
                "a unit of work joins only the write transaction it runs in "
                "(service.storage.transactions.writing): its publishing waits for that commit"
            )
        work = UnitOfWork(connection)
        try:
            yield work
            send_held_write(connection)  # the caller's transaction goes on after it
        finally:
            drop_held_write(connection)
        work.publish_when_committed(publish)
        return
    with writing() as connection:
        work = UnitOfWork(connection)
        try:
            yield work
            send_held_write(connection, alone=True)  # all it wrote: BEGIN, COMMIT unneeded
        finally:
            drop_held_write(connection)
        work.publish_when_committed(publish)


class UnitOfWork:
    """One write transaction's work: the streams it locked, what it appended, what it
    changed (see the module)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._locked: dict[str, Head] = {}
        #: Tables taken as cached, unchecked (``lock_table(unchecked=True)``), with the
        #: guard stamp their cache is trusted under.
        self._unchecked: dict[str, tuple[TableLog, str]] = {}
        self._holding: str | None = None  # the stream of the checked append held back
        self._changed: dict[str, TableLog] = {}

    # --- tables --------------------------------------------------------------------------

    def lock_table(self, table_id: str, *, unchecked: bool = False) -> None:
        """Take the table's stream row for this transaction (PostgreSQL: ``FOR UPDATE``;
        SQLite already holds the database's write lock), so a retried request waits for
        the first and then finds its Idempotency-Key, instead of racing it.

        ``unchecked`` (PostgreSQL, a table this process has cached under a whole guard):
        read nothing now and build on the cached log; its append checks the stored head
        in its own statement (``EventStore.hold_checked``), and whatever is refused or
        decided on it holds only once that check passed (``checked``). Not for a request
        with an Idempotency-Key, whose retry must wait for the first on the lock."""
        if unchecked and self.connection.dialect.name == "postgresql":
            warm = table_logs().warm(table_id)
            if warm is not None:
                self._unchecked[table_id] = warm
                return
        self._locked[table_id] = table_logs().head(self.connection, table_id, lock=True)

    def checked(self, table_id: str) -> bool:
        """Whether what this unit has of the table was checked against the stored head: a
        locked load, or an unchecked one whose append the database has taken."""
        if table_id not in self._unchecked:
            return True
        return self._holding == table_id and HELD_WRITE not in self.connection.info

    def table(self, table_id: str) -> TableLog:
        """The table, locked (``lock_table``, if not yet) and checked: refused if its log is
        damaged (nothing may be built on a log that cannot be trusted) or it was imported
        (a record of play elsewhere, never a table to play on here). Taken unchecked
        (``lock_table``), it is the cached log, and its append checks it."""
        warm = self._unchecked.get(table_id)
        if warm is not None:
            log = warm[0]
        else:
            head = self._locked.get(table_id)
            log = table_logs().load(self.connection, table_id, head, lock=head is None)
            refuse_if_damaged(TABLE, log)
        if log.origin is not None:
            raise Conflict(
                f"table {log.id} was imported: it is a record of play on another server and "
                "is read-only here",
                "imported_read_only",
            )
        return log

    def open_table(self, table_id: str, opened: TableOpened, state: Any) -> TableLog:
        """Record a new table's ``TableOpened`` (``state``: the rules' initial state of it,
        already made to check the table) and its read models."""
        rows = store(self.connection).create(
            table_id, TABLE, [NewEvent("TableOpened", to_data(opened), actor=ORGANISER)]
        )
        log = TableLog(table_id, tuple(rows), (opened,), state)
        remember_when_committed(table_logs(), log)
        tables.project_opened_table(self.connection, log)
        self._changed[table_id] = log
        return log

    def append_table(
        self, log: TableLog, events: Sequence[Any], rows: Sequence[NewEvent]
    ) -> TableLog:
        """Append ``events`` (stored as ``rows``) after ``log`` and fold them once; then the
        policies they call for and the table's read models (see the module)."""
        after = self._append(log, events, rows, log.rules.evolve)
        remember_when_committed(table_logs(), after)
        for event in events:
            for policy in ON_TABLE_EVENT.get(type(event), ()):
                policy(self, after, event)
        tables.project_appended(self.connection, log, after)
        self._changed[log.id] = after
        return after

    def rewritten_table(self, table_id: str) -> TableLog:
        """A table whose rows were just written other than by an append (imported, or
        restored from an export): read back whole and checked, and its summary kept (no
        bot moves at a record)."""
        logs = table_logs()
        logs.forget(table_id)
        log = logs.load(self.connection, table_id, lock=True)
        tables.project_table(self.connection, log)
        return log

    # --- idempotency ---------------------------------------------------------------------

    def answered(self, request: Request) -> Accepted | None:
        """The first answer to ``request``'s key on its stream, or None. Its stream must be
        locked already, so a retry racing the first request waits for it. The same key
        with another request is 422 ``idempotency_key_reused``."""
        if request.stream not in self._locked:
            raise RuntimeError(f"stream {request.stream} is not locked: lock it first")
        keys = idempotency_keys.c
        row = self.connection.execute(
            select(idempotency_keys).where(keys.stream == request.stream, keys.key == request.key)
        ).first()
        if row is None:
            return None
        if row.request_hash != request.fingerprint:
            raise Unprocessable(
                "this Idempotency-Key was used with a different request", "idempotency_key_reused"
            )
        return Accepted(row.status, json.loads(row.response))

    def answer(self, request: Request | None, accepted: Accepted) -> Accepted:
        """``accepted``, recorded as the answer to ``request`` (if any) for its retries."""
        if request is not None:
            self.connection.execute(
                insert(idempotency_keys).values(
                    stream=request.stream,
                    key=request.key,
                    request_hash=request.fingerprint,
                    status=accepted.status,
                    response=json.dumps(accepted.body),
                )
            )
        return accepted

    # --- tournaments ---------------------------------------------------------------------

    def tournament(self, tournament_id: str) -> TournamentLog:
        """The tournament, its stream row held for this transaction (every writer takes
        it), refused if its log is damaged (409 ``log_damaged``)."""
        log = tournament_logs().load(self.connection, tournament_id, lock=True)
        refuse_if_damaged(TOURNAMENT, log)
        return log

    def start_tournament(self, tournament_id: str, created: Any) -> TournamentLog:
        """Record a new tournament's ``TournamentCreated`` and its read models."""
        rows = store(self.connection).create(tournament_id, TOURNAMENT, [_plain(created)])
        log = TournamentLog(tournament_id, tuple(rows), (created,), tournament_fold([created]))
        remember_when_committed(tournament_logs(), log)
        tournaments.project_appended(self.connection, log, [created])
        return log

    def append_tournament(self, log: TournamentLog, events: Sequence[Any]) -> TournamentLog:
        """Append ``events`` after ``log``, fold them once and keep the tournament's read
        models (the tables of a round seated, its row, its standings); no events: ``log``."""
        if not events:
            return log
        after = self._append(log, events, [_plain(e) for e in events], tournament_evolve)
        remember_when_committed(tournament_logs(), after)
        tournaments.project_appended(self.connection, after, events)
        return after

    # --- players -------------------------------------------------------------------------

    def register_player(self, player_id: str, registered: PlayerRegistered) -> None:
        """Record a new player's stream and row (at the starting rating)."""
        rows = store(self.connection).create(player_id, players.KIND, [_plain(registered)])
        players.project_player(self.connection, player_id, registered.name, rows[0].recorded_at)

    # --- the append and what follows the commit ----------------------------------------

    def _append(
        self,
        log: L,
        events: Sequence[Any],
        rows: Sequence[NewEvent],
        evolve: Callable[[Any, Any], Any],
    ) -> L:
        """``log`` with ``events`` appended as ``rows`` (at ``log``'s version and head) and
        folded into its state, once. A table taken unchecked is appended by a checked
        append, held back until the next statement or the end of the unit."""
        warm = self._unchecked.get(log.id)
        if warm is not None:
            if warm[0] is not log:
                raise RuntimeError(f"stream {log.id} was taken unchecked at another version")
            stored = store(self.connection).hold_checked(
                log.id, log.version, log.head, warm[1], rows
            )
            self._holding = log.id
        else:
            stored = store(self.connection).append(
                log.id, log.version, rows, previous_hash=log.head
            )
        state = log.state
        for event in events:
            state = evolve(state, event)
        return replace(
            log, rows=log.rows + tuple(stored), events=log.events + tuple(events), state=state
        )

    def publish_when_committed(self, publish: bool) -> None:
        """Have each table this unit opened or changed published once the transaction
        commits (``publish`` off: none)."""
        changed = tuple(self._changed.values())
        self._changed.clear()
        if publish and changed:
            when_committed(lambda: _publish(changed))


def _publish(changed: Sequence[TableLog]) -> None:
    for log in changed:
        changes.publish(changes.TableChanged(log))


def _plain(event: Any) -> NewEvent:
    """A tournament's or player's event as a row: its type and data, at schema 1, by nobody
    in particular (a table's rows are ``service.application.tables.recorded``)."""
    return NewEvent(event_type(event), to_data(event))
