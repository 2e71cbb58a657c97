"""Request and response shapes of the jobs routes (``docs/api.md``, Bots and jobs)."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from domain.bots import BOT_NAMES
from service.web.schemas.options import rules_field
from service.web.schemas.tables import GAMES, SeedField

#: Bounds that keep one simulation a reasonable job (its number of matches is bounded by
#: the server's configuration: ``Config.max_simulation_matches``, 422 ``too_large``).
MAX_TARGET = 1_000
MAX_DEALS = 100


class SimulationCreateSchema(Schema):
    """``POST /simulations``: bots per seat, how many matches, and the seed."""

    class Meta:
        unknown = RAISE

    game = fields.String(required=True, validate=validate.OneOf(GAMES))
    variant = fields.String(validate=validate.Length(min=1, max=40))
    seats = fields.List(
        fields.String(validate=validate.OneOf(BOT_NAMES)),
        required=True,
        validate=validate.Length(min=2, max=8),
        metadata={"description": "The bot of each seat, by name."},
    )
    matches = fields.Integer(
        required=True,
        validate=validate.Range(min=1),
        metadata={
            "description": "At most the server's `CARDLEDGER_MAX_SIMULATION_MATCHES` "
            "(10000 unless configured), else 422 `too_large`."
        },
    )
    seed = SeedField(
        required=True,
        metadata={"description": "Match i is seeded from this and i."},
    )
    target_score = fields.Integer(
        allow_none=True,
        validate=validate.Range(min=1, max=MAX_TARGET),
        metadata={"description": "With max_deals omitted too: the game's default match."},
    )
    max_deals = fields.Integer(allow_none=True, validate=validate.Range(min=1, max=MAX_DEALS))
    rules = rules_field(common=False)


class JobCreatedSchema(Schema):
    job = fields.String(required=True, metadata={"description": "Poll GET /jobs/{job}."})


class ProgressSchema(Schema):
    done = fields.Integer(required=True, metadata={"description": "Matches or bot moves done."})
    total = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "Matches to play; autoplay: unknown (null) until done."},
    )


class JobSchema(Schema):
    """``GET /jobs/{job}``. ``result``: a simulation's per-seat summary (``seats``) or
    what an autoplay did (``moves``, ``version``, ``stopped`` …)."""

    id = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(["autoplay", "simulation"]))
    state = fields.String(
        required=True,
        validate=validate.OneOf(["queued", "running", "done", "failed", "cancelled"]),
        metadata={"description": "`cancelled`: by `DELETE /jobs/{job}`; it stays so."},
    )
    progress = fields.Nested(ProgressSchema, required=True)
    result = fields.Dict(required=True, allow_none=True)
    error = fields.String(required=True, allow_none=True)
    table = fields.String(allow_none=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)
