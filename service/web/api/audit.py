"""Audit routes: a deal's history, verification, export and import, and the key that signs
heads (``docs/api.md``, Audit, Signatures)."""

from __future__ import annotations

from typing import Any

from flask import Response, request
from sqlalchemy import select

from domain.audit import deal_history, deal_text
from service.application.records import export_table, verify_table
from service.application.records import import_table as import_records
from service.application.tables import table_logs
from service.core.client_json import MAX_IMPORT_BODY
from service.core.signing import SignedHead, keyring
from service.storage.db import get_database
from service.storage.models import events
from service.storage.tablelog import TableLog
from service.web.api.base import NO_TOKEN, TOKEN_OPTIONAL, Blueprint, organiser_only
from service.web.api.tables import created_body
from service.web.auth import viewer_of
from service.web.problems import ApiError
from service.web.schemas.common import ProblemSchema, SigningKeySchema
from service.web.schemas.tables import (
    DealHistorySchema,
    DealQuerySchema,
    ExportQuerySchema,
    ImportQuerySchema,
    TableCreatedSchema,
    VerificationSchema,
)

blp = Blueprint("audit", __name__, description="A deal's history, verification, export and import.")
TEXT = {"type": "string"}


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


def stored_head(stream: str, version: int) -> SignedHead:
    """The stream's head at ``version`` with the signature stored when it was appended (the
    head a projection read at that version reflects, whatever was appended since)."""
    with get_database().reading() as connection:
        found = connection.execute(
            select(events.c.hash, events.c.signature, events.c.key_id).where(
                events.c.stream == stream, events.c.version == version
            )
        ).first()
    if found is None:
        raise ApiError(503, "unreadable_log", f"stream {stream} has no version {version}")
    return SignedHead(version, found.hash, found.signature, found.key_id)


def head_of(log: TableLog) -> dict[str, Any]:
    """The log's head as recorded: its hash and the stored signature (null when it has
    none: an unsigned import)."""
    last = log.rows[-1]
    return {"version": log.version, "hash": last.hash,
            "signature": last.signature, "key_id": last.key_id}  # fmt: skip


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
    head = head_of(log)
    if query["format"] == "text":
        signed = (
            f"Signed (Ed25519, key {head['key_id']}): {head['signature']}\n"
            if head["signature"]
            else "Unsigned: this head carries no signature\n"
        )
        text = f"Head: version {head['version']}, hash {head['hash']}\n" + signed
        return Response(deal_text(table_id, history) + "\n" + text, mimetype="text/plain")
    return {"table": table_id, **history, "head": head}


@blp.get("/tables/<id:table_id>/verify", operation_id="verifyTable")
@organiser_only
@blp.response(
    200,
    VerificationSchema,
    description="Whether the log is intact, signed and accepted by the engine, with every "
    "problem found.",
)
@blp.problems(401, 403, 404)
def verify(table_id: str) -> Any:
    """Verify a table's log (organiser)

    Re-check the hash chain of the stored rows and every signature stored with them, and
    replay the log through the engine.
    """
    return verify_table(table_id).as_dict()


@blp.get("/tables/<id:table_id>/export", operation_id="exportTable", security=TOKEN_OPTIONAL)
@blp.arguments(ExportQuerySchema(), location="query")
@blp.response(
    200,
    TEXT,
    content_type="application/x-ndjson",
    description="JSON Lines (organiser; anyone once the match has ended and every card is "
    'public). The header carries the signature stored with the head, or `"unsigned": true`. '
    'A running table\'s export leaves out the seed and salt (`"redacted"`) unless the '
    "organiser asks with `?reveal=true`.",
)
@blp.problems(401, 403, 404, 422)
def export(query: dict[str, bool], table_id: str) -> Response:
    """Export a table's log

    The log as JSON Lines: a header, then every event with its hash.
    """
    with get_database().reading() as connection:
        viewer = viewer_of(connection, table_id)
    text = export_table(table_id, viewer, reveal=query["reveal"]).text
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
    201,
    TableCreatedSchema,
    description="The table, under its original id, with new seat tokens. It is a record: "
    "read-only here (409 `imported_read_only` to every action).",
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
    except UnicodeDecodeError:
        raise ApiError(
            422, "import_rejected", "the file is not UTF-8 text", extra={"line": 1}
        ) from None
    imported = import_records(text, unsigned=query["unsigned"])
    return created_body(imported.log, imported.tokens), 201
