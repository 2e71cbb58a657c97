"""Shapes of the lists (``GET /tables``, ``/tournaments``, ``/players``), a round's
seating (``GET /tournaments/{id}/rounds/{r}``) and a seat's new token."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from service.application.listings import CURSOR_PATTERN
from service.web.schemas.tables import TableSummarySchema
from service.web.schemas.tournaments import ByeSchema, PlayerSchema, TournamentSchema

MAX_LIMIT = 100


class ListQuerySchema(Schema):
    """``?limit=`` (1–100, default 50) and ``?after=``, the ``next`` of the page before."""

    class Meta:
        unknown = RAISE

    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=MAX_LIMIT))
    after = fields.String(
        validate=validate.Regexp(CURSOR_PATTERN, error="not a cursor a list gave as its `next`")
    )


class TableListQuerySchema(ListQuerySchema):
    status = fields.String(validate=validate.OneOf(["waiting_for_deal", "in_deal", "finished"]))
    tournament = fields.String(validate=validate.Regexp("^[0-9a-f]{32}$"))


class TableItemSchema(TableSummarySchema):
    """A table as ``GET /tables/{id}`` summarises it, without ``damaged`` (only that route
    replays the log, so only it can tell)."""

    class Meta:
        exclude = ("damaged",)


class TablePageSchema(Schema):
    tables = fields.List(fields.Nested(TableItemSchema), required=True)
    next = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "Pass as `?after=` for the next page; null on the last."},
    )


class TournamentItemSchema(TournamentSchema):
    """A tournament's settings and progress, as ``GET /tournaments/{id}`` gives them, with
    the number of its entries (not withdrawn) in place of the entries and seatings."""

    class Meta:
        exclude = ("entries", "seatings", "damaged")  # a list reads projections, folds nothing

    entry_count = fields.Integer(required=True, metadata={"description": "Entries not withdrawn."})


class TournamentPageSchema(Schema):
    tournaments = fields.List(fields.Nested(TournamentItemSchema), required=True)
    next = fields.String(allow_none=True, required=True)


class PlayerPageSchema(Schema):
    players = fields.List(fields.Nested(PlayerSchema), required=True)
    next = fields.String(allow_none=True, required=True)


class RoundSeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True, required=True)
    entry = fields.Integer(allow_none=True, required=True)
    player_id = fields.String(allow_none=True)
    bot = fields.String(allow_none=True, required=True)


class RoundSeatingTableSchema(Schema):
    table = fields.Integer(required=True, metadata={"description": "The table's number."})
    id = fields.String(required=True)
    status = fields.String(
        required=True, validate=validate.OneOf(["waiting_for_deal", "in_deal", "finished"])
    )
    seats = fields.List(fields.Nested(RoundSeatSchema), required=True)
    to_act = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "The seats the table waits for; empty once finished."},
    )


class RoundSeatingSchema(Schema):
    """``GET /tournaments/{id}/rounds/{r}``: who sits where, which tables still play."""

    round = fields.Integer(required=True)
    finished = fields.Boolean(required=True)
    tables = fields.List(fields.Nested(RoundSeatingTableSchema), required=True)
    byes = fields.List(fields.Nested(ByeSchema), required=True)


class SeatTokenSchema(Schema):
    """``POST /tables/{id}/seats/{seat}/token``: the seat's new token (shown only now)."""

    seat = fields.Integer(required=True)
    token = fields.String(required=True)
