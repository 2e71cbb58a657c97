"""The sweep: tables whose bots' task was lost resume by themselves.

``service.jobs.botplay.wake_bots`` queues autoplay when an action leaves a bot to move;
if the broker is down at that moment the task is lost (the action itself is recorded),
and a broker that restarts empty, or a worker killed holding the task, loses it too.
The ``bot_turns`` projection lists every table waiting on a bot, kept in the transaction
that appends the table's events, and ``resume_bots`` (the ``cardledger.resume_bots``
task on the live queue: Celery beat runs it every ``CARDLEDGER_SWEEP_SECONDS``, and a
worker of the live queue once at start-up) queues autoplay for each of those tables that
is idle, its last event older than ``idle`` seconds: a loop moving the table right now
records a move at a time, so it is left alone.

Queueing goes through ``service.jobs.autoplays``: a table whose autoplay is still pending is
not queued again, unless it has been pending for ``autoplays.LOST_SECONDS`` (its task
was lost: sent again). The pending rows are in the database, so this holds the same on
the SQLite broker and on Redis, whatever the number of workers and beats. A duplicate
that slips through costs work, never a double move: autoplay submits each move at an
expected version under an idempotency key. Eager mode (tests) has nothing to sweep: the
bots move inside the request.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, and_, select

from service.jobs import autoplays, queue
from service.jobs.heartbeats import stamp_of as stamp
from service.storage.db import get_database
from service.storage.models import bot_turns, events, streams

logger = logging.getLogger(__name__)

__all__ = ["IDLE_SECONDS", "RESUME_TASK", "idle_bot_tables", "resume_bots", "stamp"]

RESUME_TASK = "cardledger.resume_bots"
#: A table waiting on a bot with no event for this long has no loop moving it.
IDLE_SECONDS = 5.0
#: At most this many tables per sweep, the longest idle first; the next sweep goes on.
SWEEP_LIMIT = 1000


def idle_bot_tables(connection: Connection, before: str, limit: int = SWEEP_LIMIT) -> list[str]:
    """The tables waiting on a bot whose last event was recorded before ``before``,
    longest idle first: ``bot_turns`` joined to each table's head event (primary keys)."""
    head = and_(events.c.stream == streams.c.id, events.c.version == streams.c.version)
    query = (
        select(bot_turns.c.table_id)
        .join(streams, streams.c.id == bot_turns.c.table_id)
        .join(events, head)
        .where(events.c.recorded_at < before)
        .order_by(events.c.recorded_at, bot_turns.c.table_id)
        .limit(limit)
    )
    return list(connection.scalars(query))


def resume_bots(idle: float = IDLE_SECONDS) -> list[str]:
    """Queue autoplay for every idle table waiting on a bot whose autoplay is not pending
    (or looks lost); the tables queued. A broker that is down raises kombu's
    ``OperationalError``: the next sweep tries again."""
    if queue.is_eager():
        return []
    before = stamp(datetime.now(UTC) - timedelta(seconds=idle))
    with get_database().reading() as connection:
        tables = idle_bot_tables(connection, before)
    queued = [t for t in tables if autoplays.trigger(t, resend_lost=True)]
    if queued:
        logger.info("resumed the bots at %d table(s): %s", len(queued), ", ".join(queued))
    return queued
