"""Audit routes: a deal's history, verification, export and import (``api.md``, Audit)."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from domain.audit import deal_history, deal_text
from domain.table import ORGANISER
from service.api.tables import SCHEMAS, created_body, summary
from service.audit import BadExport, RawRow, check, export_lines, parse_export
from service.auth import issue_seat_tokens, require_organiser, viewer_of
from service.commands import table_logs
from service.db import get_database
from service.errors import ApiError
from service.eventstore import EventStore, StoredEvent
from service.models import events, streams

blueprint = Blueprint("audit", __name__)


@blueprint.get("/tables/<id:table_id>/deals/<int:deal>")
def get_deal(table_id: str, deal: int) -> Any:
    """A deal's history: who did what and when, with each seat's legal alternatives.
    ---
    get:
      summary: Deal history
      operationId: getDeal
      tags: [audit]
      security: [{}, {bearer: []}]
      parameters:
        - {in: path, name: table_id, required: true, schema: {type: string}}
        - {in: path, name: deal, required: true, schema: {type: integer, minimum: 1}}
        - {in: query, name: format, required: false, schema: {type: string, enum: [json, text]}}
      responses:
        "200":
          description: The dealt cards (once scored, or to the organiser), every event in
            order, the tricks and the score lines; `?format=text` gives a hand record.
          content:
            application/json:
              schema: DealHistory
            text/plain:
              schema: {type: string}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    form = request.args.get("format", "json")
    if form not in ("json", "text"):
        raise ApiError(422, "validation_error", "format is json or text",
                       extra={"errors": {"format": ["must be json or text"]}})  # fmt: skip
    with get_database().reading() as connection:
        viewer = viewer_of(connection, table_id)
        log = table_logs().load(connection, table_id)
    actors = [row.actor for row in log.rows[1:]]
    history = deal_history(log.opened, log.events[1:], deal, viewer, actors)
    if history is None:
        raise ApiError(404, "not_found", f"table {table_id} has no deal {deal}")
    if form == "text":
        return Response(deal_text(table_id, history), mimetype="text/plain")
    return SCHEMAS.DealHistorySchema.dump({"table": table_id, **history})


def _raw_rows(table_id: str) -> tuple[list[RawRow], tuple[int, str]]:
    """The stored rows exactly as kept, and the stream's recorded head."""
    with get_database().reading() as connection:
        found = connection.execute(
            select(streams.c.kind, streams.c.version, streams.c.head).where(
                streams.c.id == table_id
            )
        ).first()
        if found is None or found.kind != "table":
            raise ApiError(404, "not_found", f"there is no table {table_id}")
        query = select(events).where(events.c.stream == table_id).order_by(events.c.version)
        return [
            RawRow(r.version, r.type, r.schema, r.data, r.recorded_at, r.hash, r.actor)
            for r in connection.execute(query)
        ], (found.version, found.head)


@blueprint.get("/tables/<id:table_id>/verify")
def verify(table_id: str) -> Any:
    """Re-check the hash chain of the stored rows and replay the log through the engine.
    ---
    get:
      summary: Verify a table's log (organiser)
      operationId: verifyTable
      tags: [audit]
      parameters:
        - {in: path, name: table_id, required: true, schema: {type: string}}
      responses:
        "200":
          description: Whether the log is intact and accepted by the engine, with every
            problem found.
          content:
            application/json:
              schema: Verification
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
    """
    require_organiser()
    rows, head = _raw_rows(table_id)
    return SCHEMAS.VerificationSchema.dump(check(table_id, rows, head).as_dict())


@blueprint.get("/tables/<id:table_id>/export")
def export(table_id: str) -> Response:
    """The log as JSON Lines: a header, then every event with its hash.
    ---
    get:
      summary: Export a table's log
      operationId: exportTable
      tags: [audit]
      security: [{}, {bearer: []}]
      parameters:
        - {in: path, name: table_id, required: true, schema: {type: string}}
      responses:
        "200":
          description: JSON Lines (organiser; anyone once the match has ended and every
            card is public).
          content:
            application/x-ndjson:
              schema: {type: string}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
    """
    with get_database().reading() as connection:
        viewer = viewer_of(connection, table_id)
        log = table_logs().load(connection, table_id)
    if viewer != ORGANISER and summary(log)["status"] != "finished":
        raise ApiError(403, "forbidden", "until the match ends only the organiser may export")
    rows, _ = _raw_rows(table_id)
    opened = log.opened
    try:
        text = "".join(export_lines(table_id, opened.game, opened.variant, rows))
    except ValueError as error:
        raise ApiError(
            503, "unreadable_log", f"a stored row of table {table_id} is not JSON: {error}"
        ) from None
    return Response(
        text,
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="table-{table_id}.jsonl"'},
    )


@blueprint.post("/tables/import")
def import_table() -> tuple[dict[str, Any], int]:
    """Re-create a table from an export after verifying its chain and replaying it.
    ---
    post:
      summary: Import a table (organiser)
      operationId: importTable
      tags: [audit]
      requestBody:
        required: true
        content:
          application/x-ndjson:
            schema: {type: string}
      responses:
        "201":
          description: The table, under its original id, with new seat tokens.
          content:
            application/json:
              schema: TableCreated
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "409": {$ref: "#/components/responses/Conflict"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    require_organiser()
    try:
        text = request.get_data(as_text=True)
        header, rows = parse_export(text)
    except (BadExport, UnicodeDecodeError) as bad:
        line = bad.line if isinstance(bad, BadExport) else 1
        detail = bad.detail if isinstance(bad, BadExport) else "the file is not UTF-8 text"
        raise ApiError(422, "import_rejected", detail, extra={"line": line}) from None
    table_id = header["id"]
    report = check(table_id, rows)
    if not report.ok:
        first = report.problems[0]
        raise ApiError(
            422,
            "import_rejected",
            f"line {first.version + 1}: {first.detail}",
            extra={"line": first.version + 1, "problems": [p.as_dict() for p in report.problems]},
        )
    stored = [
        StoredEvent(
            table_id,
            r.version,
            r.type,
            r.schema,
            json.loads(r.data),
            r.recorded_at,
            r.hash,
            r.actor,
        )
        for r in rows
    ]
    try:
        with get_database().writing() as connection:
            EventStore(connection).restore(table_id, "table", stored)
            log = table_logs().load(connection, table_id)
            humans = (s for s, seat in enumerate(log.opened.seats) if not seat.get("bot"))
            tokens = issue_seat_tokens(connection, table_id, humans)
    except IntegrityError:
        raise ApiError(409, "table_exists", f"table {table_id} is already here") from None
    return SCHEMAS.TableCreatedSchema.dump(created_body(log, tokens)), 201
