"""Auditing stored logs: the hash chain, the engine's re-check, export and import.

The same checks serve ``GET /tables/{id}/verify`` (rows read from the database),
``POST /tables/import`` and the offline ``cardledger verify FILE.jsonl`` (rows read from
an export), so a file that verifies offline imports, and vice versa. Nothing here may
raise on a corrupted row: every fault becomes a problem with its version.

A chain proves only that a file is self-consistent: anyone may edit an event and recompute
every hash after it. So the server signs each head when it is appended and stores the
signature with the row (``service.eventstore``); ``signature_problems`` re-checks every
stored signature, and an export's header carries the stored signature of its head and that
key's ``key_id`` (``service.signing`` says exactly what is signed): ``check_signature``
tells whether a trusted key vouches for a file. An export is never signed at export time,
so a history rewritten in the database without the key cannot come out signed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, select

from domain.audit import Problem, recheck
from domain.events import TableOpened
from domain.replay import event_from_json
from service import signing
from service.eventstore import (
    GENESIS,
    StoredEvent,
    canonical_event,
    canonical_json,
    chain_hash,
)
from service.failures import NotFound
from service.jsonbody import JsonRefused
from service.jsonbody import loads as load_json
from service.models import events, streams

EXPORT_FORMAT = "cardledger-table"
EXPORT_VERSION = 1


@dataclass(frozen=True, slots=True)
class RawRow:
    """A stored event exactly as kept: ``data`` is the stored JSON text."""

    version: Any
    type: Any
    schema: Any
    data: Any
    recorded_at: Any
    hash: Any
    actor: Any = None
    signature: Any = None
    key_id: Any = None
    #: The fields an export left out of this row's data (a running table's seed and
    #: salt): its hash is then taken as given, never recomputed.
    redacted: tuple[str, ...] = ()


def stored_rows(
    connection: Connection, table_id: str, kind: str | None = "table"
) -> tuple[list[RawRow], tuple[int, str]]:
    """A stream's stored rows exactly as kept, and its recorded head (version, hash): what
    an export carries and a verification checks; ``kind``: refuse another kind's stream."""
    found = connection.execute(
        select(streams.c.kind, streams.c.version, streams.c.head).where(streams.c.id == table_id)
    ).first()
    if found is None or (kind is not None and found.kind != kind):
        raise NotFound(f"there is no {kind or 'stream'} {table_id}")
    query = select(events).where(events.c.stream == table_id).order_by(events.c.version)
    rows = [
        RawRow(r.version, r.type, r.schema, r.data, r.recorded_at, r.hash, r.actor,
               r.signature, r.key_id)
        for r in connection.execute(query)
    ]  # fmt: skip
    return rows, (found.version, found.head)


@dataclass(slots=True)
class Report:
    events: int = 0
    head: str = GENESIS
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "events": self.events,
            "head": self.head,
            "problems": [p.as_dict() for p in self.problems],
        }


def chain_faults(
    stream: str,
    rows: Iterable[RawRow | StoredEvent],
    previous: str = GENESIS,
    start: int = 1,
) -> Iterator[Problem]:
    """The hash chain's faults in version order, walking on from ``previous`` (the hash
    before version ``start``): a row that cannot be encoded, a hash that does not follow
    (the walk goes on from the row's own hash), and a missing version (the walk stops).

    The one chain walker: the full check below, and the table log's check of the rows
    it reads (``service.tablelog``), which takes only the first fault.
    """
    for expected, row in enumerate(rows, start=start):
        if row.version != expected:
            yield Problem(expected, "missing_event", f"version {expected} is missing")
            return
        if getattr(row, "redacted", ()):  # its data is not what was hashed: take the hash
            previous = str(row.hash)
            continue
        try:
            data = json.loads(row.data) if isinstance(row.data, str) else row.data
            canonical = canonical_event(
                stream, row.version, row.type, row.schema, data, row.recorded_at, row.actor
            )
        except (ValueError, TypeError) as error:
            yield Problem(expected, "unreadable_event", f"version {expected} is not valid: {error}")
        else:
            if chain_hash(previous, canonical) != row.hash:
                yield Problem(
                    expected,
                    "broken_chain",
                    f"version {expected}'s hash does not match its contents and the "
                    "previous hash: the row was changed after it was recorded",
                )
        previous = str(row.hash)


def head_fault(end: int, last_hash: str, head: tuple[int, str]) -> Problem | None:
    """Whether stored rows ending at version ``end`` with hash ``last_hash`` are what the
    stream's recorded ``head`` (version, hash) says: rows deleted from the end leave a
    valid chain behind, and only the head tells."""
    version, head_hash = head
    if end < version:
        return Problem(
            end + 1,
            "missing_event",
            f"the stream's head is version {version} but the stored rows end at "
            f"version {end}: events were removed",
        )
    if end > version:
        return Problem(
            version + 1,
            "head_mismatch",
            f"the stored rows run to version {end} but the stream's head is version "
            f"{version}: rows were added behind the service's back",
        )
    if last_hash != head_hash:
        return Problem(
            end,
            "head_mismatch",
            f"version {end}'s hash is not the stream's recorded head hash",
        )
    return None


def check(stream: str, rows: Sequence[RawRow], head: tuple[int, str] | None = None) -> Report:
    """Check the chain row by row, then re-decide the whole log with the engine.

    ``head`` is the stream's recorded (version, hash): rows deleted from the end leave a
    valid chain behind, and only the head tells.
    """
    report = Report(events=len(rows))
    report.problems += chain_faults(stream, rows)
    gap = next((p.version for p in report.problems if p.code == "missing_event"), None)
    kept = rows if gap is None else rows[: gap - 1]
    report.head = str(kept[-1].hash) if kept else GENESIS
    unreadable = {p.version for p in report.problems if p.code == "unreadable_event"}
    decoded: list[Any] = []
    game_id: str | None = None
    for row in kept:
        if row.version in unreadable:
            continue
        data = json.loads(row.data) if isinstance(row.data, str) else row.data
        try:
            if row.version == 1:
                opened = event_from_json("", "TableOpened", data, row.schema)
                game_id = opened.game
                decoded.append(opened)
            else:
                decoded.append(event_from_json(str(game_id), row.type, data, row.schema))
        except Exception as error:  # any shape the decoder cannot read is a finding
            report.problems.append(
                Problem(row.version, "undecodable_event", f"version {row.version}: {error!r}")
            )
    report.problems.sort(key=lambda p: p.version)  # stable: a row's chain fault comes first
    if head is not None and not report.problems:
        fault = head_fault(len(rows), report.head, head)
        report.problems += [fault] if fault else []
    if not report.problems and any(row.redacted for row in rows):
        report.problems.append(
            Problem(
                1,
                "redacted",
                "the export leaves out the table's seed and salt (the organiser's export of "
                "a running table): the chain was checked from the hash given for version 1, "
                "but the deals cannot be re-dealt and the file cannot be imported; the "
                "organiser exports the whole record with ?reveal=true",
            )
        )
    elif not report.problems and decoded and isinstance(decoded[0], TableOpened):
        try:
            report.problems += recheck(decoded[0], decoded[1:])
        except Exception as error:  # a log the engine cannot even replay
            report.problems.append(Problem(len(rows), "replay_failed", repr(error)))
    elif not decoded:
        report.problems.append(Problem(1, "empty_log", "the log has no TableOpened"))
    return report


def signature_problems(
    stream: str,
    rows: Sequence[RawRow],
    ring: signing.Keyring,
    origin: Any = None,
    head: tuple[int, str] | None = None,
) -> list[Problem]:
    """Every stored signature checked against the keys ``ring`` trusts, and the head
    vouched for: signed, or (``origin``: an imported table's ``Origin``) its import mark
    attested by this server. A history rewritten in the database without the key fails
    at the first version whose stored signature no longer matches. ``head``: the stream's
    recorded head; rows that stop short of it are missing events, not an unsigned head."""
    problems = []
    for row in rows:
        if row.signature is None and row.key_id is None:
            continue
        message = signing.head_message(stream, row.version, str(row.hash))
        found = ring.fault(message, row.signature, row.key_id)
        if found is not None:
            code, detail = found
            problems.append(
                Problem(row.version, code, f"the head signed at version {row.version}: {detail}")
            )
    if not rows or (head is not None and rows[-1].version != head[0]):
        return problems
    last = rows[-1]
    if origin is not None:
        message = signing.import_message(stream, last.version, str(last.hash), origin.key_id)
        found = ring.fault(message, origin.attestation, ring.signer.key_id)
        if found is not None:
            code = "unattested_import" if found[0] == "unsigned" else found[0]
            problems.append(
                Problem(last.version, code, f"the import mark's attestation: {found[1]}")
            )
    elif last.signature is None:
        problems.append(
            Problem(
                last.version,
                "unsigned_head",
                f"the head at version {last.version} carries no signature: it was written "
                "without this server's key",
            )
        )
    return problems


#: What a running table's export leaves out unless asked for: the opening's seed and salt,
#: and each deal's seed (``"{salt}:{seed}/{k}"``).
SECRETS = ("seed", "salt")


def export_lines(
    stream: str,
    game: str,
    variant: str,
    rows: Sequence[RawRow],
    *,
    redact: bool = False,
) -> Iterable[str]:
    """JSON Lines: a header carrying the stored signature of the head (or ``"unsigned":
    true``), then one stored event per line with its hash. ``redact`` leaves the seed and
    salt out (a running table): of ``TableOpened`` and of every deal's seed, which is made
    of them; the lines and the header say so."""
    last = rows[-1] if rows else None
    header: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_VERSION,
        "id": stream,
        "game": game,
        "variant": variant,
        "events": len(rows),
        "head": last.hash if last else GENESIS,
    }
    if last is not None and last.signature is not None:
        header |= {"signature": last.signature, "key_id": last.key_id}
    else:
        header["unsigned"] = True
    if redact:
        header["redacted"] = list(SECRETS)
    yield json.dumps(header) + "\n"
    for r in rows:  # ``json.loads`` may raise on a corrupted row: the route answers 503
        line = {
            "version": r.version,
            "type": r.type,
            "schema": r.schema,
            "recorded_at": r.recorded_at,
            "by": r.actor,
            "data": json.loads(r.data),
            "hash": r.hash,
        }
        data = line["data"]
        hidden = [k for k in SECRETS if isinstance(data, dict) and data.get(k) is not None]
        if redact and hidden:  # the opening's seed and salt, and each deal's seed from them
            line["data"] = {**data, **dict.fromkeys(hidden)}
            line["redacted"] = hidden
        yield canonical_json(line) + "\n"


class BadExport(Exception):
    """A file that is not a readable export; ``line`` is 1-based."""

    def __init__(self, line: int, detail: str) -> None:
        super().__init__(detail)
        self.line, self.detail = line, detail


def parse_export(text: str) -> tuple[dict[str, Any], list[RawRow]]:
    """The header and rows of an export; the chain is checked separately (``check``)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise BadExport(1, "the file is empty")
    try:
        header = load_json(lines[0], line=1)
    except JsonRefused:
        raise  # nested too deep or a key given twice: the client's 400, not a bad export
    except ValueError as error:
        raise BadExport(1, f"line 1 is not JSON: {error}") from None
    if not isinstance(header, dict) or header.get("format") != EXPORT_FORMAT:
        raise BadExport(1, f"line 1 is not a {EXPORT_FORMAT} header")
    if header.get("format_version") != EXPORT_VERSION:
        raise BadExport(1, f"format_version {header.get('format_version')!r} is not supported")
    if not isinstance(header.get("id"), str) or not re.fullmatch("[0-9a-f]{32}", header["id"]):
        raise BadExport(1, "the header names no table id (32 hex digits)")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            item = load_json(line, line=number)
            redacted = item.get("redacted", [])
            if not isinstance(redacted, list) or not all(isinstance(f, str) for f in redacted):
                raise ValueError("'redacted' is not a list of field names")
            rows.append(
                RawRow(
                    item["version"],
                    item["type"],
                    item["schema"],
                    canonical_json(item["data"]),
                    item["recorded_at"],
                    item["hash"],
                    item.get("by"),
                    redacted=tuple(redacted),
                )
            )
        except JsonRefused:
            raise
        except (ValueError, KeyError, TypeError) as error:
            raise BadExport(number, f"line {number} is not an exported event: {error!r}") from None
    announced = header.get("events")
    if type(announced) is not int or announced < 0:
        raise BadExport(1, "the header does not say how many events follow")
    if announced < len(rows):
        raise BadExport(
            announced + 2,
            f"the header announces {announced} events; line {announced + 2} is one too many",
        )
    if announced > len(rows):
        raise BadExport(
            len(rows) + 2,
            f"the header announces {announced} events, the file has {len(rows)}: "
            f"it was cut after line {len(rows) + 1}",
        )
    if rows and header.get("head") != rows[-1].hash:
        raise BadExport(len(rows) + 1, "the last event's hash is not the header's head")
    return header, rows


def check_signature(header: dict[str, Any], trusted: Mapping[str, bytes]) -> Problem | None:
    """Whether one of the ``trusted`` keys (by key id) signed the head this header announces:
    None, or a problem on the header (line 1) coded ``unsigned_export``, ``untrusted_key``
    or ``bad_signature``."""
    signature, key = header.get("signature"), header.get("key_id")
    if signature is None and key is None:
        return Problem(0, "unsigned_export", "the export carries no signature")
    if header.get("unsigned") is True:
        return Problem(0, "bad_signature", "the header says unsigned yet carries a signature")
    if not isinstance(key, str) or key not in trusted:
        return Problem(
            0, "untrusted_key", f"the export is signed by key {key!r}, not a trusted key"
        )
    try:
        raw = signing.parse_signature(signature)
    except ValueError as error:
        return Problem(0, "bad_signature", f"the header's signature is unreadable: {error}")
    stream, version, head = header.get("id"), header.get("events"), header.get("head")
    if not (
        isinstance(stream, str)
        and type(version) is int
        and isinstance(head, str)
        and signing.verify_head(trusted[key], stream, version, head, raw)
    ):
        return Problem(
            0,
            "bad_signature",
            f"key {key}'s signature does not match this table's head (version {version}, "
            f"hash {head}): the file was changed after it was signed",
        )
    return None


def verify_file(text: str, public_key: bytes | None = None) -> tuple[dict[str, Any] | None, Report]:
    """The offline check of an export: readable, chained, accepted by the engine and, given
    the exporting server's ``public_key``, signed by it."""
    try:
        header, rows = parse_export(text)
    except BadExport as bad:
        return None, Report(problems=[Problem(bad.line - 1, "unreadable_export", bad.detail)])
    except JsonRefused as refused:  # nested too deep, or a key given twice
        problem = Problem((refused.line or 1) - 1, refused.code, refused.detail)
        return None, Report(problems=[problem])
    report = check(header["id"], rows)
    if public_key is not None:
        given = signing.key_id(public_key)
        fault = check_signature(header, {given: public_key})
        if fault is not None and fault.code == "untrusted_key":
            fault = Problem(0, fault.code, f"{fault.detail} (the given key is {given})")
        report.problems = [fault, *report.problems] if fault else report.problems
    return header, report
