"""Players: people known across tournaments and tables, each with an OpenSkill rating.

A player is a stream (``kind="player"``, one ``PlayerRegistered``); the ``players`` row
is its projection, with the rating the ratings ledger gives it
(``service.storage.projections.players``).

Names that meet may not look alike (``domain.names``): registered players among
themselves, held by the unique skeleton of each name (``player_skeletons``), and the
people at one table (``check_seat_players``).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, insert, select
from sqlalchemy.exc import IntegrityError

from domain.names import NameRefused, confusable, lookalike, skeleton
from domain.table import SeatSpec
from domain.tournament.ratings import PlayerRegistered, Rating
from service.application.unit_of_work import unit_of_work
from service.core.refusals import NotFound, Unprocessable
from service.storage.db import get_database
from service.storage.models import player_skeletons, players


def register_player(name: str) -> dict[str, Any]:
    """Record a new player; their rating starts at OpenSkill's default. A name that looks
    like a registered player's is refused (``confusable_name``), also when both ask at once:
    the second waits on the first's skeleton row, then finds it."""
    player_id = uuid.uuid4().hex
    registered = PlayerRegistered(" ".join(name.split()))
    held = _skeleton_key(registered.name)
    try:
        with unit_of_work() as work:
            connection = work.connection
            _refuse_lookalike(connection, registered.name, held)
            work.register_player(player_id, registered)
            try:
                connection.execute(
                    insert(player_skeletons).values(skeleton=held, player_id=player_id)
                )
            except IntegrityError:  # a look-alike registered meanwhile (PostgreSQL)
                raise _Taken() from None
    except _Taken:
        with get_database().reading() as connection:
            _refuse_lookalike(connection, registered.name, held)
        raise Unprocessable(
            f"{registered.name!r} looks like a name registered at the same moment",
            "confusable_name",
        ) from None
    return read_player(player_id)


class _Taken(Exception):
    """The name's skeleton was taken by a registration that committed first."""


def _skeleton_key(name: str) -> str:
    return hashlib.sha256(skeleton(name).encode("utf-8")).hexdigest()


def _refuse_lookalike(connection: Connection, name: str, held: str) -> None:
    """``confusable_name`` when a registered player's name has this skeleton."""
    other = connection.scalar(
        select(players.c.name)
        .join(player_skeletons, player_skeletons.c.player_id == players.c.id)
        .where(player_skeletons.c.skeleton == held)
    )
    if other is not None:
        raise _refusal(confusable(name, other, "among the registered players"))


def _refusal(refused: NameRefused) -> Unprocessable:
    return Unprocessable(refused.message, refused.code)


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


def check_seat_players(connection: Connection, seats: Iterable[SeatSpec]) -> tuple[SeatSpec, ...]:
    """A seat naming a ``player_id`` must name a registered player, once per table; and
    no two people at the table may have names that look alike (``confusable_name``), a
    player counted under the name the table shows (the seat's, else the player's).

    Returns the seats as the table records them: a player's seat given without a name
    takes the player's registered name (its pages would else say "Seat 1")."""
    seats = list(seats)
    ids = [s.player_id for s in seats if s.player_id is not None]
    if len(set(ids)) < len(ids):
        raise Unprocessable("a player takes one seat at a table", "duplicate_player")
    known = player_names(connection, ids)
    missing = set(ids) - set(known)
    if missing:
        raise Unprocessable(f"there is no player {sorted(missing)[0]}", "unknown_player")
    shown: list[tuple[int, str]] = []
    for n, seat in enumerate(seats):
        name = seat.name or (known.get(seat.player_id) if seat.player_id else None)
        if name is None:
            continue
        other = lookalike(name, [taken for _, taken in shown])
        if other is not None:
            earlier = next(s for s, taken in shown if taken == other)
            raise _refusal(confusable(name, other, f"at this table (seat {earlier}), seat {n}"))
        shown.append((n, name))
    return tuple(
        replace(seat, name=known[seat.player_id])
        if seat.player_id is not None and not seat.name
        else seat
        for seat in seats
    )
