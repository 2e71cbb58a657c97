"""Every projection deleted and recomputed from the streams alone (the command
``flask --app service cardledger rebuild-projections``): a projection is a cache of a fold,
so the rebuilt rows equal the ones the writers kept."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, delete, insert, select, text

from domain.events import from_data
from domain.tournament.ratings import PlayerRegistered
from service.core.refusals import ApplicationError
from service.storage.eventstore import EventStore
from service.storage.guard import Guard
from service.storage.models import (
    bot_turns,
    players,
    standings,
    streams,
    table_summaries,
    tournament_tables,
    tournaments,
)
from service.storage.projections.players import project_player, replay_ratings
from service.storage.projections.tables import project_table
from service.storage.projections.tournaments import project_tables, project_tournament
from service.storage.tablelog import TableLogs, bot_to_move
from service.storage.tournamentlog import fresh

PROJECTIONS = (standings, tournament_tables, tournaments, players, bot_turns, table_summaries)


def rebuild_projections(connection: Connection) -> dict[str, int]:
    """Delete every projection row and recompute it from the streams; what was rebuilt.

    On PostgreSQL the projection tables are locked for the transaction, so writers wait
    and then continue from the rebuilt rows.
    """
    if connection.dialect.name == "postgresql":
        names = ", ".join(t.name for t in PROJECTIONS)
        connection.execute(text(f"LOCK TABLE {names} IN EXCLUSIVE MODE"))
    for table in PROJECTIONS:
        connection.execute(delete(table))
    store = EventStore(connection)
    kinds = connection.execute(select(streams.c.id, streams.c.kind).order_by(streams.c.id)).all()
    counts = {"players": 0, "tournaments": 0, "rated_tables": 0}
    for stream_id, kind in kinds:
        if kind == "player":
            first = store.read(stream_id, limit=1)[0]
            name = from_data(PlayerRegistered, first.data).name
            project_player(connection, stream_id, name, first.recorded_at)
            counts["players"] += 1
    for stream_id, kind in kinds:
        if kind == "tournament":
            log = fresh(stream_id, store.read(stream_id))
            project_tournament(connection, log)
            project_tables(connection, log, range(1, len(log.state.rounds) + 1))
            counts["tournaments"] += 1
    counts["rated_tables"] = replay_ratings(connection, store)
    counts["bot_turns"], counts["tables"] = _replay_tables(connection, kinds)
    return counts


def _replay_tables(connection: Connection, kinds: Sequence[Any]) -> tuple[int, int]:
    """Fold every table: its summary row, and whether a bot must move at it (as far as
    its log can be read: a table whose opening cannot be is left out)."""
    logs = TableLogs(Guard())  # this rebuild's own: no other process's cache in the way
    waiting, summed = [], 0
    for stream_id, kind in kinds:
        if kind != "table":
            continue
        try:
            log = logs.load(connection, stream_id)
        except ApplicationError:
            continue
        project_table(connection, log)
        summed += 1
        if bot_to_move(log) is not None:
            waiting.append({"table_id": stream_id})
    if waiting:
        connection.execute(insert(bot_turns), waiting)
    return len(waiting), summed
