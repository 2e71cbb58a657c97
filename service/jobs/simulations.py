"""Simulations as jobs: fixed chunks of matches, a few in flight at a time.

A simulation is split into fixed chunks of matches (``domain.bots.simulate.CHUNK``), one
``cardledger.simulate_chunk`` task each on the ``simulations`` queue. Only ``IN_FLIGHT``
of a job's chunks are in the broker at any moment (``queue.dispatched`` counts the chunks
sent): ``start`` sends the first ones and every chunk that stores its matches sends the
next. So a 10,000-match job is a handful of messages, not a thousand: several
simulations share the workers chunk by chunk, a cancelled one leaves almost nothing
behind, and the broker holds no backlog to lose.

Each chunk writes its per-match results once (``job_chunks``' primary key), under a lock
on the job row, and the chunk that completes the set merges them in match order. So a
chunk redone after a worker died cannot count twice, exactly one chunk merges, and the
result is the same on any number of workers.

A chunk reads its job's state when it begins, asks ``KeepAlive`` before every bot
decision (at most once a second it stamps the job's ``alive_at`` and the queue's
heartbeat and learns whether the job still runs) and stores nothing unless the job still
runs: a cancelled job's chunks stop within a second and send no more.

A chunk that began stamps its own sign of life too (``job_chunk_starts``). When a worker
dies: a prefork pool's process killed mid-chunk gets its chunk back from Celery (acks
late, rejected on worker lost); otherwise the reaper (``service.jobs.reaper``) sends again a
chunk that began and went silent (``lost_chunks``), while the job's other chunks go on,
and a job gone silent altogether has its unstored chunks sent again (``resend_lost``). A
chunk that began ``MAX_CHUNK_STARTS`` times without storing (it kills its worker every
time) fails its job with a reason.
"""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from domain.bots.simulate import Simulation, Stopped, result, run_chunk
from service.core.refusals import NotFound
from service.jobs import queue
from service.jobs.heartbeats import KeepAlive
from service.storage.db import get_database
from service.storage.eventstore import now
from service.storage.models import job_chunk_starts, job_chunks
from service.storage.models import jobs as job_rows

CHUNK_TASK = "cardledger.simulate_chunk"
START_TASK = "cardledger.simulate"
#: Chunks of one simulation in the broker at once: enough to keep eight worker
#: processes busy, few enough that other simulations and heartbeats are not kept waiting.
IN_FLIGHT = 8
#: A chunk that began this often without storing its matches fails its job.
MAX_CHUNK_STARTS = 3


def simulation_of(job_id: str) -> Simulation:
    with get_database().reading() as connection:
        params = connection.scalar(select(job_rows.c.params).where(job_rows.c.id == job_id))
    if params is None:
        raise NotFound(f"there is no job {job_id}")
    return Simulation.of(json.loads(params))


def fits_in_request(sim: Simulation) -> bool:
    """Whether an in-request (eager) simulation may try at all."""
    return sim.matches <= queue.EAGER_SIMULATION_MATCHES and "montecarlo" not in sim.seats


def start(job_id: str, eager: bool = False) -> list[int]:
    """The ``cardledger.simulate`` task: mark the job running and say which chunks to
    send first (none when it is not queued any more: a second ``simulate`` for one job,
    a redelivery or the reaper's, sends nothing twice)."""
    sim = simulation_of(job_id)
    if eager and not fits_in_request(sim):
        queue.fail(job_id, queue.TOO_LARGE)
        return []
    first = min(IN_FLIGHT, len(sim.chunks()))
    moved = queue.advance(
        job_id, queue.RUNNING, origin=(queue.QUEUED,), alive_at=now(), dispatched=first
    )
    return list(range(first)) if moved else []


def send(job_id: str, chunks: list[int], deadline: float | None = None) -> None:
    for chunk in chunks:
        queue.enqueue(CHUNK_TASK, job_id, chunk, deadline)


def _stored(connection: Connection, job_id: str, chunk: int) -> bool:
    return bool(
        connection.scalar(
            select(func.count()).where(job_chunks.c.job_id == job_id, job_chunks.c.chunk == chunk)
        )
    )


def _locked_state(connection: Connection, job_id: str) -> str | None:
    """The job's state, its row locked for this transaction (SQLite: the write lock)."""
    return connection.scalar(
        select(job_rows.c.state).where(job_rows.c.id == job_id).with_for_update()
    )


def begin(job_id: str, chunk: int) -> bool:
    """Whether to play the chunk: the job runs and the chunk is not stored yet. Counts
    the start; one that began ``MAX_CHUNK_STARTS`` times fails the job instead."""
    with get_database().writing() as connection:
        if _locked_state(connection, job_id) != queue.RUNNING or _stored(connection, job_id, chunk):
            return False
        key = (job_chunk_starts.c.job_id == job_id) & (job_chunk_starts.c.chunk == chunk)
        starts = connection.scalar(select(job_chunk_starts.c.starts).where(key))
        if starts is None:
            row = {"job_id": job_id, "chunk": chunk, "starts": 1, "alive_at": now()}
            connection.execute(insert(job_chunk_starts).values(row))
        else:
            connection.execute(
                update(job_chunk_starts).where(key).values(starts=starts + 1, alive_at=now())
            )
        if (starts or 0) >= MAX_CHUNK_STARTS:
            matches = simulation_of(job_id).chunks()[chunk]
            reason = (
                f"the simulation stopped: the worker playing matches {matches.start}–"
                f"{matches.stop - 1} died {starts} times"
            )
            queue.fail(job_id, reason, connection=connection)
            return False
        connection.execute(update(job_rows).where(job_rows.c.id == job_id).values(alive_at=now()))
    return True


def run_simulation_chunk(job_id: str, chunk: int, deadline: float | None = None) -> list[int]:
    """The ``cardledger.simulate_chunk`` task: play the chunk's matches (unless another
    worker already stored them, or the job no longer runs) and store them; the chunks to
    send next (the last chunk merges the job instead)."""
    if not begin(job_id, chunk):
        return []
    sim = simulation_of(job_id)
    keep = KeepAlive(queue.SIMULATIONS, job_id, chunk=chunk)

    def stop() -> bool:
        return (deadline is not None and time.time() > deadline) or not keep()

    try:
        matches = run_chunk(sim, sim.chunks()[chunk], stop=stop)
    except Stopped:
        if keep.running:  # the request's time ran out (eager), not a cancelled job
            queue.fail(job_id, queue.TOO_LARGE)
        return []
    except Exception as error:
        queue.fail(job_id, error)
        raise
    return _store_chunk(job_id, chunk, matches, sim)


def _store_chunk(job_id: str, chunk: int, matches: list[list[Any]], sim: Simulation) -> list[int]:
    chunks = sim.chunks()
    with get_database().writing() as connection:
        # one chunk at a time past this line, so exactly one sees the set complete
        if _locked_state(connection, job_id) != queue.RUNNING or _stored(connection, job_id, chunk):
            return []
        connection.execute(
            insert(job_chunks).values(job_id=job_id, chunk=chunk, result=json.dumps(matches))
        )
        row = connection.execute(
            select(job_rows.c.done, job_rows.c.dispatched).where(job_rows.c.id == job_id)
        ).one()
        done = row.done + len(chunks[chunk])
        values: dict[str, Any] = {"done": done, "updated_at": now(), "alive_at": now()}
        following = []
        if done >= sim.matches:
            rows = connection.execute(
                select(job_chunks.c.result)
                .where(job_chunks.c.job_id == job_id)
                .order_by(job_chunks.c.chunk)
            ).scalars()
            merged = [match for text in rows for match in json.loads(text)]
            values |= {"state": queue.DONE, "result": json.dumps(result(sim, merged))}
        elif row.dispatched < len(chunks):
            following = [row.dispatched]
            values["dispatched"] = row.dispatched + 1
        connection.execute(update(job_rows).where(job_rows.c.id == job_id).values(**values))
    return following


def lost_chunks(stale_before: str, passed: str) -> list[tuple[str, int]]:
    """The chunks of running simulations that began and were neither stored nor alive
    since ``stale_before``, nor since the moment (``passed``) before which everything sent
    to the simulations queue has been taken: their worker died while the job's other
    chunks may go on (``service.jobs.reaper``)."""
    stored = (job_chunks.c.job_id == job_chunk_starts.c.job_id) & (
        job_chunks.c.chunk == job_chunk_starts.c.chunk
    )
    query = (
        select(job_chunk_starts.c.job_id, job_chunk_starts.c.chunk)
        .join(job_rows, job_rows.c.id == job_chunk_starts.c.job_id)
        .outerjoin(job_chunks, stored)
        .where(
            job_rows.c.state == queue.RUNNING,
            job_chunks.c.chunk.is_(None),
            job_chunk_starts.c.alive_at < stale_before,
            job_chunk_starts.c.alive_at < passed,
        )
        .order_by(job_chunk_starts.c.alive_at)
    )
    with get_database().reading() as connection:
        return [(row.job_id, row.chunk) for row in connection.execute(query)]


def resend_chunk(job_id: str, chunk: int, silent_since: str) -> bool:
    """Send a lost chunk again, once per loss: its sign of life is renewed here, unless
    it showed life since ``silent_since`` (another reaper was first); whether it was sent."""
    with get_database().writing() as connection:
        renewed = connection.execute(
            update(job_chunk_starts)
            .where(
                job_chunk_starts.c.job_id == job_id,
                job_chunk_starts.c.chunk == chunk,
                job_chunk_starts.c.alive_at < silent_since,
            )
            .values(alive_at=now())
        ).rowcount
    if renewed:
        send(job_id, [chunk])
    return bool(renewed)


def resend_lost(job_id: str) -> list[int]:
    """The reaper revived the job (``queue.revive``): its chunks in flight were lost with
    their worker. Its chunks sent and not stored are sent again (the start, for a job
    still queued); which chunks."""
    with get_database().reading() as connection:
        state, dispatched = connection.execute(
            select(job_rows.c.state, job_rows.c.dispatched).where(job_rows.c.id == job_id)
        ).one()
        stored = set(
            connection.scalars(select(job_chunks.c.chunk).where(job_chunks.c.job_id == job_id))
        )
    if state == queue.QUEUED:
        queue.enqueue(START_TASK, job_id, None)
        return []
    if state != queue.RUNNING:
        return []
    missing = [chunk for chunk in range(dispatched) if chunk not in stored]
    send(job_id, missing)
    return missing
