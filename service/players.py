"""Players: people known across tournaments and tables, each with an OpenSkill rating.

A player is a stream (``kind="player"``, one ``PlayerRegistered``); the ``players`` row
is its projection, with the rating the ratings ledger gives it (``service.projections``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, select

from domain.events import event_type, to_data
from domain.table import SeatSpec
from domain.tournament.ratings import PlayerRegistered, Rating
from service.db import get_database
from service.eventstore import EventStore, NewEvent
from service.failures import NotFound, Unprocessable
from service.models import players
from service.projections import project_player

KIND = "player"


def register_player(name: str) -> dict[str, Any]:
    """Record a new player; their rating starts at OpenSkill's default."""
    player_id = uuid.uuid4().hex
    registered = PlayerRegistered(" ".join(name.split()))
    with get_database().writing() as connection:
        rows = EventStore(connection).create(
            player_id, KIND, [NewEvent(event_type(registered), to_data(registered))]
        )
        project_player(connection, player_id, registered.name, rows[0].recorded_at)
    return read_player(player_id)


def shown(row: Any) -> dict[str, Any]:
    rating = Rating(row.mu, row.sigma)
    return {
        "id": row.id,
        "name": row.name,
        "created_at": row.created_at,
        "rating": {
            "mu": rating.mu,
            "sigma": rating.sigma,
            "ordinal": rating.ordinal,
            "tables": row.rated_tables,
        },
    }


def read_player(player_id: str) -> dict[str, Any]:
    with get_database().reading() as connection:
        row = connection.execute(select(players).where(players.c.id == player_id)).first()
    if row is None:
        raise NotFound(f"there is no player {player_id}")
    return shown(row)


def ladder() -> list[dict[str, Any]]:
    """Rated players, best ordinal (mu - 3 sigma) first; equal ordinals share a rank."""
    with get_database().reading() as connection:
        rows = list(connection.execute(select(players).where(players.c.rated_tables > 0)))
    rows.sort(key=lambda r: (-Rating(r.mu, r.sigma).ordinal, r.name.casefold(), r.id))
    out: list[dict[str, Any]] = []
    for i, row in enumerate(rows):
        player = shown(row)
        tied = out and out[-1]["rating"]["ordinal"] == player["rating"]["ordinal"]
        out.append({"rank": out[-1]["rank"] if tied else i + 1, **player})
    return out


def player_names(connection: Connection, ids: Iterable[str]) -> dict[str, str]:
    """The names of those of ``ids`` that are registered players."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    rows = connection.execute(select(players.c.id, players.c.name).where(players.c.id.in_(wanted)))
    return {row.id: row.name for row in rows}


def check_seat_players(connection: Connection, seats: Iterable[SeatSpec]) -> None:
    """A seat naming a ``player_id`` must name a registered player, once per table."""
    ids = [s.player_id for s in seats if s.player_id is not None]
    if not ids:
        return
    if len(set(ids)) < len(ids):
        raise Unprocessable("a player takes one seat at a table", "duplicate_player")
    missing = set(ids) - set(player_names(connection, ids))
    if missing:
        raise Unprocessable(f"there is no player {sorted(missing)[0]}", "unknown_player")
