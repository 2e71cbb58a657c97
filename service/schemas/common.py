"""Shapes shared by every route: the health report and the problem+json error."""

from __future__ import annotations

from marshmallow import INCLUDE, Schema, fields, validate


class HealthSchema(Schema):
    """`GET /health`: whether the service and its backing services answer."""

    ok = fields.Boolean(required=True, metadata={"description": "Everything needed answers."})
    database = fields.String(required=True, validate=validate.OneOf(["ok", "down"]))
    broker = fields.String(
        required=True,
        validate=validate.OneOf(["ok", "eager", "down"]),
        metadata={"description": "`eager`: no REDIS_URL, tasks run in-process."},
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
