"""Request and response shapes of the tournament, player and rating routes (``docs/api.md``,
Tournaments). The domain checks what a schema cannot: table sizes per game, rules."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from domain.names import MAX_PERSON, MAX_TOURNAMENT
from domain.tournament.pairing import PAIRINGS
from service.web.languages import LANGUAGES
from service.web.schemas.common import SignedHeadSchema, name_field, player_id_field
from service.web.schemas.options import rules_field
from service.web.schemas.tables import GAMES, SeedField, damaged_field


class Points(fields.Number):
    """Match points as computed: an integer when whole, else a decimal (shared places)."""

    def _format_num(self, value: Any) -> Any:
        return value


class TournamentCreateSchema(Schema):
    """``POST /tournaments``."""

    class Meta:
        unknown = RAISE

    name = name_field(MAX_TOURNAMENT, required=True)
    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    variant = fields.String(validate=validate.Length(min=1, max=40))
    rules = rules_field(
        common=False,
        metadata={"description": "The game's options; tables draw their first dealer."},
    )
    table_size = fields.Integer(
        required=True,
        strict=True,
        validate=validate.Range(min=2, max=8),
        metadata={"description": "Seats per table (bots included); the game decides which."},
    )
    target_score = fields.Integer(allow_none=True, validate=validate.Range(min=1, max=100_000))
    max_deals = fields.Integer(
        allow_none=True,
        validate=validate.Range(min=1, max=1000),
        metadata={"description": "With target_score omitted too: the game's default match."},
    )
    rounds = fields.Integer(
        allow_none=True,
        load_default=None,
        validate=validate.Range(min=1, max=100),
        metadata={"description": "Rounds to play; null: until POST /tournaments/{id}/finish."},
    )
    pairing = fields.String(load_default="swiss", validate=validate.OneOf(PAIRINGS))
    fill_with_bots = fields.String(
        allow_none=True,
        load_default=None,
        validate=validate.OneOf(["random"]),
        metadata={"description": "Bots fill the last table; null: the extra entries get byes."},
    )
    seed = SeedField(
        allow_none=True,
        metadata={"description": "Omitted: drawn, secret until the end."},
    )
    bye_points = fields.Float(
        allow_none=True,
        load_default=None,
        validate=validate.Range(min=-1000, max=1000),
        metadata={"description": "Null: the average match points of a full table."},
    )
    match_points = fields.List(
        fields.Integer(validate=validate.Range(min=-1000, max=1000)),
        allow_none=True,
        load_default=None,
        validate=validate.Length(min=1, max=8),
        metadata={"description": "Points by place (first place first); null: n-1 … 0."},
    )
    language = fields.String(
        allow_none=True,
        load_default=None,
        validate=validate.OneOf(LANGUAGES),
        metadata={
            "description": "The club's language for the seat slips and the wall when the "
            "viewer chose none; null: each browser's own."
        },
    )


class EntryCreateSchema(Schema):
    """``POST /tournaments/{id}/entries``: a guest by ``name`` or a registered player."""

    class Meta:
        unknown = RAISE
        openapi: ClassVar[dict[str, Any]] = {"minProperties": 1, "maxProperties": 1}  # `one_of`

    name = name_field(MAX_PERSON)
    player_id = player_id_field()

    @validates_schema
    def one_of(self, data: dict[str, Any], **_: Any) -> None:
        if ("name" in data) == ("player_id" in data):
            raise ValidationError("give a name or a player_id (not both)")


class EntrySchema(Schema):
    entry = fields.Integer(required=True)
    name = fields.String(required=True)
    player_id = fields.String(allow_none=True)
    withdrawn = fields.Boolean(required=True)


class TournamentSeatSchema(Schema):
    """A seat of a tournament table: an entry, or a bot."""

    seat = fields.Integer(required=True)
    entry = fields.Integer(allow_none=True)
    name = fields.String(allow_none=True)
    player_id = fields.String(allow_none=True)
    bot = fields.String(allow_none=True)


class TournamentSeatTokenSchema(TournamentSeatSchema):
    token = fields.String(allow_none=True, metadata={"description": "Shown only once."})


class ByeSchema(Schema):
    entry = fields.Integer(required=True)
    name = fields.String(required=True)


class RoundTableSchema(Schema):
    id = fields.String(required=True)
    number = fields.Integer(required=True)
    first_dealer = fields.Integer(required=True)
    seats = fields.List(fields.Nested(TournamentSeatTokenSchema), required=True)


class RoundSeatedSchema(Schema):
    """``POST /tournaments/{id}/rounds``: the tables opened, each human seat's token."""

    round = fields.Integer(required=True)
    tables = fields.List(fields.Nested(RoundTableSchema), required=True)
    byes = fields.List(fields.Nested(ByeSchema), required=True)


class PlayedTableSchema(Schema):
    id = fields.String(required=True)
    number = fields.Integer(required=True)
    first_dealer = fields.Integer(required=True)
    seats = fields.List(fields.Nested(TournamentSeatSchema), required=True)
    finished = fields.Boolean(required=True)
    totals = fields.List(fields.Integer(), allow_none=True, required=True)
    ranking = fields.List(fields.Integer(allow_none=True), allow_none=True, required=True)


class SeatingSchema(Schema):
    round = fields.Integer(required=True)
    finished = fields.Boolean(required=True)
    tables = fields.List(fields.Nested(PlayedTableSchema), required=True)
    byes = fields.List(fields.Nested(ByeSchema), required=True)


class TournamentSchema(Schema):
    """A tournament: its settings, entries and every round seated so far."""

    id = fields.String(required=True)
    name = fields.String(required=True)
    game = fields.String(required=True)
    variant = fields.String(required=True)
    rules = fields.Dict(required=True)
    table_size = fields.Integer(required=True)
    target_score = fields.Integer(allow_none=True, required=True)
    max_deals = fields.Integer(allow_none=True, required=True)
    rounds = fields.Integer(allow_none=True, required=True)
    pairing = fields.String(required=True)
    fill_with_bots = fields.String(allow_none=True, required=True)
    language = fields.String(
        allow_none=True, required=True, metadata={"description": "The club's language, or null."}
    )
    bye_points = Points(required=True, metadata={"description": "What a bye is worth."})
    match_points = fields.List(fields.Integer(), allow_none=True, required=True)
    status = fields.String(required=True, validate=validate.OneOf(["open", "playing", "finished"]))
    rounds_played = fields.Integer(required=True)
    version = fields.Integer(required=True)
    seed_commitment = fields.String(required=True)
    seed = fields.String(allow_none=True, metadata={"description": "Shown once finished."})
    salt = fields.String(
        allow_none=True,
        metadata={
            "description": "The server's 128-bit salt, shown once finished: "
            '`seed_commitment` is SHA-256 of `"{salt}:{seed}"`.'
        },
    )
    created_at = fields.String(required=True)
    entries = fields.List(fields.Nested(EntrySchema), required=True)
    seatings = fields.List(fields.Nested(SeatingSchema), required=True)
    damaged = damaged_field()


class TiebreaksSchema(Schema):
    buchholz = Points(
        required=True, metadata={"description": "Sum of the opponents' match points."}
    )
    head_to_head = fields.Integer(
        allow_none=True,
        required=True,
        metadata={"description": "Among entries still tied: rivals beaten minus lost to."},
    )


class StandingRowSchema(Schema):
    rank = fields.Integer(required=True)
    player = fields.String(required=True, metadata={"description": "The entry's name."})
    entry = fields.Integer(required=True)
    player_id = fields.String(allow_none=True, required=True)
    match_points = Points(required=True)
    score = fields.Integer(required=True, metadata={"description": "Total game score."})
    tables = fields.Integer(required=True)
    byes = fields.Integer(required=True)
    withdrawn = fields.Boolean(required=True)
    tiebreaks = fields.Nested(TiebreaksSchema, required=True)


class StandingsSchema(Schema):
    tournament = fields.String(required=True)
    name = fields.String(required=True)
    status = fields.String(required=True)
    rounds_played = fields.Integer(required=True)
    rows = fields.List(fields.Nested(StandingRowSchema), required=True)
    head = fields.Nested(
        SignedHeadSchema,
        required=True,
        metadata={"description": "The tournament's head these standings reflect, signed."},
    )


class StandingsQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    format = fields.String(load_default="json", validate=validate.OneOf(["json", "csv"]))


class PlayerCreateSchema(Schema):
    """``POST /players``."""

    class Meta:
        unknown = RAISE

    name = name_field(MAX_PERSON, required=True)


class RatingSchema(Schema):
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True, metadata={"description": "mu - 3 sigma."})
    tables = fields.Integer(required=True, metadata={"description": "Tables rated."})


class PlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created_at = fields.String(required=True)
    rating = fields.Nested(RatingSchema, required=True)


class LadderRowSchema(PlayerSchema):
    rank = fields.Integer(required=True)


class LadderSchema(Schema):
    """``GET /ratings``: rated players, best ordinal first."""

    rows = fields.List(fields.Nested(LadderRowSchema), required=True)
