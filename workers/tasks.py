"""Celery tasks: thin shells around the service, run inside a Flask app context.

`shared_task` binds each task to whichever app runs it (tests build their own). In a
worker the Flask app is built once per process from the environment (`DATABASE_URL`,
`REDIS_URL`, `CARDLEDGER_JOBS`, `CARDLEDGER_BROKER_URL`: the same as the server's); in
eager mode a task runs inside the request, in the request's app.

Every task is idempotent, as `acks_late` redelivers a task whose worker died and the
reaper sends again what a dead worker held: autoplay submits each bot move at an
expected version with an idempotency key, a simulation starts once (``queued`` →
``running``), and a chunk is stored once (its row's primary key) and skipped when
already there. Routes (``workers.celery_app``): simulations to ``simulations``, the rest
to ``live``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import Celery, shared_task
from celery.signals import worker_ready
from flask import Flask, current_app, has_app_context
from kombu.exceptions import OperationalError as BrokerError

from service.core.config import Config
from service.jobs import botplay, heartbeats, queue, reaper, simulations, sweep, verifier
from service.jobs.queue import LIVE
from workers.celery_app import QUEUES, SWEEP_ENTRY, make_celery

logger = logging.getLogger(__name__)

_APP: Flask | None = None


def flask_app() -> Flask:
    """The request's app in eager mode; else this worker process's own."""
    global _APP
    if has_app_context():
        app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
        return app
    if _APP is None:
        from service.running.app import create_app

        _APP = create_app()
    return _APP


def publisher(config: Config) -> Celery:
    """A web app's Celery publisher, with this module's tasks registered (so eager mode
    runs them): what ``service.jobs.queue.PUBLISHER`` names."""
    return make_celery(config, publisher=True)


@shared_task(name="cardledger.ping")
def ping() -> str:
    """Round-trip check: proves a worker consumes the queue and the result backend answers."""
    return "pong"


@shared_task(name="cardledger.autoplay", ignore_result=True)
def autoplay(table_id: str, job_id: str | None = None, seconds: float | None = None) -> None:
    """Bot moves at a table until a person must act or the match ends."""
    with flask_app().app_context():
        botplay.run_autoplay(table_id, job_id, seconds)


@shared_task(name=sweep.RESUME_TASK, ignore_result=True)
def resume_bots(idle: float = sweep.IDLE_SECONDS) -> list[str]:
    """The sweep: autoplay for every table left waiting on a bot (``service.jobs.sweep``)."""
    with flask_app().app_context():
        return sweep.resume_bots(idle)


@shared_task(name=heartbeats.HEARTBEAT_TASK, ignore_result=True)
def heartbeat(queue: str, sent_at: str | None = None) -> None:
    """A worker of ``queue`` is alive, and has taken everything sent before ``sent_at``."""
    with flask_app().app_context():
        heartbeats.record(queue, sent_at)


@shared_task(name=reaper.REAP_TASK, ignore_result=True)
def reap_jobs() -> list[str]:
    """Resume (or fail) the jobs whose worker died (``service.jobs.reaper``)."""
    with flask_app().app_context():
        return reaper.reap()


@shared_task(name=verifier.VERIFY_TASK, ignore_result=True)
def verify_streams() -> dict[str, object]:
    """Re-check the streams' stored rows, marking the damaged (``service.jobs.verifier``)."""
    with flask_app().app_context():
        return verifier.verify_streams().as_dict()


@worker_ready.connect
def when_ready(sender: Any, **_: Any) -> None:
    """A worker that starts says so at once (a heartbeat on each queue it takes, so
    `/health` need not wait for the beat's next one) and, if it takes the live queue,
    sweeps at once (with beat's arguments), not an interval later: after an outage the
    tables a lost task left waiting go on first thing."""
    app = sender.app
    if app.conf.task_always_eager:
        return
    consumed = set(app.amqp.queues.consume_from or QUEUES) & set(QUEUES)
    try:
        for queue in sorted(consumed):
            app.send_task(heartbeats.HEARTBEAT_TASK, args=(queue,), queue=queue)
        entry = app.conf.beat_schedule.get(SWEEP_ENTRY)
        if LIVE in consumed and entry is not None:
            app.send_task(entry["task"], args=entry["args"], **entry["options"])
    except BrokerError as error:  # beat's next heartbeat and sweep go on
        logger.warning("the start-up heartbeat or sweep could not be queued: %s", error)


@shared_task(name=simulations.START_TASK, ignore_result=True)
def simulate(job_id: str, seconds: float | None = None) -> None:
    """Start a simulation: mark it running and send its first chunks (a redelivered
    ``simulate`` finds it running and sends nothing)."""
    deadline = time.time() + seconds if seconds is not None else None
    with flask_app().app_context():
        try:
            first = simulations.start(job_id, eager=seconds is not None)
        except Exception as error:
            queue.fail(job_id, error)
            raise
        simulations.send(job_id, first, deadline)


@shared_task(name=simulations.CHUNK_TASK, ignore_result=True)
def simulate_chunk(job_id: str, chunk: int, deadline: float | None = None) -> None:
    """Play one chunk of a simulation's matches, store them (once), send the next."""
    with flask_app().app_context():
        following = simulations.run_simulation_chunk(job_id, chunk, deadline)
        simulations.send(job_id, following, deadline)
