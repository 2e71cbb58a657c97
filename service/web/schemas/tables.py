"""Request and response shapes of the tables routes (``docs/api.md``, Tables); an action's
body is in ``actions.py``, its headers in ``headers.py``, a table's ``rules`` in
``options.py``."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import (
    EXCLUDE,
    RAISE,
    Schema,
    ValidationError,
    fields,
    validate,
    validates_schema,
)

from domain.bots import BOT_NAMES
from domain.games import SPECS
from domain.names import MAX_PERSON
from service.web.schemas.common import SignedHeadSchema, name_field, player_id_field
from service.web.schemas.options import rules_field

GAMES = tuple(SPECS)
#: The highest version a query may name (a version is a PostgreSQL ``integer``).
MAX_VERSION = 2**31 - 1


class SeatSchema(Schema):
    """A person (``name``, ``player_id`` or both) or a bot (``bot`` alone)."""

    class Meta:
        unknown = RAISE
        #: what `one_kind` checks, said in the spec (``service/web/openapi.py``)
        openapi: ClassVar[dict[str, Any]] = {
            "minProperties": 1,
            "anyOf": [
                {"maxProperties": 1},
                {"required": ["name", "player_id"], "maxProperties": 2},
            ],
        }

    name = name_field(MAX_PERSON)
    bot = fields.String(
        validate=validate.OneOf(BOT_NAMES), metadata={"description": "A bot of domain.bots."}
    )
    player_id = player_id_field()

    @validates_schema
    def one_kind(self, data: dict[str, Any], **_: Any) -> None:
        if "bot" in data and ("name" in data or "player_id" in data):
            raise ValidationError("a seat is a person or a bot, not both")
        if not data:
            raise ValidationError("a seat needs a name, a player_id or a bot")


#: A seed given as a number is a signed 64-bit integer (any longer one is given as text).
MAX_SEED_INT = 2**63 - 1
MAX_SEED_TEXT = 200


class SeedField(fields.Field):
    """A string, or an integer (turned into its decimal string)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["metadata"] = {
            "oneOf": [
                {"type": "string", "minLength": 1, "maxLength": MAX_SEED_TEXT},
                {"type": "integer", "minimum": -MAX_SEED_INT - 1, "maximum": MAX_SEED_INT},
            ],
            **kwargs.get("metadata", {}),
        }
        super().__init__(**kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            if not -MAX_SEED_INT - 1 <= value <= MAX_SEED_INT:
                raise ValidationError("a seed given as a number is a signed 64-bit integer")
            return str(value)
        if not isinstance(value, str):
            raise ValidationError("the seed is a string or an integer")
        if not 1 <= len(value) <= MAX_SEED_TEXT:
            raise ValidationError(f"the seed has 1 to {MAX_SEED_TEXT} characters")
        return value


class TableCreateSchema(Schema):
    """``POST /tables``."""

    class Meta:
        unknown = RAISE

    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    variant = fields.String(validate=validate.Length(min=1, max=40))
    seats = fields.List(
        fields.Nested(SeatSchema),
        required=True,
        validate=validate.Length(min=2, max=8),
        metadata={"description": "2 to 8 seats in general; how many, the game decides."},
    )
    target_score = fields.Integer(
        allow_none=True,
        validate=validate.Range(min=1, max=100_000),
        metadata={"description": "With max_deals omitted too: the game's default match."},
    )
    max_deals = fields.Integer(allow_none=True, validate=validate.Range(min=1, max=1000))
    seed = SeedField(allow_none=True)
    rules = rules_field()


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

    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class StateQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    version = fields.Integer(validate=validate.Range(min=1, max=MAX_VERSION))


class DealQuerySchema(Schema):
    """``GET /tables/{id}/deals/{k}?format=``: the history as JSON, or as a hand record."""

    class Meta:
        unknown = EXCLUDE

    format = fields.String(load_default="json", validate=validate.OneOf(["json", "text"]))


class ExportQuerySchema(Schema):
    """``GET /tables/{id}/export?reveal=true``."""

    class Meta:
        unknown = EXCLUDE

    reveal = fields.Boolean(
        load_default=False,
        truthy={"true"},
        falsy={"false"},
        metadata={
            "description": "The organiser's export of a running table includes the seed and "
            "salt (left out by default: with them anyone holding the file could deal every "
            "hand still to come). A finished table's export always includes them."
        },
    )


class ImportQuerySchema(Schema):
    """``POST /tables/import?unsigned=true``."""

    class Meta:
        unknown = EXCLUDE

    unsigned = fields.Boolean(
        load_default=False,
        truthy={"true"},
        falsy={"false"},
        metadata={
            "description": "Import a file no trusted key signed (unsigned, or signed by an "
            "untrusted key); the table's summary then says `import.signed` false."
        },
    )


class SeatSummarySchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True)
    player_id = fields.String(allow_none=True)


class ImportMarkSchema(Schema):
    signed = fields.Boolean(
        required=True, metadata={"description": "false: imported with `?unsigned=true`."}
    )
    key_id = fields.String(allow_none=True, required=True)
    at = fields.String(required=True)


class DamageSchema(Schema):
    """Where a table's stored log stops being trustworthy (``GET /tables/{id}/verify`` lists
    every problem): everything shown is the fold of the versions before it, and the table
    refuses every write (409 ``log_damaged``)."""

    version = fields.Integer(required=True, metadata={"description": "The first bad version."})
    code = fields.String(
        required=True,
        metadata={
            "description": "`broken_chain`, `missing_event`, `unreadable_event`, "
            "`undecodable_event`, `replay_failed` or `head_mismatch`."
        },
    )
    detail = fields.String(required=True)


def damaged_field() -> fields.Nested:
    return fields.Nested(
        DamageSchema,
        allow_none=True,
        required=True,
        metadata={"description": "Null, or where the stored log is damaged."},
    )


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
    salt = fields.String(
        allow_none=True,
        metadata={
            "description": "The server's 128-bit salt (32 hex digits), shown once the match "
            'ends: `seed_commitment` is SHA-256 of `"{salt}:{seed}"`; null in a table '
            "recorded before salts, whose commitment is SHA-256 of the seed."
        },
    )
    created_at = fields.String(required=True)
    damaged = damaged_field()
    imported = fields.Nested(
        ImportMarkSchema,
        data_key="import",
        allow_none=True,
        metadata={"description": "How an imported table came here; null if opened here."},
    )


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
    damaged = damaged_field()


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
    head = fields.Nested(
        SignedHeadSchema,
        required=True,
        metadata={"description": "The table's head at the time of the read, signed."},
    )


class ProblemFoundSchema(Schema):
    version = fields.Integer(required=True)
    code = fields.String(required=True)
    detail = fields.String(required=True)


class VerificationSchema(Schema):
    ok = fields.Boolean(required=True)
    events = fields.Integer(required=True)
    head = fields.String(required=True)
    problems = fields.List(fields.Nested(ProblemFoundSchema), required=True)
