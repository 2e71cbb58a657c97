"""A tournament round's seating (``docs/api.md``, Tournaments): who sits where, which tables
are still playing and whom each waits for; public, like the standings."""

from __future__ import annotations

from typing import Any

from service.application.tournaments import round_seating
from service.storage.db import get_database
from service.web.api.base import TOKEN_OPTIONAL, Blueprint
from service.web.schemas.lists import RoundSeatingSchema

blp = Blueprint("rounds", __name__, description="A tournament round's seating and its tables.")


@blp.get(
    "/tournaments/<id:tournament_id>/rounds/<int:round_number>",
    operation_id="getRound",
    security=TOKEN_OPTIONAL,
)
@blp.response(
    200,
    RoundSeatingSchema,
    description="Each table of the round with its seats (entries, or bots), its status and "
    "the seats it waits for; and the entries given a bye.",
)
@blp.problems(401, 404)
def get_round(tournament_id: str, round_number: int) -> tuple[dict[str, Any], int]:
    """Round seating

    A seated round (anyone): its tables by number, their seats, status and who is to act.
    """
    with get_database().reading() as connection:
        seating = round_seating(connection, tournament_id, round_number)
    return seating, 200
