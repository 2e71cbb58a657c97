"""A table's record taken out (export), brought in (import) and checked (verify): the
commands behind the audit routes and the console's export, knowing no HTTP.

Signatures are never made here: an export carries the signature stored when its head
was appended (``service.storage.eventstore``), an imported table keeps its origin's (or says
``"unsigned": true``), so neither a history rewritten in the database nor a file
imported unsigned ever comes out under this server's signature.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import delete, update
from sqlalchemy.exc import IntegrityError

from domain.table import ORGANISER, Viewer
from service.application.unit_of_work import unit_of_work
from service.core.refusals import Conflict, Forbidden, Unavailable, Unprocessable
from service.core.signing import head_message, keyring
from service.storage import guard
from service.storage.chain import Report, chain_faults, check, signature_problems, stored_rows
from service.storage.damage import origin_of
from service.storage.db import get_database
from service.storage.eventstore import EventStore, StoredEvent
from service.storage.exports import BadExport, check_signature, export_lines, parse_export
from service.storage.import_marks import record_import
from service.storage.models import events, streams
from service.storage.seat_tokens import issue_seat_tokens
from service.storage.tablelog import TableLog, table_logs

#: What an organiser can do about each refused signature (``POST /tables/import``).
SIGNATURE_ADVICE = {
    "unsigned_export": "import it marked unsigned with ?unsigned=true if you trust its source",
    "untrusted_key": "add the exporting server's public key (its GET /signing-key) to "
    "CARDLEDGER_TRUSTED_KEYS, or import it marked unsigned with ?unsigned=true",
    "bad_signature": "a file whose signature fails is refused even with ?unsigned=true",
}


@dataclass(frozen=True, slots=True)
class Export:
    log: TableLog
    text: str


def export_table(table_id: str, viewer: Viewer, *, reveal: bool = False) -> Export:
    """The table's stored rows as JSON Lines, as kept (``service.storage.chain.export_lines``).

    Until the match ends only the organiser may export, and the seed and salt are left
    out unless the organiser asks (``reveal``): an export is a file that travels, and
    with the seed and salt anyone holding it could deal every hand still to come.
    """
    with get_database().reading() as connection:
        log = table_logs().load(connection, table_id)
        rows, _ = stored_rows(connection, table_id)
    finished = log.finished and log.damage is None
    if viewer != ORGANISER and not finished:
        raise Forbidden("until the match ends only the organiser may export")
    opened = log.opened
    try:
        text = "".join(
            export_lines(
                table_id, opened.game, opened.variant, rows, redact=not (finished or reveal)
            )
        )
    except ValueError as error:
        raise Unavailable(
            f"a stored row of table {table_id} is not JSON: {error}", "unreadable_log"
        ) from None
    return Export(log, text)


def verify_table(table_id: str) -> Report:
    """Every stored row's chain, every stored signature, the head, and the engine's replay."""
    with get_database().reading() as connection:
        rows, head = stored_rows(connection, table_id)
        origin = origin_of(connection, table_id)
    report = check(table_id, rows, head)
    report.problems += signature_problems(table_id, rows, keyring(), origin, head)
    report.problems.sort(key=lambda p: p.version)
    return report


@dataclass(frozen=True, slots=True)
class Imported:
    log: TableLog
    tokens: dict[int, str]


def import_table(text: str, *, unsigned: bool = False) -> Imported:
    """Re-create a table from an export, after checking its chain, replaying it and
    checking that a trusted key signed its head (``unsigned``: the organiser takes it
    without, and it is marked so). The table keeps its origin and is read-only here."""
    try:
        header, rows = parse_export(text)
    except BadExport as bad:
        raise Unprocessable(bad.detail, "import_rejected", extra={"line": bad.line}) from None
    table_id = header["id"]
    report = check(table_id, rows)
    if not report.ok:
        first = report.problems[0]
        raise Unprocessable(
            f"line {first.version + 1}: {first.detail}",
            "import_rejected",
            extra={"line": first.version + 1, "problems": [p.as_dict() for p in report.problems]},
        )
    ring = keyring()
    fault = check_signature(header, ring.trusted)
    if fault is not None and (fault.code == "bad_signature" or not unsigned):
        detail = f"{fault.detail}: {SIGNATURE_ADVICE[fault.code]}"
        raise Unprocessable(detail, fault.code, extra={"line": 1})
    origin_key = None if fault else str(header["key_id"])
    stored = [
        StoredEvent(table_id, r.version, r.type, r.schema, json.loads(r.data), r.recorded_at,
                    r.hash, r.actor)
        for r in rows
    ]  # fmt: skip
    if origin_key is not None:  # the origin's own word for its head, kept as it came
        stored[-1] = stored[-1]._replace(signature=header["signature"], key_id=origin_key)
    try:
        with unit_of_work() as work:
            EventStore(work.connection).restore(table_id, "table", stored)
            record_import(work.connection, table_id, origin_key, stored[-1])
            log = work.rewritten_table(table_id)
            humans = (s for s, seat in enumerate(log.opened.seats) if not seat.get("bot"))
            tokens = issue_seat_tokens(work.connection, table_id, humans)
    except IntegrityError:
        raise Conflict(f"table {table_id} is already here", "table_exists") from None
    return Imported(log, tokens)


@dataclass(frozen=True, slots=True)
class Restored:
    table_id: str
    version: int  # the head after the restore
    from_export: int  # rows taken from the export
    kept: int  # rows recorded after the export, kept because they chain on and are signed
    dropped: int  # stored rows that were not kept


def restore_table(text: str) -> Restored:
    """Put a damaged table's rows back from an export taken before the damage (this
    server's, signed by a trusted key, seed and salt included): the export's rows, then
    those stored after it that still chain on from it, as far as the last of them whose
    stored signature checks. What the organiser runs as ``cardledger restore``.

    The append-only guard is taken away and put back inside the one transaction that
    rewrites the rows, so no other writer ever sees the table without it.
    """
    try:
        header, rows = parse_export(text)
    except BadExport as bad:
        raise Unprocessable(bad.detail, "import_rejected", extra={"line": bad.line}) from None
    table_id = str(header["id"])
    if any(row.redacted for row in rows):
        raise Unprocessable(
            "the export leaves out the seed and salt: export the table with ?reveal=true",
            "import_rejected",
        )
    report = check(table_id, rows)
    fault = check_signature(header, keyring().trusted)
    if not report.ok or fault is not None:
        first = report.problems[0] if not report.ok else fault
        assert first is not None
        raise Unprocessable(f"the export does not check: {first.detail}", "import_rejected")
    ring = keyring()
    with unit_of_work() as work:
        connection = work.connection
        stored, _ = stored_rows(connection, table_id)
        later = [row for row in stored if row.version > len(rows)]
        chained = list(chain_faults(table_id, later, str(rows[-1].hash), len(rows) + 1))
        usable = later if not chained else later[: chained[0].version - len(rows) - 1]
        signed = [
            i
            for i, row in enumerate(usable)
            if row.signature is not None
            and ring.fault(head_message(table_id, row.version, str(row.hash)), row.signature,
                           row.key_id) is None
        ]  # fmt: skip
        kept = usable[: signed[-1] + 1] if signed else []
        last = kept[-1] if kept else rows[-1]
        restored = [
            StoredEvent(table_id, r.version, r.type, r.schema, json.loads(r.data), r.recorded_at,
                        r.hash, r.actor, r.signature, r.key_id)
            for r in [*rows, *kept]
        ]  # fmt: skip
        if not kept:  # the export's own word for its head
            restored[-1] = restored[-1]._replace(
                signature=header["signature"], key_id=header["key_id"]
            )
        guard.remove(connection)
        connection.execute(delete(events).where(events.c.stream == table_id))
        EventStore(connection).insert_rows(restored)
        connection.execute(
            update(streams)
            .where(streams.c.id == table_id)
            .values(version=last.version, head=last.hash, damage=None)
        )
        guard.install(connection)
        work.rewritten_table(table_id)
    dropped = sum(1 for row in stored if row.version > last.version)
    return Restored(table_id, int(last.version), len(rows), len(kept), dropped)
