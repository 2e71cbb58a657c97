"""The lists: tables, tournaments and players, newest first, a page at a time.

Read from the projections (``table_summaries``, ``tournaments``, ``players``) and each
stream's first event, never by folding a table: a page costs one query whatever the
club has recorded. The cursor is opaque to clients: it names the last item given, and the
next page goes on from that item's place (creation time, then id), so paging neither
skips nor repeats an item while new ones arrive.
Items show only public information (a table's seed and salt once its match ended).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, Select, and_, func, or_, select

from domain.events import TableOpened, from_data
from domain.shuffle import seed_commitment
from domain.tournament.events import TournamentCreated, decode
from domain.tournament.standings import bye_units, shown
from service.application.players import shown as player_shown
from service.application.tables import commitment
from service.core.refusals import NotFound, Unprocessable
from service.storage.models import (
    events,
    players,
    standings,
    streams,
    table_imports,
    table_summaries,
    tournament_tables,
    tournaments,
)

DEFAULT_LIMIT = 50
MAX_LIMIT = 100
TABLE_STATUSES = ("waiting_for_deal", "in_deal", "finished")


#: A cursor: the last item's id (16 bytes) in URL-safe base64, unpadded. Every string of
#: this shape decodes to some id, so a cursor is either the position of an item or names
#: none (404), never unreadable.
CURSOR_PATTERN = "^[A-Za-z0-9_-]{22}$"


def encode_cursor(item_id: str) -> str:
    """The cursor after an item: opaque, URL-safe."""
    return base64.urlsafe_b64encode(bytes.fromhex(item_id)).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    """The id of the item a cursor stands after; a cursor of another shape is refused."""
    if not re.fullmatch(CURSOR_PATTERN, cursor):
        raise _invalid("after", "not a cursor a list gave as its `next`")
    return base64.urlsafe_b64decode(cursor + "==").hex()


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
    the cursor's item (which may since have left a filtered list: its place stays); the
    rows of this page and the cursor of the next (None: the last page)."""
    _check_limit(limit)
    if after is not None:
        last = decode_cursor(after)
        at = connection.scalar(select(created).where(key == last))
        if at is None:
            raise NotFound(f"the cursor {after} names nothing in this list", "unknown_cursor")
        query = query.where(or_(created < at, and_(created == at, key < last)))
    rows = connection.execute(query.order_by(created.desc(), key.desc()).limit(limit + 1)).all()
    more = len(rows) > limit
    page = list(rows[:limit])
    return page, encode_cursor(page[-1].item_id) if more else None


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


def public_table(
    table_id: str,
    opened: TableOpened,
    progress: Mapping[str, Any],
    version: int,
    created_at: str,
) -> dict[str, Any]:
    """A table as anyone may see it (``GET /tables/{id}`` and the list): ``progress`` holds
    its ``status``, ``deal``, ``totals`` and ``ranking``; the seed and salt only once the
    match ended."""
    finished = progress["status"] == "finished"
    return {
        "id": table_id,
        "game": opened.game,
        "variant": opened.variant,
        "status": progress["status"],
        "version": version,
        "deal": progress["deal"],
        "seats": [{"seat": s, **seat} for s, seat in enumerate(opened.seats)],
        "totals": progress["totals"],
        "ranking": progress["ranking"],
        "target_score": opened.target_score,
        "max_deals": opened.max_deals,
        "seed_commitment": commitment(opened),
        "seed": opened.seed if finished else None,
        "salt": opened.salt if finished else None,
        "created_at": created_at,
    }


def table_item(row: Any) -> dict[str, Any]:
    """A table's public summary from its summary row and its ``TableOpened``."""
    progress = {
        "status": row.status,
        "deal": row.deal,
        "totals": json.loads(row.totals),
        "ranking": None if row.ranking is None else json.loads(row.ranking),
    }
    opened = from_data(TableOpened, json.loads(row.opened))
    imported = None
    if row.signed is not None:
        imported = {"signed": row.signed, "key_id": row.key_id, "at": row.imported_at}
    return {
        **public_table(row.item_id, opened, progress, row.version, row.created_at),
        "imported": imported,
    }


# --- tournaments -----------------------------------------------------------------------------


def list_tournaments(
    connection: Connection, *, limit: int = DEFAULT_LIMIT, after: str | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """Tournaments newest first: the settings and progress ``GET /tournaments/{id}``
    gives, with ``entry_count`` in place of its entries and seatings."""
    row_of = tournaments.c
    entered = (  # per listed tournament, by the standings' primary key
        select(func.count())
        .where(standings.c.tournament_id == row_of.id, standings.c.withdrawn.is_(False))
        .scalar_subquery()
    )
    query = select(
        row_of.id.label("item_id"),
        row_of.created_at,
        row_of.status,
        row_of.rounds_played,
        row_of.version,
        events.c.type.label("created_type"),
        events.c.data.label("created"),
        entered.label("entry_count"),
    ).join(events, and_(events.c.stream == row_of.id, events.c.version == 1))
    rows, following = _page(connection, query, row_of.created_at, row_of.id, limit, after)
    return [tournament_item(row) for row in rows], following


def tournament_settings(
    config: TournamentCreated, status: str, rounds_played: int, finished: bool
) -> dict[str, Any]:
    """What a tournament is and how far it got, as ``GET /tournaments/{id}`` and the list
    both give it: the seed and salt only once finished."""
    return {
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
        "language": config.language,
        "bye_points": shown(bye_units(config.table_size, config.match_points, config.bye_points)),
        "match_points": list(config.match_points) if config.match_points else None,
        "status": status,
        "rounds_played": rounds_played,
        "seed_commitment": seed_commitment(config.seed, config.salt),
        "seed": config.seed if finished else None,
        "salt": config.salt if finished else None,
    }


def tournament_item(row: Any) -> dict[str, Any]:
    """A tournament's settings and progress, from its projection row and first event."""
    config: TournamentCreated = decode(row.created_type, json.loads(row.created))
    settings = tournament_settings(
        config, row.status, row.rounds_played, finished=row.status == "finished"
    )
    return {
        "id": row.item_id,
        **settings,
        "version": row.version,
        "created_at": row.created_at,
        "entry_count": row.entry_count,
    }


# --- players ---------------------------------------------------------------------------------


def list_players(
    connection: Connection,
    *,
    limit: int = DEFAULT_LIMIT,
    after: str | None = None,
    named: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """Registered players newest first, as ``GET /players/{id}`` shows each (with rating);
    ``named``: only those whose name holds it, whatever the case (the console's search)."""
    if named and "\x00" in named:  # no name holds a NUL (and PostgreSQL's text cannot)
        return [], None
    query = select(players, players.c.id.label("item_id"))
    if named:
        query = query.where(func.lower(players.c.name).contains(named.lower(), autoescape=True))
    rows, following = _page(connection, query, players.c.created_at, players.c.id, limit, after)
    return [player_shown(row) for row in rows], following


__all__ = ["decode_cursor", "encode_cursor", "list_players", "list_tables", "list_tournaments"]
