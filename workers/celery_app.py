"""The Celery app (`celery -A workers.celery_app worker|beat`, which `make run`'s
`cardledger serve` and `make worker`'s `cardledger workers` start and supervise).

Where jobs run (``Config.jobs``, from `CARDLEDGER_JOBS` and `REDIS_URL`):

- ``sqlite``, the default without `REDIS_URL`: the broker is kombu's SQLAlchemy transport
  on a SQLite file (`var/celery-broker.sqlite`, or `CARDLEDGER_BROKER_URL`), which needs
  no server, in ``workers.broker``'s variant that deletes what it delivered (so the file
  does not grow with finished jobs). No result backend: jobs live in our database.
- ``redis``: Redis is both broker and result backend, and a task survives a worker crash
  (acks late + reject on worker lost: the message stays in Redis until the task
  finished, and is delivered again if the worker died), which the idempotent command
  path makes safe.
- ``eager`` (`CARDLEDGER_JOBS=eager`, what the tests' apps use): tasks run in the
  process that enqueues them, inside the request, within the ``EAGER_*`` budgets of
  ``service.jobs.queue``. `make run` never chooses it by itself.

Two queues (``service.jobs.queue``): ``live`` (the bots of tables in play, the sweep, the
reaper, heartbeats, and any task not routed elsewhere) and ``simulations`` (a
simulation's start and its chunks). `cardledger serve` and `cardledger workers` run one
worker per queue (``-Q live``, ``-Q simulations``), so a simulation can never occupy a
process the live tables need; a worker started without ``-Q`` takes both. Each worker
takes one task per process at a time (prefetch 1, ``-O fair``): none hoards the other
queue's tasks or sits on tasks its busy processes cannot start.

The beat (``workers.beat.Beat``, its own process under the supervisor, or ``-B``) sends:

- the bots' sweep, `cardledger.resume_bots`, every `CARDLEDGER_SWEEP_SECONDS` (default
  15), for tables whose bots' task was lost (``service.jobs.sweep``); a worker of the live
  queue also runs it once when ready. `CARDLEDGER_SWEEP_IDLE_SECONDS` (default 5): how
  long such a table must have had no event, so a table whose bots are moving right now
  is left to them;
- a heartbeat to each queue every `CARDLEDGER_HEARTBEAT_SECONDS` (default 5;
  ``service.jobs.heartbeats``), and the reaper every two periods (``service.jobs.reaper``);
- the verifier, `cardledger.verify_streams`, every `CARDLEDGER_VERIFY_SECONDS` (default 60)
  on the simulations queue (background work no live table waits on): it re-checks every
  stream's stored rows and marks the damaged ones (``service.jobs.verifier``).

Two more settings, from the environment:

- `CARDLEDGER_BROKER_PREFIX`: a prefix for every key Celery keeps in Redis, so several
  deployments (or test runs) can share one Redis without taking each other's tasks.
- `CARDLEDGER_VISIBILITY_TIMEOUT` (seconds, default 3600): how long a task taken by a
  worker that then vanished (killed, machine lost) waits in Redis before another worker
  gets it. The reaper resumes such a job long before; keep it above the longest task (a
  chunk or an autoplay slice takes seconds).
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Mapping
from typing import Any

from celery import Celery
from celery.beat import BeatLazyFunc
from kombu import Exchange, Queue

from service.core.config import DEFAULT_HEARTBEAT_SECONDS, Config
from service.jobs.heartbeats import DOWN_PERIODS, HEARTBEAT_TASK
from service.jobs.queue import LIVE, SIMULATIONS
from service.jobs.reaper import REAP_TASK
from service.jobs.simulations import CHUNK_TASK, START_TASK
from service.jobs.sweep import IDLE_SECONDS, RESUME_TASK
from service.jobs.verifier import DEFAULT_VERIFY_SECONDS, VERIFY_TASK
from service.storage.eventstore import now
from workers.broker import TRANSPORT, database_url

DEFAULT_VISIBILITY_TIMEOUT = 3600
BROKER_CONNECT_TIMEOUT = 2.0
DEFAULT_SWEEP_SECONDS = 15.0
SWEEP_ENTRY = "resume-bots"
REAP_ENTRY = "reap-jobs"
VERIFY_ENTRY = "verify-streams"
QUEUES = (LIVE, SIMULATIONS)
#: How often a worker looks at an empty queue of the SQLite broker (Redis needs no polls).
SQLITE_POLLING_SECONDS = 0.2
#: Tasks whose every run would fill the workers' and the beat's logs (they log themselves
#: when they find something to do).
QUIET_TASKS = (HEARTBEAT_TASK, REAP_TASK, VERIFY_TASK)


def heartbeat_entry(queue: str) -> str:
    return f"heartbeat-{queue}"


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
    """Celery beat's sweep entry (see the module docstring). A sweep left in the queue
    past the next one expires: sweeps never pile up behind long tasks."""
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


def beat_schedule(env: Mapping[str, str], period: float) -> dict[str, Any]:
    """Everything beat sends: the sweep; every ``period``, a heartbeat to each queue with
    the moment it was sent (evaluated as beat sends it); the reaper every two periods.
    A heartbeat nobody took within the periods that would call its queue down expires."""
    schedule = sweep_schedule(env)
    for queue in QUEUES:
        schedule[heartbeat_entry(queue)] = {
            "task": HEARTBEAT_TASK,
            "schedule": period,
            "args": (queue,),
            "kwargs": {"sent_at": BeatLazyFunc(now)},
            "options": {"queue": queue, "expires": DOWN_PERIODS * period},
        }
    schedule[REAP_ENTRY] = {
        "task": REAP_TASK,
        "schedule": 2 * period,
        "options": {"expires": 2 * period},
    }
    verify = float(env.get("CARDLEDGER_VERIFY_SECONDS", "") or DEFAULT_VERIFY_SECONDS)
    if verify <= 0:
        raise ValueError("CARDLEDGER_VERIFY_SECONDS must be > 0")
    schedule[VERIFY_ENTRY] = {  # background work: on the queue no live table waits on
        "task": VERIFY_TASK,
        "schedule": verify,
        "options": {"queue": SIMULATIONS, "expires": verify},
    }
    return schedule


def sqlite_transport_options() -> dict[str, Any]:
    """The SQLite broker's transport options. kombu's SQLAlchemy transport passes all but
    its own to ``create_engine``: no pooled connection outlives a fork (the prefork pool's
    children publish chunks too), and a writer waits for SQLite's lock rather than failing
    at once. An empty queue is looked at five times a second, so a live table's task is
    taken at once. kombu's models use a loader SQLAlchemy 2.1 deprecates: its warning says
    nothing we can act on."""
    from sqlalchemy.exc import SADeprecationWarning
    from sqlalchemy.pool import NullPool

    warnings.filterwarnings("ignore", r"The ``noload`` loader strategy", SADeprecationWarning)

    return {
        "poolclass": NullPool,
        "connect_args": {"timeout": 30},
        "polling_interval": SQLITE_POLLING_SECONDS,
    }


class QuietTasks(logging.Filter):
    """Drops the received/succeeded/sent lines of ``QUIET_TASKS``."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not any(task in message for task in QUIET_TASKS)


for _name in ("celery.worker.strategy", "celery.app.trace", "celery.beat"):
    logging.getLogger(_name).addFilter(QuietTasks())


def heartbeat_period(where: Config | str | None, env: Mapping[str, str]) -> float:
    if isinstance(where, Config):
        return float(where.heartbeat_seconds)
    text = env.get("CARDLEDGER_HEARTBEAT_SECONDS", "").strip()
    return float(text) if text else DEFAULT_HEARTBEAT_SECONDS


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
        # one task per process at a time: a crashed worker strands at most that many, and
        # no worker holds tasks its busy processes cannot start (another could)
        worker_prefetch_multiplier=1,
        task_track_started=True,
        broker_connection_retry_on_startup=True,
        task_queues=[Queue(name, Exchange(name), routing_key=name) for name in QUEUES],
        task_default_queue=LIVE,
        task_routes={
            START_TASK: {"queue": SIMULATIONS},
            CHUNK_TASK: {"queue": SIMULATIONS},
            VERIFY_TASK: {"queue": SIMULATIONS},  # background: no live table waits on it
        },
    )
    schedule = {}
    if mode != "eager":
        schedule = beat_schedule(env, heartbeat_period(where, env))
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
            beat_schedule=schedule,
            beat_scheduler="workers.beat:Beat",
        )
    elif mode == "sqlite":
        assert broker_url is not None
        celery.conf.update(
            broker_url=database_url(broker_url) or broker_url,
            broker_transport=TRANSPORT if database_url(broker_url) else None,
            broker_transport_options=sqlite_transport_options(),
            result_backend=None,
            task_ignore_result=True,
            task_track_started=False,
            beat_schedule=schedule,
            beat_scheduler="workers.beat:Beat",
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
