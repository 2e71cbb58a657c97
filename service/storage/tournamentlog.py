"""A tournament's stream, decoded and folded: the tournament kind of ``service.storage.streams``.

Every finished table reports to its tournament, so a big tournament's stream (thousands
of events) is read often: it is read, checked and cached exactly as a table's is, and a
damaged one refuses every write (409 ``log_damaged``) the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection

from domain.tournament.events import decode
from domain.tournament.state import Tournament, evolve, fold
from service.core.refusals import NotFound
from service.core.resources import resources
from service.storage.eventstore import StoredEvent
from service.storage.guard import GUARD_KEY, Guard
from service.storage.streams import StreamLog, Streams

KIND = "tournament"
LOGS_KEY = "cardledger.tournamentlogs"


@dataclass(frozen=True, slots=True)
class TournamentLog(StreamLog):
    """A tournament at ``version``: its rows, decoded events and folded state."""

    state: Tournament


class TournamentKind:
    """How a tournament's rows decode and fold."""

    name = KIND

    def start(self, connection: Connection, stream_id: str, first: StoredEvent) -> TournamentLog:
        return opening(stream_id, first)

    def decode(self, log: TournamentLog, row: StoredEvent) -> Any:
        return decode(row.type, row.data)

    def evolve(self, log: TournamentLog, state: Tournament, event: Any) -> Tournament:
        return evolve(state, event)


def opening(tournament_id: str, first: StoredEvent) -> TournamentLog:
    if first.type != "TournamentCreated":
        raise NotFound(f"there is no tournament {tournament_id}")
    created = decode(first.type, first.data)
    return TournamentLog(tournament_id, (first,), (created,), fold([created]))


def fresh(tournament_id: str, rows: Sequence[StoredEvent]) -> TournamentLog:
    """Fold a whole stream (rows already checked, e.g. just written)."""
    if not rows:
        raise NotFound(f"there is no tournament {tournament_id}")
    return _extended(opening(tournament_id, rows[0]), rows[1:])


def _extended(log: TournamentLog, rows: Sequence[StoredEvent]) -> TournamentLog:
    if not rows:
        return log
    decoded = tuple(decode(r.type, r.data) for r in rows)
    state = fold(decoded, log.state)
    return replace(log, rows=log.rows + tuple(rows), events=log.events + decoded, state=state)


class TournamentLogs(Streams[TournamentLog]):
    """The per-process cache of tournament logs."""

    def __init__(self, guard: Guard, capacity: int = 64) -> None:
        super().__init__(TournamentKind(), guard, capacity)


def tournament_logs() -> TournamentLogs:
    """The cached tournament logs of the house the caller runs in."""
    found = resources()
    logs: TournamentLogs | None = found.get(LOGS_KEY)
    if logs is None:
        guard: Guard = found.setdefault(GUARD_KEY, Guard())
        logs = found.setdefault(LOGS_KEY, TournamentLogs(guard))
    return logs
