"""Audit routes: a deal's history, verification, export and import, and the key that signs
heads (``api.md``, Audit, Signatures)."""

from __future__ import annotations

import json
from typing import Any

from flask import Response, request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from domain.audit import deal_history, deal_text
from domain.table import ORGANISER
from service.api.base import NO_TOKEN, TOKEN_OPTIONAL, Blueprint, organiser_only
from service.api.tables import created_body, summary
from service.audit import (
    BadExport,
    RawRow,
    check,
    check_signature,
    export_lines,
    parse_export,
    stored_rows,
)
from service.auth import issue_seat_tokens, viewer_of
from service.commands import table_logs
from service.db import get_database
from service.errors import ApiError
from service.eventstore import EventStore, StoredEvent
from service.imports import record_import
from service.jsonbody import MAX_IMPORT_BODY
from service.models import events
from service.projections import project_opened_table
from service.schemas.common import ProblemSchema, SigningKeySchema
from service.schemas.tables import (
    DealHistorySchema,
    DealQuerySchema,
    ImportQuerySchema,
    TableCreatedSchema,
    VerificationSchema,
)
from service.signing import SignedHead, keyring

blp = Blueprint("audit", __name__, description="A deal's history, verification, export and import.")
TEXT = {"type": "string"}

#: What an organiser can do about each refused signature (``POST /tables/import``).
SIGNATURE_ADVICE = {
    "unsigned_export": "import it marked unsigned with ?unsigned=true if you trust its source",
    "untrusted_key": "add the exporting server's public key (its GET /signing-key) to "
    "CARDLEDGER_TRUSTED_KEYS, or import it marked unsigned with ?unsigned=true",
    "bad_signature": "a file whose signature fails is refused even with ?unsigned=true",
}


@blp.get("/signing-key", operation_id="getSigningKey", security=NO_TOKEN)
@blp.response(
    200,
    SigningKeySchema,
    description="The raw Ed25519 public key (base64) and its key id. A signature covers the "
    "UTF-8 text `cardledger-head:v1:{stream id}:{version}:{head hash}`.",
)
def get_signing_key() -> dict[str, Any]:
    """The server's signing key

    The public key this server signs heads with, to check its exports and pages offline.
    """
    signer = keyring().signer
    return {"key_id": signer.key_id, "public_key": signer.public_key}


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


@blp.get(
    "/tables/<id:table_id>/deals/<int:deal>",
    operation_id="getDeal",
    security=TOKEN_OPTIONAL,
    parameters=[{"in": "path", "name": "deal", "schema": {"type": "integer", "minimum": 1}}],
)
@blp.arguments(DealQuerySchema(), location="query")
@blp.response(
    200,
    DealHistorySchema,
    description="The dealt cards (once scored, or to the organiser), every event in order, "
    "the tricks and the score lines; `?format=text` gives a hand record.",
)
@blp.alt_response(200, schema=TEXT, content_type="text/plain", success=True)
@blp.problems(401, 404, 422)
def get_deal(query: dict[str, str], table_id: str, deal: int) -> Any:
    """Deal history

    Who did what and when, with each seat's legal alternatives.
    """
    with get_database().reading() as connection:
        viewer = viewer_of(connection, table_id)
        log = table_logs().load(connection, table_id)
    actors = [row.actor for row in log.rows[1:]]
    history = deal_history(log.opened, log.events[1:], deal, viewer, actors)
    if history is None:
        raise ApiError(404, "not_found", f"table {table_id} has no deal {deal}")
    head = keyring().signer.sign_head(table_id, log.version, log.rows[-1].hash)
    if query["format"] == "text":
        signed = (
            f"Head: version {head.version}, hash {head.hash}\n"
            f"Signed (Ed25519, key {head.key_id}): {head.signature}\n"
        )
        return Response(deal_text(table_id, history) + "\n" + signed, mimetype="text/plain")
    return {"table": table_id, **history, "head": head.as_dict()}


def _raw_rows(table_id: str) -> tuple[list[RawRow], tuple[int, str]]:
    """The stored rows exactly as kept, and the stream's recorded head."""
    with get_database().reading() as connection:
        return stored_rows(connection, table_id)


@blp.get("/tables/<id:table_id>/verify", operation_id="verifyTable")
@organiser_only
@blp.response(
    200,
    VerificationSchema,
    description="Whether the log is intact and accepted by the engine, with every problem found.",
)
@blp.problems(401, 403, 404)
def verify(table_id: str) -> Any:
    """Verify a table's log (organiser)

    Re-check the hash chain of the stored rows and replay the log through the engine.
    """
    rows, head = _raw_rows(table_id)
    return check(table_id, rows, head).as_dict()


@blp.get("/tables/<id:table_id>/export", operation_id="exportTable", security=TOKEN_OPTIONAL)
@blp.response(
    200,
    TEXT,
    content_type="application/x-ndjson",
    description="JSON Lines (organiser; anyone once the match has ended and every card is public).",
)
@blp.problems(401, 403, 404)
def export(table_id: str) -> Response:
    """Export a table's log

    The log as JSON Lines: a header, then every event with its hash.
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


@blp.post("/tables/import", operation_id="importTable")
@organiser_only
@blp.arguments(ImportQuerySchema(), location="query")
@blp.doc(requestBody={"required": True, "content": {"application/x-ndjson": {"schema": TEXT}}})
@blp.response(
    201, TableCreatedSchema, description="The table, under its original id, with new seat tokens."
)
@blp.alt_response(
    422,
    schema=ProblemSchema,
    content_type="application/problem+json",
    description="The file is not a valid log (`import_rejected`, with its first bad `line`), "
    "or no trusted key vouches for it (`unsigned_export`, `untrusted_key`, `bad_signature`).",
)
@blp.problems(400, 401, 403, 409)
def import_table(query: dict[str, bool]) -> tuple[dict[str, Any], int]:
    """Import a table (organiser)

    Re-create a table from an export after verifying its chain, replaying it and checking
    that a trusted key signed its head.
    """
    request.max_content_length = MAX_IMPORT_BODY  # a whole log: more than a JSON body
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
    if fault is not None and (fault.code == "bad_signature" or not query["unsigned"]):
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
            project_opened_table(
                connection, log
            )  # its summary; a bot to move: the sweep resumes it
            humans = (s for s, seat in enumerate(log.opened.seats) if not seat.get("bot"))
            tokens = issue_seat_tokens(connection, table_id, humans)
    except IntegrityError:
        raise ApiError(409, "table_exists", f"table {table_id} is already here") from None
    return created_body(log, tokens), 201
