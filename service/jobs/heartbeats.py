"""Signs of life of the jobs' workers and beat, in the database, so `/health` can say
when jobs would not run, and the reaper can tell a job whose worker died from one that
waits its turn.

One row per part (``job_heartbeats``): ``live`` and ``simulations`` (the queues, whatever
the number of workers consuming them) and ``beat``. A part is ``ok`` while its row was
stamped within ``DOWN_PERIODS`` heartbeat periods (``Config.heartbeat_seconds``):

- the beat stamps ``beat`` as it ticks (``workers/beat.py``) and, every period, sends
  ``cardledger.heartbeat`` to each queue with the moment it sent it;
- a worker running that heartbeat stamps its queue (``seen_at``) and the newest send time
  it ran (``sent_at``): every task sent to that queue before ``sent_at`` has been taken
  (queues are first in, first out), which is what ``service.jobs.reaper`` needs;
- a worker busy with long work stamps its queue too, as it works (``KeepAlive``), so a
  heartbeat waiting behind a simulation's chunks never makes a busy worker look dead;
- `cardledger serve` marks a part down the moment its process exits (``mark_down``), so
  `/health` says so at once, not a few periods later; its restarted worker runs a
  heartbeat as soon as it is ready.

This works the same on the SQLite broker and on Redis, with any number of workers.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta

from flask import current_app
from sqlalchemy import Connection, func, select, update
from sqlalchemy.exc import SQLAlchemyError

from service.core.config import Config
from service.jobs.queue import LIVE, RUNNING, SIMULATIONS
from service.storage.db import get_database, install
from service.storage.eventstore import now
from service.storage.models import job_chunk_starts, job_heartbeats, jobs

logger = logging.getLogger(__name__)

BEAT = "beat"
#: Every part `/health` reports, in its order.
PARTS = (LIVE, SIMULATIONS, BEAT)
#: Silent for this many heartbeat periods: down.
DOWN_PERIODS = 3
HEARTBEAT_TASK = "cardledger.heartbeat"


def stamp_of(moment: datetime) -> str:
    """``moment`` as the stamps are stored (``service.storage.eventstore.now``'s form, which sorts
    as text in time order)."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


def ago(seconds: float) -> str:
    return stamp_of(datetime.now(UTC) - timedelta(seconds=seconds))


def heartbeat_seconds() -> float:
    config: Config = current_app.config["CARDLEDGER"]
    return float(config.heartbeat_seconds)


def stamp(connection: Connection, name: str, sent_at: str | None = None) -> None:
    """``name`` is alive now; ``sent_at``: the send time of the heartbeat it just ran."""
    values: dict[str, object] = {"seen_at": now()}
    if sent_at is not None:
        newest = func.coalesce(job_heartbeats.c.sent_at, "")
        values["sent_at"] = (
            func.max(newest, sent_at)
            if _is_sqlite(connection)
            else (func.greatest(newest, sent_at))
        )
    connection.execute(update(job_heartbeats).where(job_heartbeats.c.name == name).values(values))


def _is_sqlite(connection: Connection) -> bool:
    return connection.dialect.name == "sqlite"


def record(name: str, sent_at: str | None = None) -> None:
    """Stamp ``name`` in its own transaction (the heartbeat task, the beat)."""
    with get_database().writing() as connection:
        stamp(connection, name, sent_at)


def status(connection: Connection, period: float) -> dict[str, str]:
    """Each part, ``ok`` or ``down`` (silent for ``DOWN_PERIODS`` periods, or marked down)."""
    rows = dict(connection.execute(select(job_heartbeats.c.name, job_heartbeats.c.seen_at)).all())
    cutoff = ago(DOWN_PERIODS * period)
    return {part: "ok" if (rows.get(part) or "") >= cutoff else "down" for part in PARTS}


def sent_before(connection: Connection) -> dict[str, str]:
    """Per queue: every task sent to it before this moment has been taken by a worker."""
    rows = connection.execute(select(job_heartbeats.c.name, job_heartbeats.c.sent_at))
    return {name: sent for name, sent in rows if sent}


def mark_down(database_url: str, names: tuple[str, ...]) -> None:
    """Say at once that ``names`` are down (their process just exited): what
    `cardledger serve` calls, outside any app. A database it cannot reach is logged."""
    database = install({}, database_url)
    try:
        with database.writing() as connection:
            connection.execute(
                update(job_heartbeats).where(job_heartbeats.c.name.in_(names)).values(seen_at=None)
            )
    except SQLAlchemyError as error:
        logger.warning("could not mark %s down: %s", ", ".join(names), error)
    finally:
        database.engine.dispose()


class KeepAlive:
    """Asked often while a task works (before every bot decision): at most every
    ``every`` seconds it stamps the task's queue and, for a job, the job's ``alive_at``
    (and the simulation chunk's, for a chunk), in one transaction, and answers whether to
    go on: False once the job no longer runs (cancelled, failed by the reaper, done by
    another worker). In between it answers at once, from memory."""

    def __init__(
        self,
        queue: str,
        job_id: str | None = None,
        every: float | None = None,
        chunk: int | None = None,
    ):
        self.queue, self.job_id, self.chunk = queue, job_id, chunk
        self.every = every if every is not None else min(1.0, heartbeat_seconds() / 2)
        self.next = time.monotonic() + self.every
        self.running = True

    def __call__(self) -> bool:
        if time.monotonic() < self.next:
            return self.running
        self.next = time.monotonic() + self.every
        with get_database().writing() as connection:
            stamp(connection, self.queue)
            if self.job_id is not None:
                alive = (
                    update(jobs)
                    .where(jobs.c.id == self.job_id, jobs.c.state == RUNNING)
                    .values(alive_at=now())
                )
                self.running = connection.execute(alive).rowcount == 1
            if self.chunk is not None:
                connection.execute(
                    update(job_chunk_starts)
                    .where(
                        job_chunk_starts.c.job_id == self.job_id,
                        job_chunk_starts.c.chunk == self.chunk,
                    )
                    .values(alive_at=now())
                )
        return self.running
