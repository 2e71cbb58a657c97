"""A seat's token, issued again (``docs/api.md``, Lists and seat tokens): the organiser's
answer to a lost phone or a reprinted slip."""

from __future__ import annotations

from typing import Any

from service.application.seats import reissue_seat_token
from service.storage.db import get_database
from service.web.api.base import Blueprint, organiser_only
from service.web.schemas.lists import SeatTokenSchema

blp = Blueprint("seats", __name__, description="A seat's token issued again.")


@blp.post("/tables/<id:table_id>/seats/<int:seat>/token", operation_id="reissueSeatToken")
@organiser_only
@blp.response(201, SeatTokenSchema, description="The seat's new token (shown only now).")
@blp.problems(401, 403, 404, 422)
def post_seat_token(table_id: str, seat: int) -> tuple[dict[str, Any], int]:
    """Reissue a seat token

    A fresh token for a human seat (organiser); the seat's earlier token stops working at
    once. A seat the table does not have is 422 ``unknown_seat``; a bot's, ``bot_seat``.
    """
    with get_database().writing() as connection:
        token = reissue_seat_token(connection, table_id, seat)
    return {"seat": seat, "token": token}, 201
