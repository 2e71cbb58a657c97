"""What the club's home page lists: the latest tables and tournaments.

Straight from the ``streams`` table (newest first, capped) and each table's folded log,
so the list is as fresh as the API; a tournament's table is named as the club calls it,
"Spring cup · round 2 · table 3" (the ``tournament_tables`` projection). A table whose
log cannot be read is listed as such rather than taking the whole page down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask_babel import gettext
from sqlalchemy import Connection, select

from service.application.tables import table_logs
from service.core.refusals import ApplicationError
from service.storage.models import streams, tournament_tables, tournaments
from service.web.api.tables import summary
from service.web.pages.scenes import seat_names

LIMIT = 20


@dataclass(frozen=True, slots=True)
class Seating:
    """Where a tournament seated a table."""

    tournament_id: str
    tournament: str
    round: int
    number: int

    @property
    def label(self) -> str:
        return gettext(
            "%(tournament)s · round %(round)s · table %(num)s",
            tournament=self.tournament,
            round=self.round,
            num=self.number,
        )


@dataclass(frozen=True, slots=True)
class TableRow:
    id: str
    created_at: str
    game: str = ""
    variant: str = ""
    status: str = "unreadable"
    deal: int = 0
    players: tuple[tuple[str, int, int | None], ...] = ()  # name, total, place
    seating: Seating | None = None  # None: a table opened on its own

    @property
    def running(self) -> bool:
        return self.status not in ("finished", "unreadable")

    @property
    def winners(self) -> list[str]:
        return [name for name, _, place in self.players if place == 1]


def _table_row(
    connection: Connection, table_id: str, created_at: str, seating: Seating | None
) -> TableRow:
    try:
        log = table_logs().load(connection, table_id)
    except ApplicationError:
        return TableRow(table_id, created_at, seating=seating)
    shown = summary(log)
    places = shown["ranking"] or [None] * len(shown["totals"])
    names = seat_names(log.opened)
    return TableRow(
        table_id,
        created_at,
        shown["game"],
        shown["variant"],
        shown["status"],
        shown["deal"],
        tuple(zip(names, shown["totals"], places, strict=True)),
        seating,
    )


def recent_tables(connection: Connection, limit: int = LIMIT) -> list[TableRow]:
    """The ``limit`` most recently opened tables, newest first, each with its seating."""
    query = (
        select(
            streams.c.id,
            streams.c.created_at,
            tournament_tables.c.tournament_id,
            tournament_tables.c.round,
            tournament_tables.c.number,
            tournaments.c.name,
        )
        .select_from(
            streams.outerjoin(
                tournament_tables, tournament_tables.c.table_id == streams.c.id
            ).outerjoin(tournaments, tournaments.c.id == tournament_tables.c.tournament_id)
        )
        .where(streams.c.kind == "table")
        .order_by(streams.c.created_at.desc(), streams.c.id)
        .limit(limit)
    )
    rows = []
    for row in connection.execute(query):
        seating = None
        if row.tournament_id is not None:
            name = row.name or _unnamed()
            seating = Seating(row.tournament_id, name, row.round, row.number)
        rows.append(_table_row(connection, row.id, row.created_at, seating))
    return rows


def _unnamed() -> str:
    """A tournament whose row has no name (a stream not, or no longer, readable): the pages
    say so in words, never by its id."""
    return gettext("a tournament")


def seating_of(connection: Connection, table_id: str) -> Seating | None:
    """Where a tournament seated this table, so its pages can say so and link back; ``None``
    for a table opened on its own."""
    row = connection.execute(
        select(
            tournament_tables.c.tournament_id,
            tournament_tables.c.round,
            tournament_tables.c.number,
            tournaments.c.name,
        )
        .select_from(
            tournament_tables.outerjoin(
                tournaments, tournaments.c.id == tournament_tables.c.tournament_id
            )
        )
        .where(tournament_tables.c.table_id == table_id)
    ).first()
    if row is None:
        return None
    name = row.name or _unnamed()
    return Seating(row.tournament_id, name, row.round, row.number)


def recent_tournaments(connection: Connection, limit: int = LIMIT) -> list[dict[str, Any]]:
    """The latest tournament streams, with their projection row where there is one."""
    query = (
        select(
            streams.c.id,
            streams.c.created_at,
            tournaments.c.name,
            tournaments.c.game,
            tournaments.c.status,
            tournaments.c.rounds_played,
        )
        .select_from(streams.outerjoin(tournaments, tournaments.c.id == streams.c.id))
        .where(streams.c.kind == "tournament")
        .order_by(streams.c.created_at.desc(), streams.c.id)
        .limit(limit)
    )
    return [dict(row._mapping) for row in connection.execute(query)]
