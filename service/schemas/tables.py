"""Request and response shapes of the tables routes (``api.md``, Tables)."""

from __future__ import annotations

from typing import Any

from marshmallow import (
    RAISE,
    Schema,
    ValidationError,
    fields,
    validate,
    validates_schema,
)

from domain.bots import BOT_NAMES

GAMES = ("bottle-imp", "bestia", "oh-quay")
ACTION_TYPES = (
    "deal",
    "discard",
    "pass",
    "choose_open",
    "play",
    "declare",
    "exchange",
    "load",
    "launch",
    "take",
    "adjust",
)


class SeatSchema(Schema):
    """A person (``name`` or ``player_id``) or a bot (``bot``)."""

    class Meta:
        unknown = RAISE

    name = fields.String(validate=validate.Length(min=1, max=80))
    bot = fields.String(
        validate=validate.OneOf(BOT_NAMES), metadata={"description": "A bot of domain.bots."}
    )
    player_id = fields.String(validate=validate.Length(min=1, max=64))

    @validates_schema
    def one_kind(self, data: dict[str, Any], **_: Any) -> None:
        if "bot" in data and ("name" in data or "player_id" in data):
            raise ValidationError("a seat is a person or a bot, not both")
        if not data:
            raise ValidationError("a seat needs a name, a player_id or a bot")


class SeedField(fields.Field):
    """A string, or an integer (turned into its decimal string)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ValidationError("the seed is a string or an integer")
        text = str(value)
        if not 1 <= len(text) <= 200:
            raise ValidationError("the seed has 1 to 200 characters")
        return text


class TableCreateSchema(Schema):
    """``POST /tables``."""

    class Meta:
        unknown = RAISE

    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    variant = fields.String(validate=validate.Length(min=1, max=40))
    seats = fields.List(
        fields.Nested(SeatSchema), required=True, validate=validate.Length(min=1, max=8)
    )
    target_score = fields.Integer(
        allow_none=True,
        validate=validate.Range(min=1, max=100_000),
        metadata={"description": "With max_deals omitted too: the game's default match."},
    )
    max_deals = fields.Integer(allow_none=True, validate=validate.Range(min=1, max=1000))
    seed = SeedField(allow_none=True, metadata={"type": "string"})
    rules = fields.Dict(keys=fields.String(), load_default=dict)


class SeatCreatedSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True)
    player_id = fields.String(allow_none=True)
    token = fields.String(allow_none=True, metadata={"description": "Shown only once."})


class TableCreatedSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    game = fields.String(required=True)
    variant = fields.String(required=True)
    seats = fields.List(fields.Nested(SeatCreatedSchema), required=True)
    seed_commitment = fields.String(required=True)


class CardField(fields.Raw):
    """A card in the game's notation (``rules/common.md``): an integer or a string."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("metadata", {"oneOf": [{"type": "integer"}, {"type": "string"}]})
        super().__init__(**kwargs)


class ActionSchema(Schema):
    """``POST /tables/{id}/actions``: one action; its shape per game is in ``api.md``.

    Types are checked here; cards and the game's rules are checked by the engine.
    """

    class Meta:
        unknown = RAISE

    type = fields.String(required=True, validate=validate.OneOf(ACTION_TYPES))
    seat = fields.Integer(strict=True)
    card = CardField()
    left = CardField()
    right = CardField()
    opponent = CardField()
    hand = fields.String()
    hands = fields.Raw(
        metadata={"type": "array", "description": "A recorded deal's hands, per seat."}
    )
    devil = fields.List(CardField())
    muestra = CardField()
    quays = fields.List(fields.List(CardField()))
    canals = fields.List(fields.List(CardField()))
    call = fields.String()
    discard = fields.List(CardField())
    drawn = fields.List(CardField())
    from_ = fields.String(data_key="from")
    position = fields.Integer(strict=True)
    count = fields.Integer(strict=True)
    keep = CardField()
    points = fields.Integer(strict=True)
    reason = fields.String()


class EventSchema(Schema):
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    at = fields.String(required=True, metadata={"description": "UTC, ISO 8601."})
    data = fields.Dict(required=True)


class ActionResultSchema(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)


class EventPageSchema(Schema):
    events = fields.List(fields.Nested(EventSchema), required=True)
    next = fields.Integer(allow_none=True, required=True)


class EventQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    after = fields.Integer(load_default=0, validate=validate.Range(min=0))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class StateQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    version = fields.Integer(validate=validate.Range(min=1))


class SeatSummarySchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True)
    player_id = fields.String(allow_none=True)


class TableSummarySchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    variant = fields.String(required=True)
    status = fields.String(
        required=True, validate=validate.OneOf(["waiting_for_deal", "in_deal", "finished"])
    )
    version = fields.Integer(required=True)
    deal = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatSummarySchema), required=True)
    totals = fields.List(fields.Integer(), required=True)
    ranking = fields.List(fields.Integer(allow_none=True), allow_none=True, required=True)
    target_score = fields.Integer(allow_none=True)
    max_deals = fields.Integer(allow_none=True)
    seed_commitment = fields.String(required=True)
    seed = fields.String(allow_none=True, metadata={"description": "Shown once the match ends."})
    created_at = fields.String(required=True)


class StateSchema(Schema):
    """The state as the caller may see it; per-game fields beyond these (``bottle``,
    ``devil_trick``, ``pot``, ``quays`` …) are in ``rules/*.md``."""

    version = fields.Integer(required=True)
    game = fields.String(required=True)
    variant = fields.String(required=True)
    status = fields.String(required=True)
    phase = fields.String(required=True)
    deal = fields.Integer(required=True)
    dealer = fields.Integer(allow_none=True)
    to_act = fields.List(fields.Integer(), required=True)
    hands = fields.List(fields.Raw(allow_none=True), required=True)
    hand_sizes = fields.List(fields.Raw(), required=True)
    trick = fields.Dict(allow_none=True)
    totals = fields.List(fields.Integer(), required=True)
    legal_actions = fields.List(fields.Dict(), required=True)
    ranking = fields.List(fields.Integer(allow_none=True), allow_none=True)
    scores = fields.List(fields.Integer(), allow_none=True)
    bottle = fields.Dict()
    devil_trick = fields.List(fields.Integer(), allow_none=True)
    devil_trick_size = fields.Integer()
    discards = fields.List(fields.Raw(allow_none=True))
    passes = fields.List(fields.Raw(allow_none=True))
    received = fields.List(fields.Raw(allow_none=True))
    open_hands = fields.List(fields.String(allow_none=True), allow_none=True)
    tricks_played = fields.Integer()
    won = fields.List(fields.List(fields.Integer()))


class DealEventSchema(Schema):
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    seat = fields.Integer(allow_none=True)
    by = fields.String(
        required=True,
        metadata={"description": "`organiser`, `seat N`, `bot <name> seat N` or `engine`."},
    )
    data = fields.Dict(required=True)
    legal = fields.List(
        fields.Dict(),
        allow_none=True,
        metadata={"description": "What the seat could have done instead (null: hidden)."},
    )


class DealHistorySchema(Schema):
    table = fields.String(required=True)
    deal = fields.Integer(required=True)
    dealer = fields.Integer(allow_none=True)
    scored = fields.Boolean(required=True)
    dealt = fields.Dict(required=True)
    events = fields.List(fields.Nested(DealEventSchema), required=True)
    tricks = fields.List(fields.Dict(), required=True)
    score = fields.Dict(allow_none=True, required=True)


class ProblemFoundSchema(Schema):
    version = fields.Integer(required=True)
    code = fields.String(required=True)
    detail = fields.String(required=True)


class VerificationSchema(Schema):
    ok = fields.Boolean(required=True)
    events = fields.Integer(required=True)
    head = fields.String(required=True)
    problems = fields.List(fields.Nested(ProblemFoundSchema), required=True)
