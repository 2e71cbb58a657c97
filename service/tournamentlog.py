"""A tournament's stream, decoded and folded: what ``tablelog`` is for tables.

Every finished table reports to its tournament, so a big tournament's stream (thousands
of events) is read often: each process keeps the last fold of each tournament and
extends it with the events recorded since. A cached fold is used only if its head hash
is the stream's hash at that version, so a fold made inside a transaction that later
rolled back can never be mistaken for the truth.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection

from domain.events import event_type, to_data
from domain.tournament.events import decode
from domain.tournament.state import Tournament, fold
from service.eventstore import EventStore, NewEvent, StoredEvent, StreamNotFound
from service.failures import NotFound
from service.house import resources

if TYPE_CHECKING:
    from flask import Flask

KIND = "tournament"
LOGS_KEY = "cardledger.tournamentlogs"


@dataclass(frozen=True, slots=True)
class TournamentLog:
    """A tournament at ``version``: its folded state, head hash and creation time."""

    id: str
    version: int
    head: str
    state: Tournament
    created_at: str

    def extended(self, rows: Sequence[StoredEvent]) -> TournamentLog:
        if not rows:
            return self
        state = fold((decode(r.type, r.data) for r in rows), self.state)
        return TournamentLog(self.id, rows[-1].version, rows[-1].hash, state, self.created_at)


def fresh(tournament_id: str, rows: Sequence[StoredEvent]) -> TournamentLog:
    """Fold a whole stream; anything but a tournament's is not found."""
    if not rows or rows[0].type != "TournamentCreated":
        raise NotFound(f"there is no tournament {tournament_id}")
    state = fold(decode(r.type, r.data) for r in rows)
    return TournamentLog(tournament_id, rows[-1].version, rows[-1].hash, state, rows[0].recorded_at)


class TournamentLogs:
    """The per-process cache of tournament folds (bounded, least recently used out)."""

    def __init__(self, capacity: int = 64) -> None:
        self.capacity = capacity
        self._logs: OrderedDict[str, TournamentLog] = OrderedDict()
        self._lock = threading.Lock()

    def load(
        self, connection: Connection, tournament_id: str, *, lock: bool = False
    ) -> TournamentLog:
        """The tournament as the database has it now; ``lock``: hold its stream row until
        the transaction ends (every writer of a tournament takes it)."""
        store = EventStore(connection)
        try:
            version, head = store.lock(tournament_id) if lock else store.head(tournament_id)
        except StreamNotFound:
            raise NotFound(f"there is no tournament {tournament_id}") from None
        with self._lock:
            cached = self._logs.get(tournament_id)
        log: TournamentLog | None = None
        if cached is not None and (cached.version, cached.head) == (version, head):
            log = cached
        elif cached is not None and cached.version < version:
            rows = store.read(tournament_id, after=cached.version - 1)
            if rows and rows[0].hash == cached.head:  # the cache is a true prefix
                log = cached.extended(rows[1:])
        if log is None:
            log = fresh(tournament_id, store.read(tournament_id))
        self.remember(log)
        return log

    def remember(self, log: TournamentLog) -> None:
        with self._lock:
            self._logs[log.id] = log
            self._logs.move_to_end(log.id)
            while len(self._logs) > self.capacity:
                self._logs.popitem(last=False)


def tournament_logs(app: Flask | None = None) -> TournamentLogs:
    """The cached tournament logs of ``app``, or of the house the caller runs in."""
    found = app.extensions if app is not None else resources()
    logs: TournamentLogs = found.setdefault(LOGS_KEY, TournamentLogs())
    return logs


def append(connection: Connection, log: TournamentLog, events: Sequence[Any]) -> TournamentLog:
    """Append ``events`` after ``log`` (whose row the caller locked) and fold them in."""
    if not events:
        return log
    rows = EventStore(connection).append(
        log.id,
        log.version,
        [NewEvent(event_type(e), to_data(e)) for e in events],
        previous_hash=log.head,
    )
    after = log.extended(rows)
    tournament_logs().remember(after)
    return after


def start(connection: Connection, tournament_id: str, events: Sequence[Any]) -> TournamentLog:
    """A new tournament's stream."""
    rows = EventStore(connection).create(
        tournament_id, KIND, [NewEvent(event_type(e), to_data(e)) for e in events]
    )
    log = fresh(tournament_id, rows)
    tournament_logs().remember(log)
    return log
