"""A seat's token issued again (``docs/api.md``, Lists and seat tokens): the organiser's
answer to a lost phone or a reprinted slip; and a seat handed to a bot and back
(``docs/api.md``, Seats taken over): the organiser's answer to an absent person."""

from __future__ import annotations

from typing import Any

from service.application.seats import hand_back_seat, reissue_seat_token, take_over_seat
from service.storage.db import get_database
from service.storage.tablelog import TableLog, takeovers
from service.web.api.base import Blueprint, organiser_only
from service.web.schemas.lists import SeatTokenSchema
from service.web.schemas.stand_ins import SeatPlayerSchema, SeatTakeOverSchema

blp = Blueprint(
    "seats", __name__, description="A seat's token issued again; a seat handed to a bot and back."
)


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


def _player(log: TableLog, seat: int) -> dict[str, Any]:
    held = takeovers(log).get(seat)
    return {"table": log.id, "seat": seat, "bot": held.bot if held else None,
            "reason": held.reason if held else None, "version": log.version}  # fmt: skip


@blp.post("/tables/<id:table_id>/seats/<int:seat>/bot", operation_id="takeOverSeat")
@organiser_only
@blp.arguments(SeatTakeOverSchema())
@blp.response(201, SeatPlayerSchema, description="The bot plays the seat from now on.")
@blp.problems(400, 401, 403, 404, 409, 422)
def post_seat_bot(body: dict[str, Any], table_id: str, seat: int) -> tuple[dict[str, Any], int]:
    """Hand a seat to a bot (organiser)

    For an absent person: from now on the bot plays the seat (recorded as `SeatTakenOver`),
    which still belongs to its person for the standings; the person's token may look but
    not act (409 `seat_taken_over`). A finished table is 409 `match_finished`; a seat the
    table does not have is 422 `unknown_seat`, a bot's from the start `bot_seat`, one a bot
    plays already `already_taken_over`.
    """
    log = take_over_seat(table_id, seat, body["bot"], body["reason"])
    return _player(log, seat), 201


@blp.delete("/tables/<id:table_id>/seats/<int:seat>/bot", operation_id="returnSeat")
@organiser_only
@blp.response(200, SeatPlayerSchema, description="Its person plays the seat again.")
@blp.problems(401, 403, 404, 409, 422)
def delete_seat_bot(table_id: str, seat: int) -> tuple[dict[str, Any], int]:
    """Hand a seat back (organiser)

    The seat's person plays it again (recorded as `SeatReturned`); its bot stops. A finished
    table is 409 `match_finished`; a seat no bot took over is 422 `not_taken_over`.
    """
    return _player(hand_back_seat(table_id, seat), seat), 200
