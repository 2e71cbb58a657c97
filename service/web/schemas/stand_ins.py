"""Seats taken over (``docs/api.md``, "Seats taken over"): the organiser hands an absent
person's seat to a bot, and back; both answer who plays the seat now."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from domain.bots import BOT_NAMES
from domain.rulings import MAX_REASON

#: A reason says something: not only spaces.
SAID = validate.Regexp(r"^\s*\S", error="say why the seat is handed to a bot")


class SeatTakeOverSchema(Schema):
    """``POST /tables/{id}/seats/{seat}/bot``: which bot plays the seat, and why."""

    class Meta:
        unknown = RAISE

    bot = fields.String(
        required=True,
        validate=validate.OneOf(BOT_NAMES),
        metadata={"description": "The bot that plays the seat from now on (domain.bots)."},
    )
    reason = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=MAX_REASON), SAID],
        metadata={"description": "Why, in the organiser's words (`left early`): shown on "
                  "the pages and in the hand records."},
    )  # fmt: skip


class SeatPlayerSchema(Schema):
    """Who plays a seat now, after it was handed to a bot or back."""

    table = fields.String(required=True)
    seat = fields.Integer(required=True)
    bot = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "The bot that plays the seat; `null`: its person does."},
    )
    reason = fields.String(
        allow_none=True, required=True, metadata={"description": "Why a bot plays it."}
    )
    version = fields.Integer(
        required=True, metadata={"description": "The table's version, the event recorded."}
    )
