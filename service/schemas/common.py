"""Shapes shared by every route: the health report and the problem+json error."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import INCLUDE, Schema, ValidationError, fields, validate

#: Unicode's control characters (category Cc): never part of a name.
_CONTROL = r"\u0000-\u001f\u007f-\u009f"
#: The other characters that print as nothing but space (what ``str.isspace`` and ECMAScript's
#: ``\s`` agree on, spelled out so the pattern means the same in every regex dialect).
_SPACE = r"\u0020\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
#: A name: printable text with at least one visible character. The spec publishes it as the
#: field's ``pattern`` and the server checks the same expression, so both say the same.
NAME_PATTERN = rf"^[^{_CONTROL}]*[^{_CONTROL}{_SPACE}][^{_CONTROL}]*$"
_NAME = re.compile(NAME_PATTERN.removeprefix("^").removesuffix("$"))


def _printable(value: str) -> None:
    # fullmatch, not the pattern's `$`: Python's `$` would also allow a final newline.
    if not _NAME.fullmatch(value):
        raise ValidationError("must be printable text, not blank, without control characters")


def name_field(max_length: int, **kwargs: Any) -> fields.String:
    """A person's, player's or tournament's name: 1 to ``max_length`` characters of
    printable text (``NAME_PATTERN``)."""
    metadata = {"pattern": NAME_PATTERN, **kwargs.pop("metadata", {})}
    return fields.String(
        validate=[validate.Length(min=1, max=max_length), _printable], metadata=metadata, **kwargs
    )


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
    """A stream's head as the server vouches for it (``service/signing.py``)."""

    version = fields.Integer(required=True)
    hash = fields.String(required=True)
    signature = fields.String(
        required=True,
        metadata={
            "description": "Base64 Ed25519 signature of the UTF-8 text "
            "`cardledger-head:v1:{stream id}:{version}:{hash}`."
        },
    )
    key_id = fields.String(required=True, metadata={"description": "As `GET /signing-key`."})


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
