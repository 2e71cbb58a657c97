"""A seat's token, issued again (``api.md``, Lists and seat tokens): the organiser's
answer to a lost phone or a reprinted slip."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from service.auth import require_organiser
from service.db import get_database
from service.schemas.lists import SeatTokenSchema
from service.seats import reissue_seat_token

blueprint = Blueprint("seats", __name__)


class SCHEMAS:
    """One instance each: building a marshmallow schema costs more than using it."""

    SeatTokenSchema = SeatTokenSchema()


@blueprint.post("/tables/<id:table_id>/seats/<int:seat>/token")
def post_seat_token(table_id: str, seat: int) -> tuple[dict[str, Any], int]:
    """A fresh token for a human seat (organiser); the seat's earlier token stops working.
    ---
    post:
      summary: Reissue a seat token
      operationId: reissueSeatToken
      tags: [tables]
      parameters:
        - {in: path, name: table_id, required: true, schema: {type: string}}
        - {in: path, name: seat, required: true, schema: {type: integer, minimum: 0}}
      responses:
        "201":
          description: The seat's new token (shown only now).
          content:
            application/json:
              schema: SeatToken
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "422":
          description: >-
            The table has no such seat (`unknown_seat`), or a bot sits there (`bot_seat`).
          content:
            application/problem+json:
              schema: Problem
    """
    require_organiser()
    with get_database().writing() as connection:
        token = reissue_seat_token(connection, table_id, seat)
    return SCHEMAS.SeatTokenSchema.dump({"seat": seat, "token": token}), 201
