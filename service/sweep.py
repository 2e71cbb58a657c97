"""The sweep: tables whose bots' task was lost resume by themselves.

``service.botplay.after_action`` enqueues autoplay when an action leaves a bot to move;
if the broker is down at that moment the task is lost (the action itself is recorded).
The ``bot_turns`` projection lists every table waiting on a bot, kept in the transaction
that appends the table's events, and ``resume_bots`` (the ``cardledger.resume_bots``
task: Celery beat runs it every ``CARDLEDGER_SWEEP_SECONDS``, and every worker once at
start-up) enqueues autoplay for each of those tables that is idle, its last event older
than ``idle`` seconds: a loop moving the table right now records a move at a time, so it
is left alone.

Before a table is enqueued it is claimed in Redis (``SET NX`` expiring after
``CLAIM_SECONDS``, under the broker's key prefix), so a table whose task waits behind a
long queue, or that several beats see (each ``make worker`` runs one), is queued once
per claim, not once per sweep. A duplicate that slips through costs work, never a double
move: autoplay submits each move at an expected version under an idempotency key.

On `make run`'s SQLite broker (no Redis, one worker and one beat) nothing is claimed:
each sweep queues the idle tables, and autoplay's idempotency makes a duplicate harmless.
Eager mode (tests) has nothing to sweep: the bots move inside the request.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import redis
from flask import current_app
from kombu.exceptions import OperationalError as BrokerError
from sqlalchemy import Connection, and_, select

from service import jobs
from service.botplay import AUTOPLAY_TASK
from service.config import Config
from service.db import get_database
from service.models import bot_turns, events, streams

logger = logging.getLogger(__name__)

RESUME_TASK = "cardledger.resume_bots"
#: A table waiting on a bot with no event for this long has no loop moving it.
IDLE_SECONDS = 5.0
#: How long a sweep's claim on a table keeps other sweeps from queueing it again.
CLAIM_SECONDS = 60
#: At most this many tables per sweep, the longest idle first; the next sweep goes on.
SWEEP_LIMIT = 1000
REDIS_TIMEOUT = 2.0


def stamp(moment: datetime) -> str:
    """``moment`` in the event store's ``recorded_at`` form (``service.eventstore.now``),
    which sorts as text in time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


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
    """Enqueue autoplay for every idle table waiting on a bot that no sweep claimed in
    the last ``CLAIM_SECONDS``; the tables queued. A broker that is down raises kombu's
    ``OperationalError``: the next sweep tries again."""
    if jobs.is_eager():
        return []
    before = stamp(datetime.now(UTC) - timedelta(seconds=idle))
    with get_database().reading() as connection:
        tables = idle_bot_tables(connection, before)
    if not tables:
        return []
    config: Config = current_app.config["CARDLEDGER"]
    if config.jobs != "redis":  # no Redis to claim in: idempotent autoplay absorbs a repeat
        for table_id in tables:
            jobs.enqueue(AUTOPLAY_TASK, table_id)
        logger.info("resumed the bots at %d table(s): %s", len(tables), ", ".join(tables))
        return tables
    prefix = jobs.celery_for().conf.broker_transport_options.get("global_keyprefix", "")
    client = redis.Redis.from_url(
        str(config.redis_url), socket_connect_timeout=REDIS_TIMEOUT, socket_timeout=REDIS_TIMEOUT
    )
    queued = []
    try:
        with client:
            for table_id in tables:
                claim = f"{prefix}cardledger:resume:{table_id}"
                if not client.set(claim, "1", nx=True, ex=CLAIM_SECONDS):
                    continue  # queued by a recent sweep, not run yet (or still running)
                try:
                    jobs.enqueue(AUTOPLAY_TASK, table_id)
                except BrokerError:
                    client.delete(claim)
                    raise
                queued.append(table_id)
    except redis.RedisError as error:
        raise BrokerError(str(error)) from error
    if queued:
        logger.info("resumed the bots at %d table(s): %s", len(queued), ", ".join(queued))
    return queued
