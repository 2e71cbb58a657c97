"""A tournament's read models: its row (``tournaments``: what the lists show), which
tournament and round each of its tables belongs to (``tournament_tables``), and its
standings (``standings``).

The standings rows are always recomputed whole from the tournament's state and only the
rows that changed are written, so the incremental and the rebuilt rows cannot differ.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update

from domain.tournament.decide import standings_of
from domain.tournament.events import RoundSeated
from domain.tournament.state import Tournament
from service.storage.models import standings, tournament_tables, tournaments
from service.storage.tournamentlog import TournamentLog


def status(state: Tournament) -> str:
    """``finished``, ``playing`` (a round has tables still playing) or ``open``."""
    return "finished" if state.finished else "playing" if state.in_progress else "open"


def project_appended(connection: Connection, log: TournamentLog, events: Sequence[Any]) -> None:
    """The read models of a tournament whose ``events`` were just appended (``log``: after
    them): the tables of each round seated, then its row and standings."""
    project_tables(connection, log, [e.round for e in events if type(e) is RoundSeated])
    project_tournament(connection, log)


def tournament_of(connection: Connection, table_id: str) -> str | None:
    """The tournament that seated ``table_id``; None for a table on its own."""
    found: str | None = connection.scalar(
        select(tournament_tables.c.tournament_id).where(tournament_tables.c.table_id == table_id)
    )
    return found


_FIELDS = (
    "position",
    "rank",
    "name",
    "player_id",
    "withdrawn",
    "match_points",
    "score",
    "tables",
    "byes",
    "buchholz",
    "head_to_head",
)
_UPDATE_ROW = (
    update(standings)
    .where(
        standings.c.tournament_id == bindparam("b_tournament"),
        standings.c.entry == bindparam("b_entry"),
    )
    .values({name: bindparam(f"b_{name}") for name in _FIELDS})
)


def _standing_values(state: Tournament) -> dict[int, dict[str, Any]]:
    return {
        row.entry: {
            "position": position,
            "rank": row.rank,
            "name": row.name,
            "player_id": row.player_id,
            "withdrawn": row.withdrawn,
            "match_points": row.match_points,
            "score": row.score,
            "tables": row.tables,
            "byes": row.byes,
            "buchholz": row.buchholz,
            "head_to_head": row.head_to_head,
        }
        for position, row in enumerate(standings_of(state), start=1)
    }


def project_tournament(connection: Connection, log: TournamentLog) -> None:
    """Bring the tournament's row and its standings up to date with ``log``."""
    state = log.state
    summary = {
        "name": state.config.name,
        "game": state.config.game,
        "status": status(state),
        "rounds_played": state.rounds_played,
        "version": log.version,
    }
    moved = connection.execute(
        update(tournaments).where(tournaments.c.id == log.id).values(summary)
    )
    if moved.rowcount == 0:
        connection.execute(
            insert(tournaments).values(id=log.id, created_at=log.created_at, **summary)
        )
    wanted = _standing_values(state)
    have = {
        row.entry: dict(row._mapping)
        for row in connection.execute(
            select(standings.c.entry, *(standings.c[n] for n in _FIELDS))
            .where(standings.c.tournament_id == log.id)
            .with_for_update()  # waits for a rebuild in progress, then reads its rows
        )
    }
    new = [
        {"tournament_id": log.id, "entry": entry, **values}
        for entry, values in wanted.items()
        if entry not in have
    ]
    changed = [
        {"b_tournament": log.id, "b_entry": entry, **{f"b_{k}": v for k, v in values.items()}}
        for entry, values in wanted.items()
        if entry in have and any(have[entry][k] != v for k, v in values.items())
    ]
    if new:
        connection.execute(insert(standings), new)
    if changed:
        connection.execute(_UPDATE_ROW, changed)


def project_tables(connection: Connection, log: TournamentLog, rounds: Iterable[int]) -> None:
    """Which tournament and round each table of ``rounds`` belongs to (``tournament_of``)."""
    rows = [
        {"table_id": t.table, "tournament_id": log.id, "round": t.round, "number": t.number}
        for number in rounds
        for t in log.state.rounds[number - 1].tables
    ]
    if rows:
        connection.execute(insert(tournament_tables), rows)
