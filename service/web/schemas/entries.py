"""Answers of the personal-link routes (``docs/api.md``, "Personal links (tournaments)"):
an entry with its token, a token issued again, and where an entry is now."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.web.schemas.tournaments import EntrySchema

STATUSES = ("waiting", "playing", "finished", "withdrawn")


class EntryEnteredSchema(EntrySchema):
    """``POST /tournaments/{id}/entries``: the entry and its personal token."""

    token = fields.String(
        required=True,
        metadata={
            "description": "The entry's token for the whole tournament: "
            "`/tournaments/{id}/me?token=…` is the person's link (a reprinted slip shows it "
            "again; `POST …/entries/{entry}/token` replaces it)."
        },
    )


class EntryTokenSchema(Schema):
    """``POST /tournaments/{id}/entries/{entry}/token``: the entry's new token."""

    entry = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "The earlier one stops now."})


class WhereaboutsSchema(Schema):
    """``GET /tournaments/{id}/me``: where the token's entry is now."""

    entry = fields.Integer(required=True)
    name = fields.String(required=True)
    status = fields.String(
        required=True,
        validate=validate.OneOf(STATUSES),
        metadata={
            "description": "playing: at `table`, `seat` in round `round`; waiting: for "
            "round `round` (a bye, or their table of the round is over); finished: the "
            "tournament is over; withdrawn."
        },
    )
    round = fields.Integer(allow_none=True, required=True)
    table = fields.String(allow_none=True, required=True)
    seat = fields.Integer(allow_none=True, required=True)
