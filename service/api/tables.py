"""Tables: open one, act at it, read it (``api.md``, Tables)."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, request

from service.auth import require_organiser, require_player, viewer_of
from service.commands import act, commitment, create_table, table_logs, visible_rows
from service.db import get_database
from service.errors import ApiError
from service.imports import import_mark
from service.schemas.tables import (
    ActionResultSchema,
    ActionSchema,
    DealHistorySchema,
    EventPageSchema,
    EventQuerySchema,
    StateQuerySchema,
    TableCreatedSchema,
    TableCreateSchema,
    TableSummarySchema,
    VerificationSchema,
)
from service.tablelog import TableLog

blueprint = Blueprint("tables", __name__)


class SCHEMAS:
    """One instance each: building a marshmallow schema costs more than using it."""

    ActionResultSchema = ActionResultSchema()
    ActionSchema = ActionSchema()
    EventPageSchema = EventPageSchema()
    EventQuerySchema = EventQuerySchema()
    StateQuerySchema = StateQuerySchema()
    TableCreatedSchema = TableCreatedSchema()
    TableCreateSchema = TableCreateSchema()
    TableSummarySchema = TableSummarySchema()
    DealHistorySchema = DealHistorySchema()
    VerificationSchema = VerificationSchema()


def json_body() -> Any:
    """The request's JSON object; text that cannot be stored as UTF-8 JSON (a lone
    surrogate, NaN) is refused here rather than deep in the hash chain."""
    body = request.get_json(force=True)  # JSON whatever the Content-Type says
    try:
        json.dumps(body, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (ValueError, UnicodeEncodeError) as error:
        raise ApiError(400, "malformed_json", f"the body is not storable JSON: {error}") from None
    if not isinstance(body, dict):
        raise ApiError(
            422,
            "validation_error",
            "the body must be a JSON object",
            extra={"errors": {"_schema": ["the body must be a JSON object"]}},
        )
    return body


@blueprint.post("/tables")
def open_table() -> tuple[dict[str, Any], int]:
    """Open a table (organiser).
    ---
    post:
      summary: Open a table
      operationId: createTable
      tags: [tables]
      requestBody:
        required: true
        content:
          application/json:
            schema: TableCreate
      responses:
        "201":
          description: The table, with one token per human seat (shown only now).
          content:
            application/json:
              schema: TableCreated
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    require_organiser()
    spec = SCHEMAS.TableCreateSchema.load(json_body())
    created = create_table(spec)
    return SCHEMAS.TableCreatedSchema.dump(created_body(created.log, created.tokens)), 201


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


def _expected_version() -> int | None:
    header = request.headers.get("If-Match")
    if header is None:
        return None
    text = header.strip().removeprefix("W/").strip('"')
    if not (text.isascii() and text.isdigit() and len(text) < 10):
        raise ApiError(
            400, "bad_if_match", 'If-Match takes the expected version in quotes: If-Match: "12"'
        )
    return int(text)


@blueprint.post("/tables/<id:table_id>/actions")
def post_action(table_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Take an action at a table (the organiser for any seat, a seat token for its seat).
    ---
    post:
      summary: Record an action
      operationId: postAction
      tags: [tables]
      parameters:
        - {in: path, name: table_id, required: true, schema: {type: string}}
        - in: header
          name: If-Match
          required: false
          schema: {type: string, pattern: '^(W/)?"?[0-9]{1,9}"?$'}
          description: The expected current version, in quotes.
        - in: header
          name: Idempotency-Key
          required: false
          schema: {type: string, minLength: 1, maxLength: 200}
      requestBody:
        required: true
        content:
          application/json:
            schema: Action
      responses:
        "201":
          description: The new version and the events appended, as the caller may see them.
          content:
            application/json:
              schema: ActionResult
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "409": {$ref: "#/components/responses/Conflict"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    # who asks is settled before a byte of the body is read: a forged token costs nothing
    viewer = require_player(table_id, "acting at a table needs a seat or organiser token")
    body = json_body()
    SCHEMAS.ActionSchema.load(body)  # shape and types; the engine judges cards and rules
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= 200:
        raise ApiError(400, "bad_idempotency_key", "an Idempotency-Key has 1 to 200 characters")
    accepted = act(table_id, body, viewer, _expected_version(), key)
    return (
        SCHEMAS.ActionResultSchema.dump(accepted.body),
        accepted.status,
        {"ETag": f'"{accepted.body["version"]}"'},
    )


def _read(table_id: str) -> tuple[TableLog, Any]:
    with get_database().reading() as connection:
        viewer = viewer_of(connection, table_id)
        log = table_logs().load(connection, table_id)
    return log, viewer


def summary(log: TableLog) -> dict[str, Any]:
    opened, state = log.opened, log.state
    shown = log.rules.view(state, None)
    finished = shown["status"] == "finished"
    return {
        "id": log.id,
        "game": opened.game,
        "variant": opened.variant,
        "status": shown["status"],
        "version": log.version,
        "deal": shown["deal"],
        "seats": [{"seat": s, **seat} for s, seat in enumerate(opened.seats)],
        "totals": shown["totals"],
        "ranking": shown["ranking"],
        "target_score": opened.target_score,
        "max_deals": opened.max_deals,
        "seed_commitment": commitment(opened),
        "seed": opened.seed if finished else None,
        "salt": opened.salt if finished else None,
        "created_at": log.rows[0].recorded_at,
        "damaged": damaged_field(log),
    }


def damaged_field(log: TableLog) -> dict[str, Any] | None:
    """``damaged``: null, or where the stored log stops being trustworthy (what is shown
    is the fold of the versions before it)."""
    return log.damage.as_dict() if log.damage is not None else None


@blueprint.get("/tables/<id:table_id>")
def get_table(table_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """A table's summary (anyone).
    ---
    get:
      summary: Table summary
      operationId: getTable
      tags: [tables]
      security: [{}, {bearer: []}]
      parameters:
        - {in: path, name: table_id, required: true, schema: {type: string}}
      responses:
        "200":
          description: Status, seats, totals and ranking; the seed and salt once the match
            ended.
          content:
            application/json:
              schema: TableSummary
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
    """
    log, _ = _read(table_id)
    with get_database().reading() as connection:
        imported = import_mark(connection, table_id)  # beside the log, never in it
    body = SCHEMAS.TableSummarySchema.dump({**summary(log), "imported": imported})
    return body, 200, {"ETag": f'"{log.version}"'}


@blueprint.get("/tables/<id:table_id>/state")
def get_state(table_id: str) -> tuple[dict[str, Any], int]:
    """The state as the caller may see it, now or at an earlier version.
    ---
    get:
      summary: Table state
      operationId: getState
      tags: [tables]
      security: [{}, {bearer: []}]
      parameters:
        - {in: path, name: table_id, required: true, schema: {type: string}}
        - {in: query, name: version, required: false,
           schema: {type: integer, minimum: 1, maximum: 2147483647}}
      responses:
        "200":
          description: The state at that version, redacted for the caller.
          content:
            application/json:
              schema: State
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    query = SCHEMAS.StateQuerySchema.load(request.args.to_dict())
    log, viewer = _read(table_id)
    version = query.get("version", log.version)
    if version > log.version:
        raise ApiError(404, "not_found", f"table {table_id} has no version {version} yet")
    shown = log.rules.view(log.state_at(version), viewer)
    return {"version": version, **shown, "damaged": damaged_field(log)}, 200


@blueprint.get("/tables/<id:table_id>/events")
def get_events(table_id: str) -> tuple[dict[str, Any], int]:
    """The event log in version order, hidden fields redacted for the caller.
    ---
    get:
      summary: Table events
      operationId: getEvents
      tags: [tables]
      security: [{}, {bearer: []}]
      parameters:
        - {in: path, name: table_id, required: true, schema: {type: string}}
        - {in: query, name: after, required: false,
           schema: {type: integer, minimum: 0, maximum: 2147483647}}
        - {in: query, name: limit, required: false,
           schema: {type: integer, minimum: 1, maximum: 1000}}
      responses:
        "200":
          description: Up to `limit` events after version `after`; `next` pages on.
          content:
            application/json:
              schema: EventPage
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    query = SCHEMAS.EventQuerySchema.load(request.args.to_dict())
    log, viewer = _read(table_id)
    after, limit = query["after"], query["limit"]
    rows = visible_rows(log, viewer, after, limit) if after < log.version else []
    following = after + limit if after + limit < log.version else None
    return SCHEMAS.EventPageSchema.dump({"events": rows, "next": following}), 200
