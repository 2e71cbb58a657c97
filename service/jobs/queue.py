"""Jobs: bot autoplay and simulations, stored in the database and run by Celery.

A job row says what was asked, who asked (``started_by``), its state, its progress and
its result, so ``GET /jobs/{id}`` answers from the database whatever the result backend
(and while Redis is down). The row's ``state`` is the truth about a job, on every broker:
a task reads it before and while it works and stops when the job is no longer running.
States only move forward (``advance``: one guarded UPDATE), so a job that was cancelled,
failed or done never comes back::

    queued ──▶ running ──▶ done
       │          │──────▶ failed     (with a public reason: ``public_error``)
       └──────────┴──────▶ cancelled  (``DELETE /jobs/{id}``: ``cancel``)

Where the work is: simulations (``service.jobs.simulations``), autoplay (``service.jobs.botplay``,
one pending per table: ``service.jobs.autoplays``), the reaper that resumes a job whose worker
died (``service.jobs.reaper``), and the workers' signs of life (``service.jobs.heartbeats``).

Two queues (``LIVE``, ``SIMULATIONS``): the bots of tables in play, the sweep, the reaper
and heartbeats go to ``live``; simulations to ``simulations``, each consumed by workers
of its own (``workers/celery_app.py``, ``service/running/serve.py``), so no simulation, however
large, stands between a live table and its bots.

Tasks run in Celery workers: the ones `make run` starts on its SQLite broker, or
`make worker`s on Redis (``Config.jobs``), with no time budget. Only in eager mode
(``CARDLEDGER_JOBS=eager``, what the tests use) do they run in the request (Celery's
eager mode), within a time budget so a request stays a request: autoplay stops after
``EAGER_AUTOPLAY_SECONDS`` (the next action or ``POST /tables/{id}/autoplay`` goes on),
and a simulation runs only if small (``EAGER_SIMULATION_MATCHES``, no Monte Carlo seat,
done within ``EAGER_SIMULATION_SECONDS``); a larger one fails at once and says how to run it.

Anyone holding a job's id reads its ``error``: a failure is logged in full here and shown
as a stable sentence (``public_error``), never an exception's text (a broker's address).
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

import redis
from celery import Celery
from flask import Flask, current_app
from kombu.exceptions import OperationalError as BrokerError
from sqlalchemy import Connection, func, select, update
from sqlalchemy.exc import OperationalError as DatabaseError
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.utils import import_string

from domain.errors import RuleViolation
from service.core.config import Config
from service.core.refusals import ApplicationError, Conflict, NotFound
from service.storage.db import get_database
from service.storage.eventstore import now
from service.storage.models import jobs

logger = logging.getLogger(__name__)

CELERY_KEY = "cardledger.celery"
#: What builds an app's Celery publisher, named (``module:function``) rather than imported:
#: the workers sit above this layer, so only they may import it (Celery's ``-A`` names
#: its app the same way).
PUBLISHER = "workers.tasks:publisher"
EAGER_AUTOPLAY_SECONDS = 1.0
EAGER_SIMULATION_SECONDS = 2.0
#: In-request simulations: at most this many matches, and no Monte Carlo seat.
EAGER_SIMULATION_MATCHES = 20
TOO_LARGE = (
    "this simulation is too large to run inside a request (CARDLEDGER_JOBS=eager): "
    "unset CARDLEDGER_JOBS so `make run` runs it in its worker, or run `cardledger simulate`"
)

AUTOPLAY, SIMULATION = "autoplay", "simulation"
QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
STATES = (QUEUED, RUNNING, DONE, FAILED, CANCELLED)
#: The states a job may still leave; the others are final.
OPEN = (QUEUED, RUNNING)
#: The queues: tables in play (and the service's own small tasks), and simulations.
LIVE, SIMULATIONS = "live", "simulations"
QUEUE_OF = {AUTOPLAY: LIVE, SIMULATION: SIMULATIONS}
ORGANISER = "organiser"


# --- the Celery client of a Flask app -----------------------------------------------------


def celery_for(app: Flask | None = None) -> Celery:
    """The app's Celery publisher (``Config.jobs`` says where), built once per app."""
    app = app or current_app
    celery: Celery | None = app.extensions.get(CELERY_KEY)
    if celery is None:
        config: Config = app.config["CARDLEDGER"]
        celery = app.extensions.setdefault(CELERY_KEY, import_string(PUBLISHER)(config))
    return celery


def is_eager(app: Flask | None = None) -> bool:
    return bool(celery_for(app).conf.task_always_eager)


def enqueue(task: str, *args: Any) -> None:
    """Send a task (to the queue its route names); a broker that cannot take it raises
    kombu's ``OperationalError``, which the API answers with 503 ``broker_unavailable``.
    Never call it inside a write transaction: in eager mode the task runs right here."""
    celery = celery_for()
    try:
        celery.tasks[task].apply_async(args=args, retry=False)
    except (redis.RedisError, OSError, SQLAlchemyError) as error:  # SQLite broker: SQLAlchemy
        raise BrokerError(str(error)) from error


# --- job rows ---------------------------------------------------------------------------------


def create(
    kind: str,
    params: dict[str, Any],
    total: int | None,
    table_id: str | None = None,
    *,
    started_by: str | None = None,
    connection: Connection | None = None,
) -> str:
    """A new job row, ``queued``; ``total`` None when the work is not known in advance.
    ``started_by``: who may cancel it besides the organiser. ``connection``: create it in
    the caller's transaction."""
    job_id = uuid.uuid4().hex
    at = now()
    row = {
        "id": job_id, "kind": kind, "state": QUEUED, "params": json.dumps(params), "done": 0,
        "total": total if total is not None else -1, "result": None, "error": None,
        "table_id": table_id, "created_at": at, "updated_at": at, "started_by": started_by,
        "alive_at": at, "dispatched": 0, "resumed": 0,
    }  # fmt: skip
    if connection is not None:
        connection.execute(jobs.insert().values(**row))
    else:
        with get_database().writing() as writing:
            writing.execute(jobs.insert().values(**row))
    return job_id


def view(connection: Connection, job_id: str) -> dict[str, Any]:
    """A job as ``GET /jobs/{id}`` shows it."""
    row = connection.execute(select(jobs).where(jobs.c.id == job_id)).first()
    if row is None:
        raise NotFound(f"there is no job {job_id}")
    return {
        "id": row.id,
        "kind": row.kind,
        "state": row.state,
        "progress": {"done": row.done, "total": row.total if row.total >= 0 else None},
        "result": json.loads(row.result) if row.result is not None else None,
        "error": row.error,
        "table": row.table_id,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def owner(connection: Connection, job_id: str) -> tuple[str | None, str | None]:
    """The job's table and who started it (``started_by``); 404 for an unknown job."""
    row = connection.execute(
        select(jobs.c.table_id, jobs.c.started_by).where(jobs.c.id == job_id)
    ).first()
    if row is None:
        raise NotFound(f"there is no job {job_id}")
    return row.table_id, row.started_by


def job_state(job_id: str) -> str | None:
    with get_database().reading() as connection:
        state: str | None = connection.scalar(select(jobs.c.state).where(jobs.c.id == job_id))
    return state


def advance(
    job_id: str,
    state: str,
    *,
    origin: tuple[str, ...] = OPEN,
    connection: Connection | None = None,
    **values: Any,
) -> bool:
    """Move the job to ``state`` (with ``values``) if it is in one of ``origin``; whether
    it moved. The only way a state changes: one UPDATE guarded by the state it leaves, so
    two workers, or a worker and a cancelling organiser, never both win."""
    statement = (
        update(jobs)
        .where(jobs.c.id == job_id, jobs.c.state.in_(origin))
        .values(state=state, updated_at=now(), **values)
    )
    if connection is not None:
        return connection.execute(statement).rowcount == 1
    with get_database().writing() as writing:
        return writing.execute(statement).rowcount == 1


def start(job_id: str) -> bool:
    """Mark the job running (again, for a task that carries it on); False once it is
    over (cancelled, failed, done): then do nothing."""
    return advance(job_id, RUNNING, alive_at=now())


def revive(job_id: str, silent_since: str) -> bool:
    """The reaper is about to send the job's work again: a new sign of life, one more
    resumption; False when the job is over or showed life since ``silent_since`` (another
    beat's reaper was first: one resumption, not two)."""
    alive = func.coalesce(jobs.c.alive_at, jobs.c.updated_at)
    statement = (
        update(jobs)
        .where(jobs.c.id == job_id, jobs.c.state.in_(OPEN), alive < silent_since)
        .values(alive_at=now(), resumed=jobs.c.resumed + 1)
    )
    with get_database().writing() as connection:
        return connection.execute(statement).rowcount == 1


def progress(job_id: str, done: int) -> bool:
    """Record progress while the job runs; False once it no longer does."""
    return advance(job_id, RUNNING, origin=(RUNNING,), done=done, alive_at=now())


def cancel(job_id: str) -> dict[str, Any]:
    """Cancel a queued or running job: ``cancelled`` from now on, whatever its tasks are
    doing (they find it out at their next look and stop). Cancelling a cancelled job
    answers it again; one that is done or failed is a 409 ``job_finished``."""
    with get_database().writing() as connection:
        advance(job_id, CANCELLED, connection=connection)
        job = view(connection, job_id)
    if job["state"] != CANCELLED:
        raise Conflict(f"job {job_id} is already {job['state']}", "job_finished")
    return job


#: What a failed job says it was doing, in its public ``error``.
STOPPED = {AUTOPLAY: "the bots stopped", SIMULATION: "the simulation stopped"}
NOT_QUEUED = "the job could not be queued"


def public_error(kind: str, error: BaseException, *, queued: bool = True) -> str:
    """A failure as anyone holding the job's id may read it: a stable sentence, never
    the exception's text (a broker's address, a database host, a class name). The
    details go to the log (``fail``)."""
    head = STOPPED.get(kind, "the job stopped") if queued else NOT_QUEUED
    if isinstance(error, BrokerError | redis.RedisError):
        return f"{head}: the broker was unavailable; try again later"
    if isinstance(error, DatabaseError):
        return f"{head}: the database was unavailable; try again later"
    if isinstance(error, ApplicationError | RuleViolation):
        return f"{head}: {error.code}"  # its stable code (a detail may quote a stored row)
    return f"{head}: an internal error was logged"


def fail(
    job_id: str,
    error: str | BaseException,
    *,
    queued: bool = True,
    connection: Connection | None = None,
) -> bool:
    """Mark the job failed, unless it is already over (a failed job keeps its first
    error, a cancelled one stays cancelled). ``error``: a message for the public, or an
    exception, logged here in full and shown as ``public_error`` says (``queued``: False
    when it failed to reach the broker)."""
    if isinstance(error, BaseException):
        with get_database().reading() as reading:
            kind = reading.scalar(select(jobs.c.kind).where(jobs.c.id == job_id))
        logger.error("job %s (%s) failed", job_id, kind, exc_info=error)
        error = public_error(str(kind), error, queued=queued)
    return advance(job_id, FAILED, error=error, connection=connection)
