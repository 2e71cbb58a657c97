"""The background verifier: every stream's stored rows re-checked, again and again.

The guard stamp (``service.storage.guard``) catches an insider who takes the database's
append-only guard away; what it cannot see (an edit of the database files, a hand-forged
schema version) this finds: the beat runs ``verify_streams`` every
``CARDLEDGER_VERIFY_SECONDS``, and each run re-checks the streams marked damaged and then
those checked longest ago, up to ``BATCH``, with the whole check (``service.storage.streams.
stream_problems``: chain, recorded head, every stored signature). A stream found damaged
is marked in the database, so every process refuses it at once; a marked stream whose
rows check again (restored from a backup) has its mark cleared.

``flask --app service cardledger verify-streams`` runs the same check by hand.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from sqlalchemy import Connection, insert, select, update

from service.storage.damage import mark, stream_problems
from service.storage.db import get_database
from service.storage.eventstore import now
from service.storage.models import stream_checks, streams

logger = logging.getLogger(__name__)

#: At most this many streams per run besides the marked ones: the next run goes on.
BATCH = 500
VERIFY_TASK = "cardledger.verify_streams"
#: How often the beat sends it (``CARDLEDGER_VERIFY_SECONDS``).
DEFAULT_VERIFY_SECONDS = 60.0


@dataclass(slots=True)
class Sweep:
    """What a run found."""

    checked: int = 0
    damaged: dict[str, dict[str, object]] = field(default_factory=dict)
    cleared: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"checked": self.checked, "damaged": self.damaged, "cleared": self.cleared}


def due(connection: Connection, limit: int) -> list[str]:
    """The streams to check now: the marked ones, then those checked longest ago (never
    checked first)."""
    marked = list(connection.scalars(select(streams.c.id).where(streams.c.damage.is_not(None))))
    last = select(stream_checks.c.checked_at).where(stream_checks.c.stream == streams.c.id)
    oldest = connection.scalars(
        select(streams.c.id)
        .order_by(last.scalar_subquery().is_not(None), last.scalar_subquery(), streams.c.id)
        .limit(limit)
    )
    return list(dict.fromkeys([*marked, *oldest]))


def verify_streams(limit: int = BATCH) -> Sweep:
    """One run of the verifier (see the module docstring)."""
    sweep = Sweep()
    with get_database().reading() as connection:
        chosen = due(connection, limit)
    for stream_id in chosen:
        with get_database().reading() as connection:
            problems = stream_problems(connection, stream_id)
            version = connection.scalar(select(streams.c.version).where(streams.c.id == stream_id))
        first = problems[0] if problems else None
        changed = mark(stream_id, first)
        if first is not None:
            sweep.damaged[stream_id] = first.as_dict()
            if changed:
                logger.error("stream %s is damaged: %s", stream_id, first.as_dict())
        elif changed:
            sweep.cleared.append(stream_id)
            logger.warning("stream %s checks again: its damage mark is cleared", stream_id)
        _checked(stream_id, int(version or 0))
        sweep.checked += 1
    return sweep


def _checked(stream_id: str, version: int) -> None:
    values = {"checked_at": now(), "version": version}
    with get_database().writing() as connection:
        found = connection.execute(
            update(stream_checks).where(stream_checks.c.stream == stream_id).values(values)
        )
        if found.rowcount == 0:
            connection.execute(insert(stream_checks).values(stream=stream_id, **values))
