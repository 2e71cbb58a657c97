"""Checking stored logs: the hash chain, the recorded head, the stored signatures and the
engine's re-check of every action.

The same checks serve ``GET /tables/{id}/verify`` (rows read from the database),
``POST /tables/import`` and the offline ``cardledger verify FILE.jsonl`` (rows read from
an export, ``service.storage.exports``), so a file that verifies offline imports, and vice
versa. Nothing here may raise on a corrupted row: every fault becomes a problem with its
version.

A chain proves only that a log is self-consistent: anyone may edit an event and recompute
every hash after it. So the server signs each head when it is appended and stores the
signature with the row (``service.storage.eventstore``), and ``signature_problems``
re-checks every stored signature (``service.core.signing`` says exactly what is signed).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, select

from domain.audit import Problem, recheck
from domain.events import TableOpened
from domain.replay import event_from_json
from service.core import signing
from service.core.refusals import NotFound
from service.storage.eventstore import (
    GENESIS,
    StoredEvent,
    canonical_event,
    chain_hash,
)
from service.storage.models import events, streams


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
    it reads (``service.storage.tablelog``), which takes only the first fault.
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
