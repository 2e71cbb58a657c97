"""Players and the ratings ladder: people known across tournaments, OpenSkill-rated."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from service.api.tables import json_body
from service.auth import require_organiser
from service.players import ladder, read_player, register_player
from service.schemas.tournaments import LadderSchema, PlayerCreateSchema, PlayerSchema

blueprint = Blueprint("players", __name__)


class SCHEMAS:
    """One instance each: building a marshmallow schema costs more than using it."""

    LadderSchema = LadderSchema()
    PlayerCreateSchema = PlayerCreateSchema()
    PlayerSchema = PlayerSchema()


@blueprint.post("/players")
def post_player() -> tuple[dict[str, Any], int]:
    """Register a player (organiser); seats and entries then name them by ``player_id``.
    ---
    post:
      summary: Register a player
      operationId: createPlayer
      tags: [players]
      requestBody:
        required: true
        content:
          application/json:
            schema: PlayerCreate
      responses:
        "201":
          description: The player, at OpenSkill's starting rating.
          content:
            application/json:
              schema: Player
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    require_organiser()
    body = SCHEMAS.PlayerCreateSchema.load(json_body())
    return SCHEMAS.PlayerSchema.dump(register_player(body["name"])), 201


@blueprint.get("/players/<id:player_id>")
def get_player(player_id: str) -> tuple[dict[str, Any], int]:
    """A player and their rating (anyone).
    ---
    get:
      summary: Player
      operationId: getPlayer
      tags: [players]
      security: [{}, {bearer: []}]
      parameters:
        - in: path
          name: player_id
          required: true
          schema: {type: string, pattern: "^[0-9a-f]{32}$"}
      responses:
        "200":
          description: The player; the rating is updated after every finished table.
          content:
            application/json:
              schema: Player
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
    """
    return SCHEMAS.PlayerSchema.dump(read_player(player_id)), 200


@blueprint.get("/ratings")
def get_ratings() -> tuple[dict[str, Any], int]:
    """The ratings ladder (anyone): players with at least one rated table.
    ---
    get:
      summary: Ratings ladder
      operationId: getRatings
      tags: [players]
      security: [{}, {bearer: []}]
      responses:
        "200":
          description: Best ordinal (mu - 3 sigma) first; equal ordinals share a rank.
          content:
            application/json:
              schema: Ladder
        "401": {$ref: "#/components/responses/Unauthorized"}
    """
    return SCHEMAS.LadderSchema.dump({"rows": ladder()}), 200
