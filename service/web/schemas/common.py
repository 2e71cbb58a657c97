"""Shapes shared by every route: the health report and the problem+json error."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import INCLUDE, Schema, ValidationError, fields, validate

from domain.names import clean

#: What a name may not hold, as far as a pattern can say it (``domain.names`` has the whole
#: rule): control characters (Cc), format characters (Cf: zero-width, bidirectional
#: controls, the BOM), the other default-ignorable code points (Hangul fillers, variation
#: selectors), line and paragraph separators, private use and noncharacters, all in the
#: Basic Multilingual Plane (one escape each, as every regex dialect reads them; not the
#: surrogates, which no two dialects read alike: ``invalid_name`` refuses a lone one).
_REFUSED = (
    r"\u0000-\u001f\u007f-\u009f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f"
    r"\u0890-\u0891\u08e2\u115f-\u1160\u17b4-\u17b5\u180b-\u180f\u200b-\u200f"
    r"\u2028-\u202e\u2060-\u206f\u3164\ue000-\uf8ff\ufdd0-\ufdef\ufe00-\ufe0f\ufeff"
    r"\uffa0\ufff0-\ufffb\ufffe-\uffff"
)
#: The other characters that print as nothing but space (what ``str.isspace`` and ECMAScript's
#: ``\s`` agree on, and the braille blank).
_SPACE = r"\u0020\u00a0\u1680\u2000-\u200a\u202f\u205f\u2800\u3000"
#: A name: at least one visible character, none of ``_REFUSED``. The spec publishes it as
#: the field's ``pattern`` and the server checks the same expression, so both say the same;
#: what no pattern can say (an unassigned or astral invisible character, a name longer than
#: its limit once normalised, a letter under a pile of marks) is refused as ``invalid_name``.
NAME_PATTERN = rf"^[^{_REFUSED}]*[^{_REFUSED}{_SPACE}][^{_REFUSED}]*$"
_NAME = re.compile(NAME_PATTERN.removeprefix("^").removesuffix("$"))
#: What every name field says in the spec, beside its pattern.
NAME_RULE = (
    "Stored in Unicode NFKC with one space between words and none at the ends. Refused "
    "with `invalid_name` beyond the pattern: invisible, unassigned or private-use "
    "characters, too long once normalised, no visible character. Names at one table, in "
    "one tournament or among registered players may not look alike (the same TR39 "
    "confusable skeleton, case folded): `confusable_name`."
)


class Name(fields.String):
    """A person's, player's or tournament's name, loaded as ``domain.names.clean`` writes it.

    The pattern (``NAME_PATTERN``) is a validation error like any field's; the rest of the
    name rule is the domain's refusal ``invalid_name`` (a 422 with its own code), as the
    spec cannot state it."""

    def __init__(self, max_length: int, **kwargs: Any) -> None:
        metadata = {"pattern": NAME_PATTERN, "description": NAME_RULE,
                    **kwargs.pop("metadata", {})}  # fmt: skip
        super().__init__(
            validate=validate.Length(min=1, max=max_length), metadata=metadata, **kwargs
        )
        self.max_length = max_length

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if len(text) > self.max_length:  # Length says so, without normalising 100,000 characters
            return text
        # fullmatch, not the pattern's `$`: Python's `$` would also allow a final newline.
        if not _NAME.fullmatch(text):
            raise ValidationError(
                "must be visible text, without control, format or invisible characters"
            )
        return clean(text, self.max_length)


def name_field(max_length: int, **kwargs: Any) -> Name:
    """A person's, player's or tournament's name: 1 to ``max_length`` characters
    (``domain.names``: ``MAX_PERSON``, ``MAX_TOURNAMENT``)."""
    return Name(max_length, **kwargs)


#: A player's id as the server issues it: 32 lower-case hex digits (a UUID, as every id).
PLAYER_ID_PATTERN = "^[0-9a-f]{32}$"
_PLAYER_ID = re.compile("[0-9a-f]{32}")


def _player_id(value: str) -> None:
    if not _PLAYER_ID.fullmatch(value):
        raise ValidationError("a player's id is 32 lower-case hex digits")


def player_id_field(**kwargs: Any) -> fields.String:
    """A registered player, by id (``PLAYER_ID_PATTERN``): whether one has it is the
    server's to say (``unknown_player``)."""
    return fields.String(validate=_player_id, metadata={"pattern": PLAYER_ID_PATTERN}, **kwargs)


class HealthSchema(Schema):
    """`GET /health`: whether the service and its backing services answer."""

    ok = fields.Boolean(required=True, metadata={"description": "Everything needed answers."})
    database = fields.String(required=True, validate=validate.OneOf(["ok", "down"]))
    broker = fields.String(
        required=True,
        validate=validate.OneOf(["ok", "eager", "down"]),
        metadata={"description": "`eager`: tasks run in-process (tests only)."},
    )
    jobs = fields.String(
        required=True,
        validate=validate.OneOf(["sqlite", "redis", "eager", "down"]),
        metadata={
            "description": "Where jobs run: `sqlite`, the workers `make run` starts on a "
            "SQLite broker; `redis`, workers on Redis; `eager`, inside the request. "
            "`down` while a job worker or its beat is not running (`workers` says which)."
        },
    )
    workers = fields.Dict(
        keys=fields.String(validate=validate.OneOf(["live", "simulations", "beat"])),
        values=fields.String(validate=validate.OneOf(["ok", "down"])),
        metadata={
            "description": "Without `eager`: the worker of each queue (`live`: tables in "
            "play; `simulations`) and the beat, `ok` or `down` (not heard from for three "
            "heartbeat periods, `CARDLEDGER_HEARTBEAT_SECONDS`)."
        },
    )


class SignedHeadSchema(Schema):
    """A stream's head as the server vouches for it (``service/core/signing.py``)."""

    version = fields.Integer(required=True)
    hash = fields.String(required=True)
    signature = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Base64 Ed25519 signature of the UTF-8 text "
            "`cardledger-head:v1:{stream id}:{version}:{hash}`, stored when the head was "
            "appended (an imported table's: its origin's). Null: the head carries none (a "
            "table imported unsigned)."
        },
    )
    key_id = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The key that signed it, as `GET /signing-key` names keys."},
    )


class SigningKeySchema(Schema):
    """`GET /signing-key`: the public half of the key that signs heads and exports."""

    key_id = fields.String(
        required=True, metadata={"description": "16 hex digits of SHA-256 of the raw key."}
    )
    public_key = fields.String(
        required=True, metadata={"description": "The raw 32-byte Ed25519 public key, base64."}
    )


class ProblemSchema(Schema):
    """RFC 9457 problem details, plus our stable `code` and, for 422, per-field `errors`."""

    class Meta:
        unknown = INCLUDE  # RFC 9457 allows extension members (e.g. a conflict's `current`)

    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "Stable machine-readable word."})
    errors = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.String()),
        metadata={"description": "Validation messages by field (422 only)."},
    )
