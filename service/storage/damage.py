"""A damaged stream: the checks that find it, the mark that makes every process refuse it,
and the refusal (409 ``log_damaged``).

``stream_problems`` is the whole check of one stream's stored rows: the chain, the recorded
head and every stored signature, what the background verifier runs
(``service.jobs.verifier``). A stream found damaged is marked in its row
(``streams.damage``) by whichever process found it, so every process refuses it at once;
a marked stream whose rows check again (restored) has its mark cleared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Connection, select

from domain.audit import Problem
from service.core.refusals import Conflict
from service.core.signing import keyring
from service.storage.chain import chain_faults, head_fault, signature_problems, stored_rows
from service.storage.db import Database, get_database
from service.storage.eventstore import GENESIS, EventStore, Head
from service.storage.models import table_imports


class Damageable(Protocol):
    """A stream's log as far as a refusal needs it (``service.storage.streams.StreamLog``)."""

    @property
    def id(self) -> str: ...

    @property
    def damage(self) -> Problem | None: ...


@dataclass(frozen=True, slots=True)
class Origin:
    """How an imported table came here (``table_imports``): signed by ``key_id``, or
    unsigned on the organiser's word; ``attestation`` is this server's signature of that."""

    key_id: str | None
    imported_at: str
    attestation: str | None

    @property
    def signed(self) -> bool:
        return self.key_id is not None

    def as_dict(self) -> dict[str, Any]:
        return {"signed": self.signed, "key_id": self.key_id, "at": self.imported_at}


def origin_of(connection: Connection, stream_id: str) -> Origin | None:
    """An imported table's origin (``table_imports``); None for a stream recorded here."""
    row = connection.execute(
        select(table_imports).where(table_imports.c.table_id == stream_id)
    ).first()
    if row is None:
        return None
    return Origin(row.key_id, row.imported_at, row.attestation)


def stream_problems(connection: Connection, stream_id: str) -> list[Problem]:
    """The whole check of one stream's stored rows, any kind: the chain, the recorded head,
    and every stored signature (``service.storage.chain.signature_problems``). What the verifier
    runs, and a load of a stream marked damaged (to learn whether it was restored)."""
    rows, head = stored_rows(connection, stream_id, kind=None)
    problems = list(chain_faults(stream_id, rows))
    if not problems:
        end, last = (rows[-1].version, str(rows[-1].hash)) if rows else (0, GENESIS)
        fault = head_fault(end, last, head)
        problems += [fault] if fault else []
    problems += signature_problems(
        stream_id, rows, keyring(), origin_of(connection, stream_id), head
    )
    return sorted(problems, key=lambda p: p.version)


class LogDamaged(Conflict):
    """A write at a stream whose stored log is damaged (409 ``log_damaged``)."""

    def __init__(self, kind: str, stream_id: str, damage: Problem) -> None:
        listed = (
            f"The organiser's GET /tables/{stream_id}/verify lists every problem; "
            if kind == "table"
            else f"GET /tournaments/{stream_id} shows where; "
        )
        super().__init__(
            f"{kind} {stream_id}'s stored log is damaged at version {damage.version} "
            f"({damage.code}: {damage.detail}), so it takes no more writes. {listed}"
            "restoring the damaged rows from a database backup (or from an export taken "
            "before the damage, with `cardledger restore`) makes it writable again.",
            "log_damaged",
            extra={"version": damage.version, "damaged": damage.as_dict()},
        )
        self.stream_id, self.damage = stream_id, damage


def mark(stream_id: str, problem: Problem | None) -> bool:
    """Mark the stream damaged (or clear the mark, with None) in its own transaction, so
    every process refuses it at once; whether the mark changed."""
    value = None if problem is None else json.dumps(problem.as_dict())
    with get_database().writing() as connection:
        return EventStore(connection).mark_damage(stream_id, value)


def mark_on(database: Database, stream_id: str, problem: Problem | None) -> None:
    value = None if problem is None else json.dumps(problem.as_dict())
    with database.writing() as connection:
        EventStore(connection).mark_damage(stream_id, value)


def marked(head: Head) -> Problem | None:
    """The damage mark a stream's row carries, as a problem."""
    if head.damage is None:
        return None
    try:
        found = json.loads(head.damage)
        return Problem(int(found["version"]), str(found["code"]), str(found["detail"]))
    except (ValueError, KeyError, TypeError):
        return Problem(1, "marked_damaged", f"the stream is marked damaged: {head.damage!r}")


def refuse_if_damaged(kind: str, log: Damageable) -> None:
    """Nothing may be built on a log that cannot be trusted: 409 ``log_damaged``."""
    if log.damage is not None:
        raise LogDamaged(kind, log.id, log.damage)
