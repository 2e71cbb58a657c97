"""The lists: tables, tournaments and players, newest first (``docs/api.md``, Lists and seat
tokens). Public, like the summaries they list; paged with ``?limit=`` and ``?after=``."""

from __future__ import annotations

from typing import Any

from service.application.listings import list_players, list_tables, list_tournaments
from service.storage.db import get_database
from service.web.api.base import TOKEN_OPTIONAL, Blueprint
from service.web.schemas.lists import (
    ListQuerySchema,
    PlayerPageSchema,
    TableListQuerySchema,
    TablePageSchema,
    TournamentPageSchema,
)

blp = Blueprint("lists", __name__, description="Tables, tournaments and players, newest first.")


@blp.get("/tables", operation_id="listTables", security=TOKEN_OPTIONAL)
@blp.arguments(TableListQuerySchema(), location="query")
@blp.response(200, TablePageSchema, description="Up to `limit` tables; `next` pages on.")
@blp.problems(401, 404, 422)
def get_tables(query: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """List tables

    The tables, newest first (anyone), each as ``GET /tables/{id}`` summarises it;
    ``?status=`` and ``?tournament=`` filter them. An ``after`` that names nothing is a
    404 ``unknown_cursor``.
    """
    with get_database().reading() as connection:
        tables, following = list_tables(connection, **query)
    return {"tables": tables, "next": following}, 200


@blp.get("/tournaments", operation_id="listTournaments", security=TOKEN_OPTIONAL)
@blp.arguments(ListQuerySchema(), location="query")
@blp.response(200, TournamentPageSchema, description="Up to `limit` tournaments; `next` pages on.")
@blp.problems(401, 404, 422)
def get_tournaments(query: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """List tournaments

    The tournaments, newest first (anyone): the settings and progress of each.
    """
    with get_database().reading() as connection:
        items, following = list_tournaments(connection, **query)
    return {"tournaments": items, "next": following}, 200


@blp.get("/players", operation_id="listPlayers", security=TOKEN_OPTIONAL)
@blp.arguments(ListQuerySchema(), location="query")
@blp.response(200, PlayerPageSchema, description="Up to `limit` players; `next` pages on.")
@blp.problems(401, 404, 422)
def get_players(query: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """List players

    The registered players, newest first (anyone), each with their rating.
    """
    with get_database().reading() as connection:
        items, following = list_players(connection, **query)
    return {"players": items, "next": following}, 200
