"""Policies: how one stream answers what another records, in the same transaction, so
neither ever lags behind the other.

The unit of work (``service.application.unit_of_work``) runs, for each event it appends
to a table, the policies ``ON_TABLE_EVENT`` lists for its type, in order, before it
updates the table's own read models. A policy writes through the unit of work it is
given (``Work``): the streams it touches are locked, checked and appended to like any
command's, after the table's (tables, then tournaments, then the ratings ledger, then
players: one order for every writer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from sqlalchemy import Connection

from domain.events import MatchEnded
from domain.tournament.decide import FinishTable, decide
from domain.tournament.ratings import TableRated, rated_places
from service.storage.projections import players
from service.storage.projections.tournaments import tournament_of
from service.storage.tablelog import TableLog
from service.storage.tournamentlog import TournamentLog


class Work(Protocol):
    """What a policy needs of the unit of work it runs in."""

    connection: Connection

    def tournament(self, tournament_id: str) -> TournamentLog: ...

    def append_tournament(self, log: TournamentLog, events: Sequence[Any]) -> TournamentLog: ...


def finished_table_tells_its_tournament(work: Work, table: TableLog, ended: MatchEnded) -> None:
    """A table of a tournament reports its end (``FinishTable``), so the standings never
    lag behind the tables and the last table of the last planned round finishes the
    tournament (docs/rules/common.md, "Tournaments"). A tournament whose log is damaged
    refuses it, and with it the table's last move (409 ``log_damaged``)."""
    owner = tournament_of(work.connection, table.id)
    if owner is None:
        return
    log = work.tournament(owner)
    work.append_tournament(log, decide(log.state, FinishTable(table.id, ended.totals,
                                                              ended.ranking)))  # fmt: skip


def finished_table_rates_its_players(work: Work, table: TableLog, ended: MatchEnded) -> None:
    """A table that seated two registered players or more updates their ratings (docs/api.md,
    "Other routes": players rated across tournaments), placed among themselves by their
    totals; guests, bots and Lopaka take no part (``domain.tournament.ratings``)."""
    seats = [None if seat.get("bot") else seat.get("player_id") for seat in table.opened.seats]
    if len({seat for seat in seats if seat}) < 2:
        return
    head = players.lock_ledger(work.connection)  # first: one rating at a time, in order
    known = players.rated_players(work.connection, (seat for seat in seats if seat))
    ids, places = rated_places([s if s in known else None for s in seats], ended.totals,
                               ended.ranking)  # fmt: skip
    if ids:
        players.record_rating(work.connection, head, TableRated(table.id, ids, places), known)


TablePolicy = Callable[[Work, TableLog, Any], None]

#: What follows, in the same transaction and in this order, each type of event appended
#: to a table.
ON_TABLE_EVENT: Mapping[type, tuple[TablePolicy, ...]] = {
    MatchEnded: (finished_table_tells_its_tournament, finished_table_rates_its_players),
}
