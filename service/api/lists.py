"""The lists: tables, tournaments and players, newest first (``api.md``, Lists and seat
tokens). Public, like the summaries they list; paged with ``?limit=`` and ``?after=``."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from service.db import get_database
from service.listings import list_players, list_tables, list_tournaments
from service.schemas.lists import (
    ListQuerySchema,
    PlayerPageSchema,
    TableListQuerySchema,
    TablePageSchema,
    TournamentPageSchema,
)

blueprint = Blueprint("lists", __name__)


class SCHEMAS:
    """One instance each: building a marshmallow schema costs more than using it."""

    ListQuerySchema = ListQuerySchema()
    PlayerPageSchema = PlayerPageSchema()
    TableListQuerySchema = TableListQuerySchema()
    TablePageSchema = TablePageSchema()
    TournamentPageSchema = TournamentPageSchema()


@blueprint.get("/tables")
def get_tables() -> tuple[dict[str, Any], int]:
    """The tables, newest first (anyone): each as ``GET /tables/{id}`` summarises it.
    ---
    get:
      summary: List tables
      operationId: listTables
      tags: [tables]
      security: [{}, {bearer: []}]
      parameters:
        - {in: query, name: limit, required: false,
           schema: {type: integer, minimum: 1, maximum: 100, default: 50}}
        - in: query
          name: after
          required: false
          schema: {type: string, pattern: "^[A-Za-z0-9_-]{22}$"}
          description: The `next` of the page before (404 `unknown_cursor` if it names nothing).
        - in: query
          name: status
          required: false
          schema: {type: string, enum: [waiting_for_deal, in_deal, finished]}
        - in: query
          name: tournament
          required: false
          schema: {type: string, pattern: "^[0-9a-f]{32}$"}
          description: Only the tables of this tournament.
      responses:
        "200":
          description: Up to `limit` tables; `next` pages on (null on the last page).
          content:
            application/json:
              schema: TablePage
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    query = SCHEMAS.TableListQuerySchema.load(request.args.to_dict())
    with get_database().reading() as connection:
        tables, following = list_tables(connection, **query)
    return SCHEMAS.TablePageSchema.dump({"tables": tables, "next": following}), 200


@blueprint.get("/tournaments")
def get_tournaments() -> tuple[dict[str, Any], int]:
    """The tournaments, newest first (anyone): settings and progress of each.
    ---
    get:
      summary: List tournaments
      operationId: listTournaments
      tags: [tournaments]
      security: [{}, {bearer: []}]
      parameters:
        - {in: query, name: limit, required: false,
           schema: {type: integer, minimum: 1, maximum: 100, default: 50}}
        - in: query
          name: after
          required: false
          schema: {type: string, pattern: "^[A-Za-z0-9_-]{22}$"}
          description: The `next` of the page before (404 `unknown_cursor` if it names nothing).
      responses:
        "200":
          description: Up to `limit` tournaments; `next` pages on (null on the last page).
          content:
            application/json:
              schema: TournamentPage
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    query = SCHEMAS.ListQuerySchema.load(request.args.to_dict())
    with get_database().reading() as connection:
        items, following = list_tournaments(connection, **query)
    return SCHEMAS.TournamentPageSchema.dump({"tournaments": items, "next": following}), 200


@blueprint.get("/players")
def get_players() -> tuple[dict[str, Any], int]:
    """The registered players, newest first (anyone), each with their rating.
    ---
    get:
      summary: List players
      operationId: listPlayers
      tags: [players]
      security: [{}, {bearer: []}]
      parameters:
        - {in: query, name: limit, required: false,
           schema: {type: integer, minimum: 1, maximum: 100, default: 50}}
        - in: query
          name: after
          required: false
          schema: {type: string, pattern: "^[A-Za-z0-9_-]{22}$"}
          description: The `next` of the page before (404 `unknown_cursor` if it names nothing).
      responses:
        "200":
          description: Up to `limit` players; `next` pages on (null on the last page).
          content:
            application/json:
              schema: PlayerPage
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    query = SCHEMAS.ListQuerySchema.load(request.args.to_dict())
    with get_database().reading() as connection:
        items, following = list_players(connection, **query)
    return SCHEMAS.PlayerPageSchema.dump({"players": items, "next": following}), 200
