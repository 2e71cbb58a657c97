"""Audit routes: a deal's history, verification, export and import, and the key that signs
heads (``api.md``, Audit, Signatures)."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from domain.audit import deal_history, deal_text
from domain.table import ORGANISER
from service.api.tables import SCHEMAS, created_body, summary
from service.audit import BadExport, RawRow, check, check_signature, export_lines, parse_export
from service.auth import issue_seat_tokens, require_organiser, viewer_of
from service.commands import table_logs
from service.db import get_database
from service.errors import ApiError
from service.eventstore import EventStore, StoredEvent
from service.imports import record_import
from service.jsonbody import MAX_IMPORT_BODY
from service.models import events, streams
from service.projections import project_opened_table
from service.schemas.common import SigningKeySchema
from service.signing import SignedHead, keyring

blueprint = Blueprint("audit", __name__)

#: What an organiser can do about each refused signature (``POST /tables/import``).
SIGNATURE_ADVICE = {
    "unsigned_export": "import it marked unsigned with ?unsigned=true if you trust its source",
    "untrusted_key": "add the exporting server's public key (its GET /signing-key) to "
    "CARDLEDGER_TRUSTED_KEYS, or import it marked unsigned with ?unsigned=true",
    "bad_signature": "a file whose signature fails is refused even with ?unsigned=true",
}


@blueprint.get("/signing-key")
def get_signing_key() -> dict[str, Any]:
    """The public key this server signs heads with, to check its exports and pages offline.
    ---
    get:
      summary: The server's signing key
      operationId: getSigningKey
      tags: [audit]
      security: []
      responses:
        "200":
          description: The raw Ed25519 public key (base64) and its key id. A signature
            covers the UTF-8 text `cardledger-head:v1:{stream id}:{version}:{head hash}`.
          content:
            application/json:
              schema: SigningKey
    """
    signer = keyring().signer
    return SigningKeySchema().dump({"key_id": signer.key_id, "public_key": signer.public_key})


def sign_stream_head(stream: str, version: int) -> SignedHead:
    """The stream's hash at ``version``, signed: the head a projection read at that version
    (standings) reflects, whatever was appended since."""
    with get_database().reading() as connection:
        found = connection.scalar(
            select(events.c.hash).where(events.c.stream == stream, events.c.version == version)
        )
    if found is None:
        raise ApiError(503, "unreadable_log", f"stream {stream} has no version {version}")
    return keyring().signer.sign_head(stream, version, found)


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
    head = keyring().signer.sign_head(table_id, log.version, log.rows[-1].hash)
    if form == "text":
        signed = (
            f"Head: version {head.version}, hash {head.hash}\n"
            f"Signed (Ed25519, key {head.key_id}): {head.signature}\n"
        )
        return Response(deal_text(table_id, history) + "\n" + signed, mimetype="text/plain")
    return SCHEMAS.DealHistorySchema.dump({"table": table_id, **history, "head": head.as_dict()})


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
    rows, (version, head) = _raw_rows(table_id)
    opened = log.opened
    signed = keyring().signer.sign_head(table_id, version, head)  # the head as recorded
    try:
        text = "".join(export_lines(table_id, opened.game, opened.variant, rows, signed))
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
    """Re-create a table from an export after verifying its chain, replaying it and checking
    that a trusted key signed its head.
    ---
    post:
      summary: Import a table (organiser)
      operationId: importTable
      tags: [audit]
      parameters:
        - in: query
          name: unsigned
          required: false
          schema: {type: boolean, default: false}
          description: Import a file no trusted key signed (unsigned, or signed by an
            untrusted key); the table's summary then says `import.signed` false.
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
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "409": {$ref: "#/components/responses/Conflict"}
        "422":
          description: The file is not a valid log (`import_rejected`, with its first bad
            `line`), or no trusted key vouches for it (`unsigned_export`, `untrusted_key`,
            `bad_signature`).
          content:
            application/problem+json:
              schema: Problem
    """
    require_organiser()
    request.max_content_length = MAX_IMPORT_BODY  # a whole log: more than a JSON body
    unsigned = _unsigned_flag()
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
    fault = check_signature(header, keyring().trusted)
    if fault is not None and (fault.code == "bad_signature" or not unsigned):
        detail = f"{fault.detail}: {SIGNATURE_ADVICE[fault.code]}"
        raise ApiError(422, fault.code, detail, extra={"line": 1})
    signer = None if fault else header["key_id"]
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
            record_import(connection, table_id, signer)
            log = table_logs().load(connection, table_id)
            project_opened_table(connection, log)  # its summary; a bot to move: the sweep's
            humans = (s for s, seat in enumerate(log.opened.seats) if not seat.get("bot"))
            tokens = issue_seat_tokens(connection, table_id, humans)
    except IntegrityError:
        raise ApiError(409, "table_exists", f"table {table_id} is already here") from None
    return SCHEMAS.TableCreatedSchema.dump(created_body(log, tokens)), 201


def _unsigned_flag() -> bool:
    """``?unsigned=true``: the organiser explicitly accepts a file no trusted key signed."""
    value = request.args.get("unsigned", "false").lower()
    if value not in ("true", "false"):
        raise ApiError(422, "validation_error", "unsigned is true or false",
                       extra={"errors": {"unsigned": ["must be true or false"]}})  # fmt: skip
    return value == "true"
