"""The lists: tables, tournaments and players, newest first, a page at a time.

Read from the projections (``table_summaries``, ``tournaments``, ``players``) and each
stream's first event, never by folding a table: a page costs one query whatever the
club has recorded. The cursor is opaque to clients: the last item's creation time and
id, so a page goes on exactly where the one before stopped, even while new items arrive.
Items show only public information (a table's seed and salt once its match ended).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, and_, func, or_, select

from domain.events import TableOpened, from_data
from domain.shuffle import seed_commitment
from domain.tournament.events import TournamentCreated, decode
from domain.tournament.standings import bye_units, shown
from service.commands import commitment
from service.failures import Unprocessable
from service.models import (
    events,
    players,
    standings,
    streams,
    table_imports,
    table_summaries,
    tournament_tables,
    tournaments,
)
from service.players import shown as player_shown

DEFAULT_LIMIT = 50
MAX_LIMIT = 100
TABLE_STATUSES = ("waiting_for_deal", "in_deal", "finished")


def encode_cursor(created_at: str, item_id: str) -> str:
    """The cursor after an item: opaque, URL-safe."""
    raw = json.dumps([created_at, item_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, str]:
    """The item a cursor stands after; anything this module did not write is refused."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created_at, item_id = json.loads(raw)
    except (binascii.Error, ValueError, TypeError):
        raise _invalid("after", "not a cursor a list gave as its `next`") from None
    if not (isinstance(created_at, str) and isinstance(item_id, str)):
        raise _invalid("after", "not a cursor a list gave as its `next`")
    return created_at, item_id


def _invalid(field: str, message: str) -> Unprocessable:
    return Unprocessable(
        f"{field}: {message}", "validation_error", extra={"errors": {field: [message]}}
    )


def _check_limit(limit: int) -> None:
    if type(limit) is not int or not 1 <= limit <= MAX_LIMIT:
        raise _invalid("limit", f"between 1 and {MAX_LIMIT}")


def _page(
    connection: Connection,
    query: Select[Any],
    created: Any,
    key: Any,
    limit: int,
    after: str | None,
) -> tuple[list[Any], str | None]:
    """Run ``query`` newest first (``created``, then ``key``, both descending) from after
    the cursor; the rows of this page and the cursor of the next (None: the last page)."""
    _check_limit(limit)
    if after is not None:
        at, last = decode_cursor(after)
        query = query.where(or_(created < at, and_(created == at, key < last)))
    rows = connection.execute(query.order_by(created.desc(), key.desc()).limit(limit + 1)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    following = encode_cursor(rows[-1].created_at, rows[-1].item_id) if more else None
    return rows, following


# --- tables ----------------------------------------------------------------------------------


def list_tables(
    connection: Connection,
    *,
    limit: int = DEFAULT_LIMIT,
    after: str | None = None,
    status: str | None = None,
    tournament: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """Tables newest first, as ``GET /tables/{id}`` summarises each (without ``damaged``:
    only a replay can tell, which ``GET /tables/{id}`` does); ``status``, ``tournament``:
    only those tables."""
    if status is not None and status not in TABLE_STATUSES:
        raise _invalid("status", f"one of {', '.join(TABLE_STATUSES)}")
    summary = table_summaries.c
    query = (
        select(
            summary.table_id.label("item_id"),
            summary.created_at,
            summary.status,
            summary.deal,
            summary.totals,
            summary.ranking,
            streams.c.version,
            events.c.data.label("opened"),
            table_imports.c.signed,
            table_imports.c.key_id,
            table_imports.c.imported_at,
        )
        .join(streams, streams.c.id == summary.table_id)
        .join(events, and_(events.c.stream == summary.table_id, events.c.version == 1))
        .outerjoin(table_imports, table_imports.c.table_id == summary.table_id)
    )
    if status is not None:
        query = query.where(summary.status == status)
    if tournament is not None:
        query = query.join(
            tournament_tables,
            and_(
                tournament_tables.c.table_id == summary.table_id,
                tournament_tables.c.tournament_id == tournament,
            ),
        )
    rows, following = _page(connection, query, summary.created_at, summary.table_id, limit, after)
    return [table_item(row) for row in rows], following


def table_item(row: Any) -> dict[str, Any]:
    """A table's public summary from its summary row and its ``TableOpened``: the fields
    of ``GET /tables/{id}``, the seed and salt only once the match ended."""
    opened = from_data(TableOpened, json.loads(row.opened))
    finished = row.status == "finished"
    imported = None
    if row.signed is not None:
        imported = {"signed": row.signed, "key_id": row.key_id, "at": row.imported_at}
    return {
        "id": row.item_id,
        "game": opened.game,
        "variant": opened.variant,
        "status": row.status,
        "version": row.version,
        "deal": row.deal,
        "seats": [{"seat": s, **seat} for s, seat in enumerate(opened.seats)],
        "totals": json.loads(row.totals),
        "ranking": None if row.ranking is None else json.loads(row.ranking),
        "target_score": opened.target_score,
        "max_deals": opened.max_deals,
        "seed_commitment": commitment(opened),
        "seed": opened.seed if finished else None,
        "salt": opened.salt if finished else None,
        "created_at": row.created_at,
        "imported": imported,
    }


# --- tournaments -----------------------------------------------------------------------------


def list_tournaments(
    connection: Connection, *, limit: int = DEFAULT_LIMIT, after: str | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """Tournaments newest first: the settings and progress ``GET /tournaments/{id}``
    gives, with ``entry_count`` in place of its entries and seatings."""
    row_of = tournaments.c
    entered = (
        select(standings.c.tournament_id, func.count().label("entry_count"))
        .where(standings.c.withdrawn.is_(False))
        .group_by(standings.c.tournament_id)
        .subquery()
    )
    query = (
        select(
            row_of.id.label("item_id"),
            row_of.created_at,
            row_of.status,
            row_of.rounds_played,
            row_of.version,
            events.c.type.label("created_type"),
            events.c.data.label("created"),
            func.coalesce(entered.c.entry_count, 0).label("entry_count"),
        )
        .join(events, and_(events.c.stream == row_of.id, events.c.version == 1))
        .outerjoin(entered, entered.c.tournament_id == row_of.id)
    )
    rows, following = _page(connection, query, row_of.created_at, row_of.id, limit, after)
    return [tournament_item(row) for row in rows], following


def tournament_item(row: Any) -> dict[str, Any]:
    """A tournament's settings and progress; the seed and salt only once finished."""
    config: TournamentCreated = decode(row.created_type, json.loads(row.created))
    finished = row.status == "finished"
    return {
        "id": row.item_id,
        "name": config.name,
        "game": config.game,
        "variant": config.variant,
        "rules": dict(config.rules),
        "table_size": config.table_size,
        "target_score": config.target_score,
        "max_deals": config.max_deals,
        "rounds": config.rounds,
        "pairing": config.pairing,
        "fill_with_bots": config.fill_with_bots,
        "bye_points": shown(bye_units(config.table_size, config.match_points, config.bye_points)),
        "match_points": list(config.match_points) if config.match_points else None,
        "status": row.status,
        "rounds_played": row.rounds_played,
        "version": row.version,
        "seed_commitment": seed_commitment(config.seed, config.salt),
        "seed": config.seed if finished else None,
        "salt": config.salt if finished else None,
        "created_at": row.created_at,
        "entry_count": row.entry_count,
    }


# --- players ---------------------------------------------------------------------------------


def list_players(
    connection: Connection, *, limit: int = DEFAULT_LIMIT, after: str | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """Registered players newest first, as ``GET /players/{id}`` shows each (with rating)."""
    query = select(players, players.c.id.label("item_id"))
    rows, following = _page(connection, query, players.c.created_at, players.c.id, limit, after)
    return [player_shown(row) for row in rows], following


__all__: Sequence[str] = (
    "decode_cursor",
    "encode_cursor",
    "list_players",
    "list_tables",
    "list_tournaments",
)
