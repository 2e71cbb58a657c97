"""Players and the ratings ladder: people known across tournaments, OpenSkill-rated."""

from __future__ import annotations

from typing import Any

from service.application.players import ladder, read_player, register_player
from service.web.api.base import TOKEN_OPTIONAL, Blueprint, organiser_only
from service.web.schemas.tournaments import LadderSchema, PlayerCreateSchema, PlayerSchema

blp = Blueprint("players", __name__, description="People known across tournaments, rated.")


@blp.post("/players", operation_id="createPlayer")
@organiser_only
@blp.arguments(PlayerCreateSchema())
@blp.response(201, PlayerSchema, description="The player, at OpenSkill's starting rating.")
@blp.problems(400, 401, 403, 422)
def post_player(body: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Register a player (organiser)

    Seats and entries then name them by ``player_id``.
    """
    return register_player(body["name"]), 201


@blp.get("/players/<id:player_id>", operation_id="getPlayer", security=TOKEN_OPTIONAL)
@blp.response(
    200, PlayerSchema, description="The player; the rating is updated after every finished table."
)
@blp.problems(401, 404)
def get_player(player_id: str) -> tuple[dict[str, Any], int]:
    """Player

    A player and their rating (anyone).
    """
    return read_player(player_id), 200


@blp.get("/ratings", operation_id="getRatings", security=TOKEN_OPTIONAL)
@blp.response(
    200, LadderSchema, description="Best ordinal (mu - 3 sigma) first; equal ordinals share a rank."
)
@blp.problems(401)
def get_ratings() -> tuple[dict[str, Any], int]:
    """Ratings ladder

    Players with at least one rated table (anyone).
    """
    return {"rows": ladder()}, 200
