"""Request and response shapes of the tables routes (``docs/api.md``, Tables)."""

from __future__ import annotations

import re
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
from werkzeug.http import parse_etags

from domain.bots import BOT_NAMES
from domain.errors import RuleViolation
from domain.games import SPECS
from domain.names import MAX_PERSON
from domain.rulings import MAX_POINTS, MAX_REASON
from service.web.problems import ApiError
from service.web.schemas.common import SignedHeadSchema, name_field, player_id_field

GAMES = tuple(SPECS)
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


#: Seats, positions and counts are small numbers: the schema refuses absurd ones, the engine
#: those its rules do not allow (``unknown_seat``, ``invalid_position`` …).
SMALL_NUMBER = validate.Range(min=-1000, max=1000)
#: The highest version a query may name (a version is a PostgreSQL ``integer``).
MAX_VERSION = 2**31 - 1
#: A rule option's value (``rules/*.md``) is a flag, a word or a modest number.
MAX_OPTION_NUMBER = 10_000
MAX_OPTION_TEXT = 40


class OptionValue(fields.Field):
    """A rule option's value, within bounds; which options a game takes, with which values,
    is the engine's to say (``unknown_option``, ``invalid_option``)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault(
            "metadata",
            {
                "oneOf": [
                    {"type": "boolean"},
                    {
                        "type": "integer",
                        "minimum": -MAX_OPTION_NUMBER,
                        "maximum": MAX_OPTION_NUMBER,
                    },
                    {"type": "string", "maxLength": MAX_OPTION_TEXT},
                ]
            },
        )
        super().__init__(**kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and abs(value) <= MAX_OPTION_NUMBER:
            return value
        if isinstance(value, str) and len(value) <= MAX_OPTION_TEXT:
            return value
        raise ValidationError(
            f"a rule option is true or false, a whole number from -{MAX_OPTION_NUMBER} to "
            f"{MAX_OPTION_NUMBER} or a word of at most {MAX_OPTION_TEXT} characters"
        )


def _option_name(name: str) -> None:
    """No game has an option with an empty or a longer name: refused as the engine refuses
    any name it does not know, ``unknown_option`` (OpenAPI 3.0 cannot bound a key, so the
    spec could not call this a validation error)."""
    if not 1 <= len(name) <= MAX_OPTION_TEXT:
        shown = name[:MAX_OPTION_TEXT]
        raise RuleViolation("unknown_option", f"no game has a rule option named {shown!r}")


def rules_field(**kwargs: Any) -> fields.Dict:
    """``rules``: the game's options by name (``rules/*.md``), bounded."""
    return fields.Dict(
        keys=fields.String(validate=_option_name),
        values=OptionValue(),
        load_default=dict,
        **kwargs,
    )


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


class CardField(fields.Raw):
    """A card in the game's notation (``docs/rules/common.md``): an integer or a string."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("metadata", {"oneOf": [{"type": "integer"}, {"type": "string"}]})
        super().__init__(**kwargs)


class ActionSchema(Schema):
    """``POST /tables/{id}/actions``: one action; its shape per game is in ``docs/api.md``.

    Types are checked here; cards and the game's rules are checked by the engine.
    """

    class Meta:
        unknown = RAISE

    type = fields.String(required=True, validate=validate.OneOf(ACTION_TYPES))
    seat = fields.Integer(strict=True, validate=SMALL_NUMBER)
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
    from_ = fields.String(data_key="from", attribute="from")  # loads as the engine reads it
    position = fields.Integer(strict=True, validate=SMALL_NUMBER)
    count = fields.Integer(strict=True, validate=SMALL_NUMBER)
    keep = CardField()
    points = fields.Integer(
        strict=True,
        validate=validate.Range(min=-MAX_POINTS, max=MAX_POINTS),
        metadata={"description": "A ruling's points (or chips), other than 0."},
    )
    reason = fields.String(validate=validate.Length(min=1, max=MAX_REASON))


#: ``If-Match``: the version the client expects, as an entity tag (quoted, maybe weak).
IF_MATCH_PATTERN = r'^([Ww]/)?("[0-9]{1,9}"|[0-9]{1,9})$'
_IF_MATCH = re.compile(IF_MATCH_PATTERN)
MAX_IDEMPOTENCY_KEY = 200


class Header(fields.String):
    """A header's value: one its route cannot take makes the request malformed, a 400 with
    its own ``code`` (not a 422 of the body's fields)."""

    def __init__(self, code: str, detail: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.code, self.detail = code, detail

    def deserialize(
        self, value: Any, attr: str | None = None, data: Any = None, **kwargs: Any
    ) -> Any:
        try:
            return super().deserialize(value, attr, data, **kwargs)
        except ValidationError:
            raise ApiError(400, self.code, self.detail) from None


class ExpectedVersion(Header):
    """``If-Match: "12"``, read by werkzeug's entity-tag parser (as ``request.if_match``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        text = super()._deserialize(value, attr, data, **kwargs)
        if not _IF_MATCH.fullmatch(text):
            raise ValidationError("not a version")
        (tag,) = parse_etags(text).as_set(include_weak=True)
        return int(tag)


class ActionHeadersSchema(Schema):
    """``POST /tables/{id}/actions``: the optional ``If-Match`` and ``Idempotency-Key``."""

    class Meta:
        unknown = EXCLUDE  # every other header

    expected = ExpectedVersion(
        "bad_if_match",
        'If-Match takes the expected version in quotes: If-Match: "12"',
        data_key="If-Match",
        metadata={
            "pattern": IF_MATCH_PATTERN,
            "description": "The expected current version, in quotes.",
        },
    )
    idempotency_key = Header(
        "bad_idempotency_key",
        f"an Idempotency-Key has 1 to {MAX_IDEMPOTENCY_KEY} characters",
        data_key="Idempotency-Key",
        validate=validate.Length(min=1, max=MAX_IDEMPOTENCY_KEY),
    )


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
