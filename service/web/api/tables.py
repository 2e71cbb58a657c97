"""Tables: open one, act at it, read it (``docs/api.md``, Tables)."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from service.application.listings import public_table
from service.application.tables import act, commitment, create_table, table_logs, visible_rows
from service.storage.db import get_database
from service.storage.import_marks import import_mark
from service.storage.tablelog import TableLog
from service.web.api.base import TOKEN_OPTIONAL, Blueprint, organiser_only, seat_or_organiser
from service.web.auth import Viewer, viewer_of
from service.web.problems import ApiError
from service.web.schemas.actions import ActionSchema
from service.web.schemas.headers import ActionHeadersSchema
from service.web.schemas.tables import (
    ActionResultSchema,
    EventPageSchema,
    EventQuerySchema,
    StateQuerySchema,
    StateSchema,
    TableCreatedSchema,
    TableCreateSchema,
    TableSummarySchema,
)

blp = Blueprint("tables", __name__, description="Open a table, act at it, read it.")


@blp.post("/tables", operation_id="createTable")
@organiser_only
@blp.arguments(TableCreateSchema())
@blp.response(
    201,
    TableCreatedSchema,
    description="The table, with one token per human seat (shown only now).",
)
@blp.problems(400, 401, 403, 422)
def open_table(spec: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Open a table (organiser)"""
    created = create_table(spec)
    return created_body(created.log, created.tokens), 201


def created_body(log: TableLog, tokens: dict[int, str]) -> dict[str, Any]:
    """A new (or imported) table with its seat tokens, shown this once."""
    opened = log.opened
    return {
        "id": log.id,
        "version": log.version,
        "game": opened.game,
        "variant": opened.variant,
        "seats": [
            {"seat": s, **seat, "token": tokens.get(s)} for s, seat in enumerate(opened.seats)
        ],
        "seed_commitment": commitment(opened),
    }


@blp.post("/tables/<id:table_id>/actions", operation_id="postAction")
@seat_or_organiser("acting at a table needs a seat or organiser token")
@blp.arguments(ActionHeadersSchema(), location="headers")
@blp.arguments(ActionSchema())  # shape and types; the engine judges cards and rules
@blp.response(
    201,
    ActionResultSchema,
    description="The new version and the events appended, as the caller may see them.",
)
@blp.problems(400, 401, 403, 404, 409, 422)
def post_action(
    headers: dict[str, Any], action: dict[str, Any], table_id: str, viewer: Viewer
) -> tuple[Response, int, dict[str, str]]:
    """Record an action

    The organiser may act for any seat, a seat's token for its own seat.
    """
    accepted = act(
        table_id, action, viewer, headers.get("expected"), headers.get("idempotency_key")
    )
    # the body is the schema's already (``visible_rows``): answered as it is, not dumped again
    answer = jsonify(accepted.body)
    return answer, accepted.status, {"ETag": f'"{accepted.body["version"]}"'}


def _read(table_id: str) -> tuple[TableLog, Any]:
    with get_database().reading() as connection:
        viewer = viewer_of(connection, table_id)
        log = table_logs().load(connection, table_id)
    return log, viewer


def summary(log: TableLog) -> dict[str, Any]:
    shown = log.rules.view(log.state, None)
    created_at = log.rows[0].recorded_at
    return {
        **public_table(log.id, log.opened, shown, log.version, created_at),
        "damaged": damaged_field(log),
    }


def damaged_field(log: TableLog) -> dict[str, Any] | None:
    """``damaged``: null, or where the stored log stops being trustworthy (what is shown
    is the fold of the versions before it)."""
    return log.damage.as_dict() if log.damage is not None else None


@blp.get("/tables/<id:table_id>", operation_id="getTable", security=TOKEN_OPTIONAL)
@blp.response(
    200,
    TableSummarySchema,
    description="Status, seats, totals and ranking; the seed and salt once the match ended.",
)
@blp.problems(401, 404)
def get_table(table_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Table summary"""
    log, _ = _read(table_id)
    with get_database().reading() as connection:
        imported = import_mark(connection, table_id)  # beside the log, never in it
    return {**summary(log), "imported": imported}, 200, {"ETag": f'"{log.version}"'}


@blp.get("/tables/<id:table_id>/state", operation_id="getState", security=TOKEN_OPTIONAL)
@blp.arguments(StateQuerySchema(), location="query")
@blp.alt_response(  # documented, not dumped: the view carries what its game shows
    200,
    schema=StateSchema,
    description="The state at that version, redacted for the caller.",
    success=True,
)
@blp.problems(401, 404, 422)
def get_state(query: dict[str, Any], table_id: str) -> tuple[dict[str, Any], int]:
    """Table state

    The state as the caller may see it, now or at an earlier version.
    """
    log, viewer = _read(table_id)
    version = query.get("version", log.version)
    if version > log.version:
        raise ApiError(404, "not_found", f"table {table_id} has no version {version} yet")
    shown = log.rules.view(log.state_at(version), viewer)
    return {"version": version, **shown, "damaged": damaged_field(log)}, 200


@blp.get("/tables/<id:table_id>/events", operation_id="getEvents", security=TOKEN_OPTIONAL)
@blp.arguments(EventQuerySchema(), location="query")
@blp.response(
    200, EventPageSchema, description="Up to `limit` events after version `after`; `next` pages on."
)
@blp.problems(401, 404, 422)
def get_events(query: dict[str, Any], table_id: str) -> tuple[dict[str, Any], int]:
    """Table events

    The event log in version order, hidden fields redacted for the caller.
    """
    log, viewer = _read(table_id)
    after, limit = query["after"], query["limit"]
    rows = visible_rows(log, viewer, after, limit) if after < log.version else []
    following = after + limit if after + limit < log.version else None
    return {"events": rows, "next": following}, 200
