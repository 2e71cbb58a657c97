"""Celery tasks: thin shells around ``service.jobs``, run inside a Flask app context.

`shared_task` binds each task to whichever app runs it (tests build their own). In a
worker the Flask app is built once per process from the environment (`DATABASE_URL`,
`REDIS_URL`, `CARDLEDGER_JOBS`, `CARDLEDGER_BROKER_URL`: the same as the server's); in
eager mode a task runs inside the request, in the request's app.

Every task is idempotent, as `acks_late` redelivers a task whose worker died: autoplay
submits each bot move at an expected version with an idempotency key, and a simulation
chunk is stored once (its row's primary key) and skipped when already there.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import Celery, Task, group, shared_task
from celery.signals import worker_ready
from flask import Flask, current_app, has_app_context
from kombu.exceptions import OperationalError as BrokerError

from service import botplay, jobs, sweep
from service.config import Config
from workers.celery_app import SWEEP_ENTRY, make_celery

logger = logging.getLogger(__name__)

_APP: Flask | None = None


def flask_app() -> Flask:
    """The request's app in eager mode; else this worker process's own."""
    global _APP
    if has_app_context():
        app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
        return app
    if _APP is None:
        from service.app import create_app

        _APP = create_app()
    return _APP


def publisher(config: Config) -> Celery:
    """A web app's Celery publisher, with this module's tasks registered (so eager mode
    runs them): what ``service.jobs.PUBLISHER`` names."""
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
    """The sweep: autoplay for every table left waiting on a bot (``service.sweep``)."""
    with flask_app().app_context():
        return sweep.resume_bots(idle)


@worker_ready.connect
def sweep_when_ready(sender: Any, **_: Any) -> None:
    """A worker that starts sweeps at once (with beat's arguments), not an interval
    later: after an outage the tables a lost task left waiting go on first thing."""
    app = sender.app
    entry = app.conf.beat_schedule.get(SWEEP_ENTRY)
    if app.conf.task_always_eager or entry is None:
        return
    try:
        app.send_task(entry["task"], args=entry["args"], **entry["options"])
    except BrokerError as error:  # beat's next sweep goes on
        logger.warning("the start-up sweep could not be queued: %s", error)


@shared_task(name="cardledger.simulate", bind=True, ignore_result=True)
def simulate(self: Task, job_id: str, seconds: float | None = None) -> None:
    """Fan a simulation out: one ``simulate_chunk`` per chunk, as a group. A redelivered
    ``simulate`` fans out again; chunks already stored return at once."""
    with flask_app().app_context():
        chunks = jobs.start_simulation(job_id, eager=seconds is not None)
    if not chunks:
        return
    deadline = time.time() + seconds if seconds is not None else None
    parts = [
        self.app.signature("cardledger.simulate_chunk", args=(job_id, i, deadline))
        for i in range(chunks)
    ]
    group(parts, app=self.app).apply_async()


@shared_task(name="cardledger.simulate_chunk", ignore_result=True)
def simulate_chunk(job_id: str, chunk: int, deadline: float | None = None) -> None:
    """Play one chunk of a simulation's matches and store them (once)."""
    with flask_app().app_context():
        jobs.run_simulation_chunk(job_id, chunk, deadline)
