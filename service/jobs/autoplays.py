"""A table has at most one pending autoplay.

Whatever wakes a table's bots (a person's action, ``POST /tables/{id}/autoplay``, the
sweep, an autoplay handing its table on after its time slice, the reaper) goes through
here. A pending autoplay is a row of ``pending_autoplays`` (one per table: its primary
key), written before its task is sent; the task deletes it when it starts (``take``), so
while one waits in the queue a second trigger finds it and sends nothing. A task that
runs and one that waits may overlap: they race harmlessly, as autoplay submits every
move at an expected version under an idempotency key.

The row also carries the job someone asked for (``POST /tables/{id}/autoplay`` while a
bare autoplay is pending attaches its job to it, and a second request gets the same
job), so the task learns its job from the row, not from the message.

A pending row whose task was lost (a broker restarted empty, a worker killed holding
it) would keep the table waiting forever: the sweep (``service.jobs.sweep``) sends its task
again once the row is older than ``LOST_SECONDS``; a duplicate costs nothing. The same
rule works on the SQLite broker and on Redis, for any number of workers and beats.
"""

from __future__ import annotations

import logging

from kombu.exceptions import OperationalError as BrokerError
from sqlalchemy import ColumnElement, Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from service.jobs import queue
from service.jobs.heartbeats import ago
from service.storage.db import get_database
from service.storage.eventstore import now
from service.storage.models import pending_autoplays

logger = logging.getLogger(__name__)

AUTOPLAY_TASK = "cardledger.autoplay"
#: A pending autoplay this old may have lost its task: the sweep sends it again.
LOST_SECONDS = 60.0
#: Racing writers (PostgreSQL): how often to look again after a conflicting insert.
ATTEMPTS = 3


def _pending(connection: Connection, table_id: str) -> tuple[str | None, str] | None:
    row = connection.execute(
        select(pending_autoplays.c.job_id, pending_autoplays.c.queued_at).where(
            pending_autoplays.c.table_id == table_id
        )
    ).first()
    return (row.job_id, row.queued_at) if row is not None else None


def pending_job(table_id: str) -> str | None:
    with get_database().reading() as connection:
        found = _pending(connection, table_id)
    return found[0] if found else None


def _send(table_id: str, job_id: str | None, seconds: float | None) -> None:
    """Send the table's task; if the broker refuses, the pending row goes (else no later
    trigger would send one) and the error goes on to the caller."""
    try:
        queue.enqueue(AUTOPLAY_TASK, table_id, None, seconds)
    except BrokerError:
        with get_database().writing() as connection:
            connection.execute(
                delete(pending_autoplays).where(
                    pending_autoplays.c.table_id == table_id,
                    _same_job(job_id),
                )
            )
        raise


def _same_job(job_id: str | None) -> ColumnElement[bool]:
    column = pending_autoplays.c.job_id
    return column.is_(None) if job_id is None else column == job_id


def trigger(table_id: str, *, seconds: float | None = None, resend_lost: bool = False) -> bool:
    """Queue autoplay at the table unless one is pending; whether a task was sent.
    ``resend_lost`` (the sweep): send again for a pending one older than ``LOST_SECONDS``."""
    for _ in range(ATTEMPTS):
        try:
            with get_database().writing() as connection:
                found = _pending(connection, table_id)
                if found is None:
                    connection.execute(
                        insert(pending_autoplays).values(table_id=table_id, queued_at=now())
                    )
                    job_id = None
                elif resend_lost and found[1] < ago(LOST_SECONDS):
                    connection.execute(
                        update(pending_autoplays)
                        .where(pending_autoplays.c.table_id == table_id)
                        .values(queued_at=now())
                    )
                    job_id = found[0]
                    logger.info("table %s: its pending autoplay looks lost, sent again", table_id)
                else:
                    return False
        except IntegrityError:  # another trigger inserted it first: it is pending now
            continue
        _send(table_id, job_id, seconds)
        return True
    return False


def request(table_id: str, started_by: str, *, seconds: float | None = None) -> str:
    """``POST /tables/{id}/autoplay``: the table's pending autoplay job, if there is one;
    else a new job (carried by the pending autoplay if a bare one waits, else queued
    now). A broker that refuses the task fails the new job and raises; in eager mode the
    task ran here, and its failure is the job's, not the caller's."""
    for _ in range(ATTEMPTS):
        try:
            with get_database().writing() as connection:
                found = _pending(connection, table_id)
                if found is not None and found[0] is not None:
                    return found[0]
                job_id = queue.create(queue.AUTOPLAY, {"table": table_id}, None, table_id,
                                     started_by=started_by, connection=connection)  # fmt: skip
                if found is not None:
                    attached = connection.execute(
                        update(pending_autoplays)
                        .where(pending_autoplays.c.table_id == table_id, _same_job(None))
                        .values(job_id=job_id)
                    ).rowcount
                    if attached:
                        return job_id
                    raise IntegrityError("taken meanwhile", None, ValueError())
                connection.execute(
                    insert(pending_autoplays).values(
                        table_id=table_id, job_id=job_id, queued_at=now()
                    )
                )
        except IntegrityError:  # a trigger or the task moved first: look again
            continue
        try:
            _send(table_id, job_id, seconds)
        except BrokerError as error:
            queue.fail(job_id, error, queued=False)
            raise
        except Exception as error:
            if not queue.is_eager():
                raise
            queue.fail(job_id, error)  # it ran here and failed: its job says why
        return job_id
    raise RuntimeError(f"table {table_id}: autoplay kept racing other writers")


def take(table_id: str) -> str | None:
    """The task starts: its table's autoplay is no longer pending. The job it carries."""
    with get_database().writing() as connection:
        row = connection.execute(
            delete(pending_autoplays)
            .where(pending_autoplays.c.table_id == table_id)
            .returning(pending_autoplays.c.job_id)
        ).first()
    return row.job_id if row is not None else None


def hand_on(table_id: str, job_id: str | None) -> bool:
    """An autoplay used up its time slice with bots still to move: queue the table again,
    behind the other live tables, carrying the job. False when another job already
    waits there (that one goes on: this job is over)."""
    for _ in range(ATTEMPTS):
        try:
            with get_database().writing() as connection:
                found = _pending(connection, table_id)
                if found is None:
                    connection.execute(
                        insert(pending_autoplays).values(
                            table_id=table_id, job_id=job_id, queued_at=now()
                        )
                    )
                elif found[0] is None or found[0] == job_id or job_id is None:
                    if job_id is not None:  # a bare one waits: it carries this job on
                        connection.execute(
                            update(pending_autoplays)
                            .where(pending_autoplays.c.table_id == table_id)
                            .values(job_id=job_id)
                        )
                    return True
                else:
                    return False
        except IntegrityError:
            continue
        _send(table_id, job_id, None)
        return True
    return False


def resume(table_id: str, job_id: str) -> bool:
    """The reaper: the job's task was lost with its worker; queue the table again with the
    job (a bare autoplay waiting there carries it; one waiting with it is sent again).
    False when another job waits there: that one goes on, this one is over."""
    with get_database().writing() as connection:
        found = _pending(connection, table_id)
        if found is not None and found[0] not in (None, job_id):
            return False
        if found is None:
            connection.execute(
                insert(pending_autoplays).values(table_id=table_id, job_id=job_id, queued_at=now())
            )
        else:
            connection.execute(
                update(pending_autoplays)
                .where(pending_autoplays.c.table_id == table_id)
                .values(job_id=job_id, queued_at=now())
            )
    _send(table_id, job_id, None)
    return True
