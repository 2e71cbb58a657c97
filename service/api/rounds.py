"""A tournament round's seating (``api.md``, Tournaments): who sits where, which tables
are still playing and whom each waits for; public, like the standings."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from service.db import get_database
from service.schemas.lists import RoundSeatingSchema
from service.tournaments import round_seating

blueprint = Blueprint("rounds", __name__)


class SCHEMAS:
    """One instance each: building a marshmallow schema costs more than using it."""

    RoundSeatingSchema = RoundSeatingSchema()


@blueprint.get("/tournaments/<id:tournament_id>/rounds/<int:round_number>")
def get_round(tournament_id: str, round_number: int) -> tuple[dict[str, Any], int]:
    """A seated round (anyone): its tables by number, their seats, status and who is to act.
    ---
    get:
      summary: Round seating
      operationId: getRound
      tags: [tournaments]
      security: [{}, {bearer: []}]
      parameters:
        - in: path
          name: tournament_id
          required: true
          schema: {type: string, pattern: "^[0-9a-f]{32}$"}
        - {in: path, name: round_number, required: true, schema: {type: integer, minimum: 1}}
      responses:
        "200":
          description: >-
            Each table of the round with its seats (entries, or bots), its status and the
            seats it waits for; and the entries given a bye.
          content:
            application/json:
              schema: RoundSeating
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
    """
    with get_database().reading() as connection:
        seating = round_seating(connection, tournament_id, round_number)
    return SCHEMAS.RoundSeatingSchema.dump(seating), 200
