"""`cardledger serve` (what `make run` runs) and `cardledger workers` (what `make worker`
runs): start the service's processes and keep them running.

`serve` is gunicorn (gthread: ``--threads`` for requests and ``CARDLEDGER_WATCHERS`` more
per worker, one for each live stream a worker may hold open: ``service.application.live``)
and, when jobs go through the SQLite broker (``Config.jobs ==
"sqlite"``, the default without `REDIS_URL`), the jobs' processes beside it, so no job
ever runs inside a request; with `REDIS_URL` (the jobs' processes are `make worker`s) or
`CARDLEDGER_JOBS=eager` it is gunicorn alone. `workers` is the jobs' processes alone,
for Redis. The jobs' processes, each supervised on its own:

- ``worker-live-N`` (``--live-workers`` of them): Celery workers of the ``live`` queue
  (the bots of tables in play, the sweep, the reaper);
- ``worker-simulations-N`` (``--job-workers``): Celery workers of the ``simulations``
  queue; workers of their own, so a simulation, however large, never holds a process a
  live table needs;
- ``beat``: Celery beat, its own process rather than ``-B`` inside a worker, so it is
  restarted on its own when it dies.

Each worker is one process running one task at a time (Celery's ``solo`` pool), not a
prefork pool: on a broker without an event loop (the SQLite one) a prefork pool shares
one lock among its children to hand out tasks, and a child killed while holding it (an
idle one, waiting for the next task) leaves every other child waiting forever: a worker
that looks alive and runs nothing. A solo worker that dies is just a process to restart,
and the task it held is resumed by the reaper (``service.jobs.reaper``).

Supervision: every child runs in a process group of its own. A child that exits while
the server runs is restarted after a short backoff (1 s, doubling while it keeps dying
within ``STABLE_SECONDS`` of its start, up to 30 s), once whatever it left in its group
is killed; its part is marked down for `/health` at once
(``service.jobs.heartbeats.mark_down``) and comes back when a worker of that queue runs a
heartbeat (a restarted worker sends itself one when ready). A child dying ``GIVE_UP``
times in a row within ``STABLE_SECONDS`` of its start (a port in use, a broken
configuration) stops everything: exit 1, saying why. SIGINT, SIGTERM or SIGHUP stops
every child (SIGTERM to each group, SIGKILL after ``STOP_SECONDS``) and exits 0; on Linux
a child whose supervisor was killed outright gets SIGTERM from the kernel. No process is
left behind either way.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from types import FrameType

import click

from service.core.config import Config
from service.jobs.heartbeats import BEAT, mark_down
from service.jobs.queue import LIVE, SIMULATIONS

STOP_SECONDS = 15.0
PR_SET_PDEATHSIG = 1
#: A child that ran this long before exiting is restarted after the first backoff again.
STABLE_SECONDS = 10.0
FIRST_BACKOFF, MAX_BACKOFF = 1.0, 30.0
#: This many quick deaths in a row: give up and stop everything.
GIVE_UP = 5
POLL_SECONDS = 0.2


def _die_with_parent() -> None:  # pragma: no cover (runs in the child, before exec)
    """Linux: the kernel sends SIGTERM to this child when its supervisor dies."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass(frozen=True)
class Options:
    """``cardledger serve``'s and ``cardledger workers``' options."""

    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 2
    threads: int = 4
    job_workers: int = 2
    live_workers: int = 2
    web: bool = True
    #: Run the jobs' processes: None, only when they go through the SQLite broker (serve).
    jobs: bool | None = None
    beat: bool = True


@dataclass(frozen=True)
class Command:
    """A child to keep running: its command line, and the heartbeat part it serves."""

    argv: list[str]
    part: str | None = None


def celery_worker(queue: str, number: int, prefetch: int = 1) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker",
            "-Q", queue, "-P", "solo", "--prefetch-multiplier", str(prefetch),
            "-n", f"{queue}{number}-{os.getpid()}@%h", "--loglevel=INFO",
            "--without-gossip", "--without-mingle", "--without-heartbeat"]  # fmt: skip


def commands(args: Options, config: Config) -> dict[str, Command]:
    """What to start: gunicorn (``web``), and the jobs' processes (``jobs``; by default on
    the SQLite broker only), never for eager mode (they run in the request)."""
    python = sys.executable
    started = {}
    if args.web:
        threads = args.threads + config.watchers  # a thread for each live stream it may hold
        started["gunicorn"] = Command(
            [python, "-m", "gunicorn", "service.running.app:create_app()",
             "--bind", f"{args.host}:{args.port}", "--workers", str(args.workers),
             "--threads", str(threads), "--config", "python:service.running.gunicorn_conf"]
        )  # fmt: skip
    jobs = args.jobs if args.jobs is not None else config.jobs == "sqlite"
    if jobs and config.jobs != "eager":
        for n in range(1, args.live_workers + 1):
            started[f"worker-live-{n}"] = Command(celery_worker(LIVE, n), LIVE)
        for n in range(1, args.job_workers + 1):
            # one chunk waiting per process: the next starts as one ends, not a poll later
            started[f"worker-simulations-{n}"] = Command(
                celery_worker(SIMULATIONS, n, prefetch=2), SIMULATIONS
            )
        if args.beat:
            started["beat"] = Command(
                [python, "-m", "celery", "-A", "workers.celery_app", "beat",
                 "--loglevel=INFO"], BEAT
            )  # fmt: skip
    return started


def say(message: str) -> None:
    print(f"cardledger serve: {message}", file=sys.stderr, flush=True)


@dataclass
class Child:
    """One supervised child: its process while it runs, when to start it again else."""

    name: str
    command: Command
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    quick_deaths: int = 0
    restart_at: float | None = field(default=0.0)

    def start(self) -> None:
        self.process = subprocess.Popen(
            self.command.argv, start_new_session=True, preexec_fn=_die_with_parent
        )
        self.started, self.restart_at = time.monotonic(), None
        say(f"{self.name} pid {self.process.pid}")

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def clear_group(self) -> None:
        """SIGKILL what the child left in its process group (a pool process that
        outlived its worker), and reap the child."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


def backoff(quick_deaths: int) -> float:
    return float(min(MAX_BACKOFF, FIRST_BACKOFF * 2 ** max(0, quick_deaths - 1)))


def stop(children: list[Child]) -> None:
    """SIGTERM every child (gunicorn's master and Celery's main process stop their own
    workers), then SIGKILL its whole process group, whatever is left after STOP_SECONDS."""
    running = [c for c in children if c.process is not None]
    for child in running:
        if child.running():
            assert child.process is not None
            child.process.terminate()
    deadline = time.monotonic() + STOP_SECONDS
    for child in running:
        assert child.process is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
    for child in running:  # the group too: a pool child that outlived its parent
        child.clear_group()


def prepare_broker(url: str) -> None:
    """Create the SQLite broker's tables and the queues before gunicorn and the workers
    start: kombu creates them lazily in each process, and two processes creating them at
    the same moment fail (the first job posted would get a 503)."""
    from kombu import Connection, Exchange, Queue

    with Connection(url) as connection:
        for name in (LIVE, SIMULATIONS):
            Queue(name, Exchange(name), routing_key=name)(connection.default_channel).declare()


def supervise(children: list[Child], config: Config, stopping: list[int]) -> int:
    """Keep ``children`` running until a signal (0) or a child that cannot stay up (1)."""
    while not stopping:
        now = time.monotonic()
        for child in children:
            if child.restart_at is not None:
                if now >= child.restart_at:
                    child.start()
                continue
            if child.running():
                if now - child.started >= STABLE_SECONDS:
                    child.quick_deaths = 0
                continue
            assert child.process is not None
            code = child.process.returncode
            child.clear_group()
            if child.command.part is not None:
                mark_down(config.database_url, (child.command.part,))
            quick = now - child.started < STABLE_SECONDS
            child.quick_deaths = child.quick_deaths + 1 if quick else 1
            if child.quick_deaths >= GIVE_UP:
                say(f"{child.name} exited (code {code}) {GIVE_UP} times in a row soon after "
                    "starting; stopping")  # fmt: skip
                return 1
            delay = backoff(child.quick_deaths)
            say(f"{child.name} exited (code {code}); restarting it in {delay:g} s")
            child.restart_at = now + delay
        time.sleep(POLL_SECONDS)
    return 0


def serve(args: Options) -> int:
    config = Config.from_env()  # a bad CARDLEDGER_JOBS stops here, before anything starts
    planned = commands(args, config)
    if not planned:
        say("nothing to run: the jobs run in the request (CARDLEDGER_JOBS=eager)")
        return 1
    jobs_here = any(command.part for command in planned.values())
    config.var_dir.mkdir(parents=True, exist_ok=True)  # the broker's file, the signing key
    if jobs_here and config.jobs == "sqlite" and config.broker_url:
        prepare_broker(config.broker_url)
    if jobs_here:  # down until each is heard from (its first heartbeat)
        parts = tuple(c.part for c in planned.values() if c.part is not None)
        mark_down(config.database_url, parts)
    stopping: list[int] = []

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stopping.append(signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)
    children = [Child(name, command) for name, command in planned.items()]
    try:
        for child in children:
            if stopping:
                break
            child.start()
        if jobs_here:
            say(f"jobs run in the workers ({config.jobs}), broker {_shown(config)}")
        code = supervise(children, config, stopping)
    finally:
        stop(children)
    return 0 if stopping else code


def _shown(config: Config) -> str:
    """The broker's URL without a password."""
    url = str(config.broker_url)
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://…@{rest.rsplit('@', 1)[1]}"
    return url


def _options(function: click.decorators.FC) -> click.decorators.FC:
    for option in reversed([
        click.option("--job-workers", type=click.IntRange(min=1), default=2, show_default=True,
                     help="Celery worker processes for simulations"),
        click.option("--live-workers", type=click.IntRange(min=1), default=2, show_default=True,
                     help="Celery worker processes for the bots of tables in play"),
    ]):  # fmt: skip
        function = option(function)
    return function


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--workers", type=int, default=2, show_default=True, help="gunicorn worker processes")
@click.option(
    "--threads", type=int, default=4, show_default=True, help="threads per gunicorn worker"
)
@_options
def serve_command(**options: object) -> int:
    """gunicorn, plus the jobs' Celery workers and beat on the SQLite broker (make run)."""
    return serve(Options(**options))  # type: ignore[arg-type]


@click.command("workers")
@_options
@click.option("--beat/--no-beat", default=True, show_default=True,
              help="run Celery beat too (the sweep, heartbeats, the reaper)")  # fmt: skip
def workers_command(**options: object) -> int:
    """The jobs' Celery workers (live tables, simulations) and beat, supervised (make worker)."""
    return serve(Options(web=False, jobs=True, **options))  # type: ignore[arg-type]
