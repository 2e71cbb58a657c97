"""Jobs: bot autoplay and simulations, stored in the database and run by Celery.

A job row says what was asked, its state (``queued`` → ``running`` → ``done`` or
``failed``), its progress and its result, so ``GET /jobs/{id}`` answers from the
database whatever the result backend (and while Redis is down).

A simulation is split into fixed chunks of matches (``domain.bots.simulate.CHUNK``),
one task each, run as a Celery group; each chunk writes its per-match results once
(``job_chunks``' primary key), under a lock on the job row, and the chunk that completes
the set merges them in match order. So a chunk redone after a worker died cannot count
twice, exactly one chunk merges, and the result is the same on any number of workers.

Tasks run in a Celery worker: the one `make run` starts on its SQLite broker, or
`make worker`s on Redis (``Config.jobs``; ``workers/celery_app.py``), with no time
budget. Only in eager mode (``CARDLEDGER_JOBS=eager``, what the tests use) do they run
in the request (Celery's eager mode), within a time budget so a request stays a
request: autoplay stops after ``EAGER_AUTOPLAY_SECONDS`` (the next action or
``POST /tables/{id}/autoplay`` goes on), and a simulation runs only if small
(``EAGER_SIMULATION_MATCHES``, no Monte Carlo seat, done within
``EAGER_SIMULATION_SECONDS``); a larger one fails at once and says how to run it.

Anyone holding a job's id reads its ``error``: a failure is logged in full here and shown
as a stable sentence (``public_error``), never an exception's text (a broker's address).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import Any

import redis
from celery import Celery
from flask import Flask, current_app
from kombu.exceptions import OperationalError as BrokerError
from sqlalchemy import Connection, func, insert, select, update
from sqlalchemy.exc import OperationalError as DatabaseError
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.utils import import_string

from domain.bots.simulate import Simulation, Stopped, result, run_chunk
from service.config import Config
from service.db import get_database
from service.errors import ApiError
from service.eventstore import now
from service.failures import ApplicationError, NotFound
from service.models import job_chunks, jobs

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
QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"


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
    """Send a task; a broker that cannot take it raises kombu's ``OperationalError``,
    which the API answers with 503 ``broker_unavailable``."""
    celery = celery_for()
    try:
        celery.tasks[task].apply_async(args=args, retry=False)
    except (redis.RedisError, OSError, SQLAlchemyError) as error:  # SQLite broker: SQLAlchemy
        raise BrokerError(str(error)) from error


# --- job rows ---------------------------------------------------------------------------------


def create(
    kind: str, params: dict[str, Any], total: int | None, table_id: str | None = None
) -> str:
    """A new job row, ``queued``; ``total`` None when the work is not known in advance."""
    job_id = uuid.uuid4().hex
    at = now()
    with get_database().writing() as connection:
        connection.execute(
            insert(jobs).values(
                id=job_id,
                kind=kind,
                state=QUEUED,
                params=json.dumps(params),
                done=0,
                total=total if total is not None else -1,
                result=None,
                error=None,
                table_id=table_id,
                created_at=at,
                updated_at=at,
            )
        )
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


def set_fields(job_id: str, **values: Any) -> None:
    with get_database().writing() as connection:
        connection.execute(
            update(jobs).where(jobs.c.id == job_id).values(updated_at=now(), **values)
        )


def job_state(job_id: str) -> str | None:
    with get_database().reading() as connection:
        state: str | None = connection.scalar(select(jobs.c.state).where(jobs.c.id == job_id))
    return state


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
    if isinstance(error, ApiError | ApplicationError):
        return f"{head}: {error.code}"  # its stable code (a detail may quote a stored row)
    return f"{head}: an internal error was logged"


def fail(job_id: str, error: str | BaseException, *, queued: bool = True) -> None:
    """Mark the job failed (a job already failed keeps its first error). ``error``: a
    message for the public, or an exception, logged here in full and shown as
    ``public_error`` says (``queued``: False when it failed to reach the broker)."""
    with get_database().reading() as connection:
        row = connection.execute(select(jobs.c.kind, jobs.c.state).where(jobs.c.id == job_id))
        kind, state = row.first() or (None, None)
    if isinstance(error, BaseException):
        logger.error("job %s (%s) failed", job_id, kind, exc_info=error)
        error = public_error(str(kind), error, queued=queued)
    if state != FAILED:
        set_fields(job_id, state=FAILED, error=error)


# --- simulations --------------------------------------------------------------------------------


def simulation_of(job_id: str) -> Simulation:
    with get_database().reading() as connection:
        params = connection.scalar(select(jobs.c.params).where(jobs.c.id == job_id))
    if params is None:
        raise NotFound(f"there is no job {job_id}")
    return Simulation.of(json.loads(params))


def fits_in_request(sim: Simulation) -> bool:
    """Whether an in-request (eager) simulation may try at all."""
    return sim.matches <= EAGER_SIMULATION_MATCHES and "montecarlo" not in sim.seats


def start_simulation(job_id: str, eager: bool = False) -> int:
    """The ``cardledger.simulate`` task's first half: mark the job running and say how
    many chunks to fan out (0 when it is already over)."""
    state = job_state(job_id)
    if state in (DONE, FAILED, None):
        return 0
    if eager and not fits_in_request(simulation_of(job_id)):
        fail(job_id, TOO_LARGE)
        return 0
    if state == QUEUED:
        set_fields(job_id, state=RUNNING)
    return len(simulation_of(job_id).chunks())


def run_simulation_chunk(job_id: str, chunk: int, deadline: float | None = None) -> None:
    """The ``cardledger.simulate_chunk`` task: play the chunk's matches (unless another
    worker already stored them) and store them; the last chunk merges the job."""
    if job_state(job_id) in (DONE, FAILED):
        return
    with get_database().reading() as connection:
        stored = connection.scalar(
            select(func.count()).where(job_chunks.c.job_id == job_id, job_chunks.c.chunk == chunk)
        )
    if stored:
        return
    sim = simulation_of(job_id)
    stop = (lambda: time.time() > deadline) if deadline is not None else None
    try:
        matches = run_chunk(sim, sim.chunks()[chunk], stop=stop)
    except Stopped:
        fail(job_id, TOO_LARGE)
        return
    except Exception as error:
        fail(job_id, error)
        raise
    _store_chunk(job_id, chunk, matches, sim)


def _store_chunk(job_id: str, chunk: int, matches: list[list[Any]], sim: Simulation) -> None:
    database = get_database()
    with database.writing() as connection:
        state = connection.scalar(
            select(jobs.c.state).where(jobs.c.id == job_id).with_for_update()
        )  # one chunk at a time past this line, so exactly one sees the set complete
        if state in (DONE, FAILED):
            return
        exists = connection.scalar(
            select(func.count()).where(job_chunks.c.job_id == job_id, job_chunks.c.chunk == chunk)
        )
        if not exists:
            connection.execute(
                insert(job_chunks).values(job_id=job_id, chunk=chunk, result=json.dumps(matches))
            )
        rows = connection.execute(
            select(job_chunks.c.chunk, job_chunks.c.result)
            .where(job_chunks.c.job_id == job_id)
            .order_by(job_chunks.c.chunk)
        ).all()
        chunks = sim.chunks()
        done = sum(len(chunks[r.chunk]) for r in rows)
        values: dict[str, Any] = {"done": done, "updated_at": now()}
        if len(rows) == len(chunks):
            merged = [match for r in rows for match in json.loads(r.result)]
            values |= {"state": DONE, "result": json.dumps(result(sim, merged))}
        connection.execute(update(jobs).where(jobs.c.id == job_id).values(**values))
