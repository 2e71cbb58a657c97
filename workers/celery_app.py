"""The Celery app (`celery -A workers.celery_app worker`, which `make worker` runs, and
`make run` too in the embedded default).

Where jobs run (``Config.jobs``, from `CARDLEDGER_JOBS` and `REDIS_URL`):

- ``sqlite``, the default without `REDIS_URL`: the broker is kombu's SQLAlchemy transport
  on a SQLite file (`var/celery-broker.sqlite`, or `CARDLEDGER_BROKER_URL`), which needs
  no server; `make run` (`cardledger serve`) starts one worker with its beat beside
  gunicorn and stops it with the server. No result backend: jobs live in our database.
- ``redis``: Redis is both broker and result backend, and a task survives a worker crash
  (acks late + reject on worker lost: the message stays in Redis until the task
  finished, and is delivered again if the worker died), which the idempotent command
  path makes safe.
- ``eager`` (`CARDLEDGER_JOBS=eager`, what the tests' apps use): tasks run in the
  process that enqueues them, inside the request, within the ``EAGER_*`` budgets of
  ``service.jobs``. `make run` never chooses it by itself.

Two optional settings, from the environment:

- `CARDLEDGER_BROKER_PREFIX`: a prefix for every key Celery keeps in Redis, so several
  deployments (or test runs) can share one Redis without taking each other's tasks.
- `CARDLEDGER_VISIBILITY_TIMEOUT` (seconds, default 3600): how long a task taken by a
  worker that then vanished (killed, machine lost) waits before another worker gets it.
  Keep it above the longest task (a simulation chunk takes seconds, autoplay minutes).
- `CARDLEDGER_SWEEP_SECONDS` (default 15): how often Celery beat (`make worker` embeds
  it: `worker -B`) runs `cardledger.resume_bots`, which re-queues the bots of tables whose
  task a broker outage lost (`service/sweep.py`); every worker also runs it once when ready.
  `CARDLEDGER_SWEEP_IDLE_SECONDS` (default 5): how long such a table must have had no
  event, so a table whose bots are moving right now is left to them.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Any

from celery import Celery

from service.config import Config
from service.sweep import IDLE_SECONDS, RESUME_TASK

DEFAULT_VISIBILITY_TIMEOUT = 3600
BROKER_CONNECT_TIMEOUT = 2.0
DEFAULT_SWEEP_SECONDS = 15.0
SWEEP_ENTRY = "resume-bots"


def transport_options(env: Mapping[str, str]) -> dict[str, Any]:
    """Redis transport options from the environment (see the module docstring)."""
    options: dict[str, Any] = {"socket_connect_timeout": BROKER_CONNECT_TIMEOUT}
    prefix = env.get("CARDLEDGER_BROKER_PREFIX", "").strip()
    if prefix:
        options["global_keyprefix"] = prefix
    timeout = int(env.get("CARDLEDGER_VISIBILITY_TIMEOUT", "") or DEFAULT_VISIBILITY_TIMEOUT)
    options["visibility_timeout"] = timeout
    # Redis only hands an abandoned task on when a worker sweeps for them: sweep at
    # least as often as the timeout, so a short timeout really is short.
    options["unacked_restore_interval"] = max(1, min(10, timeout // 2))
    options["unacked_restore_throttle"] = 1
    return options


def sweep_schedule(env: Mapping[str, str]) -> dict[str, Any]:
    """Celery beat's schedule: the bots' sweep (see the module docstring). A sweep left
    in the queue past the next one expires: sweeps never pile up behind long tasks."""
    interval = float(env.get("CARDLEDGER_SWEEP_SECONDS", "") or DEFAULT_SWEEP_SECONDS)
    idle = float(env.get("CARDLEDGER_SWEEP_IDLE_SECONDS", "") or IDLE_SECONDS)
    if interval <= 0 or idle < 0:
        raise ValueError("CARDLEDGER_SWEEP_SECONDS must be > 0, CARDLEDGER_SWEEP_IDLE_SECONDS >= 0")
    return {
        SWEEP_ENTRY: {
            "task": RESUME_TASK,
            "schedule": interval,
            "args": (idle,),
            "options": {"expires": interval},
        }
    }


def sqlite_transport_options() -> dict[str, Any]:
    """kombu's SQLAlchemy transport passes these to ``create_engine``: no pooled
    connection outlives a fork (the prefork pool's children publish chunks too), and a
    writer waits for SQLite's lock rather than failing at once. kombu's models use a
    loader SQLAlchemy 2.1 deprecates: its warning says nothing we can act on."""
    from sqlalchemy.exc import SADeprecationWarning
    from sqlalchemy.pool import NullPool

    warnings.filterwarnings("ignore", r"The ``noload`` loader strategy", SADeprecationWarning)

    return {"poolclass": NullPool, "connect_args": {"timeout": 30}}


def make_celery(
    where: Config | str | None, env: Mapping[str, str] | None = None, *, publisher: bool = False
) -> Celery:
    """The Celery app for a configuration (``Config.jobs``), or for a Redis URL (eager
    without one). ``publisher``: the web side's, which only sends tasks and must fail
    fast when Redis is down (a request then answers 503 at once), where a worker keeps
    retrying until Redis is back."""
    env = os.environ if env is None else env
    if isinstance(where, Config):
        mode, broker_url = where.jobs, where.broker_url
    else:
        mode, broker_url = ("redis" if where else "eager"), where
    redis_url = broker_url if mode == "redis" else None
    celery = Celery("cardledger", include=["workers.tasks"])
    celery.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # with acks late, a crashed worker strands at most one task
        task_track_started=True,
        broker_connection_retry_on_startup=True,
    )
    if redis_url:
        options = transport_options(env)
        if publisher:
            options |= {"max_retries": 1, "interval_start": 0, "interval_step": 0.1}
        celery.conf.update(
            broker_url=redis_url,
            result_backend=redis_url,
            broker_transport_options=options,
            result_backend_transport_options={
                k: v for k, v in options.items() if k in ("global_keyprefix",)
            },
            broker_connection_timeout=BROKER_CONNECT_TIMEOUT,
            redis_socket_connect_timeout=BROKER_CONNECT_TIMEOUT,
            beat_schedule=sweep_schedule(env),
            beat_scheduler="celery.beat:Scheduler",  # in memory: no schedule file to keep
        )
    elif mode == "sqlite":
        celery.conf.update(
            broker_url=broker_url,
            broker_transport_options=sqlite_transport_options(),
            result_backend=None,
            task_ignore_result=True,
            # The transport polls, and sleeps a second whenever the worker's prefetch is
            # full: a deeper prefetch keeps the pool busy through a simulation's chunks.
            worker_prefetch_multiplier=8,
            task_track_started=False,
            beat_schedule=sweep_schedule(env),
            beat_scheduler="celery.beat:Scheduler",
        )
    else:
        celery.conf.update(
            broker_url="memory://",
            result_backend="cache+memory://",
            task_always_eager=True,
            task_eager_propagates=True,
        )
    return celery


app = make_celery(Config.from_env())
