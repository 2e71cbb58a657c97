"""Headers a route reads: ``POST /tables/{id}/actions``'s ``If-Match`` and
``Idempotency-Key`` (``docs/api.md``, Acting at a table)."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate
from werkzeug.http import parse_etags

from service.web.problems import ApiError

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
