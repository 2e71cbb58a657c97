"""`cardledger serve`, what `make run` runs: gunicorn, and beside it the Celery worker
that runs the jobs when they go through the SQLite broker (``Config.jobs == "sqlite"``,
the default without `REDIS_URL`), so no job ever runs inside a request.

The worker runs Celery beat too (`-B`: the bots' sweep, ``service.sweep``). Both are
children of this process, each in a process group of its own; SIGINT, SIGTERM or
SIGHUP here, or either child exiting, stops both (SIGTERM to each group, SIGKILL after
``STOP_SECONDS``), and on Linux a child whose supervisor was killed outright gets
SIGTERM from the kernel. With `REDIS_URL` (workers are `make worker`s) or
`CARDLEDGER_JOBS=eager` this is gunicorn alone, as before.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from types import FrameType

import click

from service.config import Config

STOP_SECONDS = 15.0
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover (runs in the child, before exec)
    """Linux: the kernel sends SIGTERM to this child when its supervisor dies."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass(frozen=True)
class Options:
    """``cardledger serve``'s options."""

    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 2
    threads: int = 4
    job_workers: int = 2


def commands(args: Options, config: Config) -> dict[str, list[str]]:
    """What to start: gunicorn always; the worker with its beat for the SQLite broker."""
    python = sys.executable
    started = {
        "gunicorn": [python, "-m", "gunicorn", "service.app:create_app()",
                     "--bind", f"{args.host}:{args.port}", "--workers", str(args.workers),
                     "--threads", str(args.threads), "--config", "python:service.gunicorn_conf"],
    }  # fmt: skip
    if config.jobs == "sqlite":
        started["worker"] = [python, "-m", "celery", "-A", "workers.celery_app", "worker", "-B",
                             "-c", str(args.job_workers), "-n", f"embedded-{os.getpid()}@%h",
                             "--loglevel=INFO", "--without-gossip", "--without-mingle",
                             "--without-heartbeat"]  # fmt: skip
    return started


def stop(children: dict[str, subprocess.Popen[bytes]]) -> None:
    """SIGTERM every child (gunicorn's master and Celery's main process stop their own
    workers), then SIGKILL its whole process group, whatever is left after STOP_SECONDS."""
    for child in children.values():
        if child.poll() is None:
            child.terminate()
    deadline = time.monotonic() + STOP_SECONDS
    for child in children.values():
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
    for child in children.values():  # the group too: a pool child that outlived its parent
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()


def prepare_broker(url: str) -> None:
    """Create the SQLite broker's tables and Celery's default queue before gunicorn and the
    worker start: kombu creates them lazily in each process, and two processes creating
    them at the same moment fail (the first job posted would get a 503)."""
    from kombu import Connection, Exchange, Queue

    with Connection(url) as connection:
        Queue("celery", Exchange("celery"), routing_key="celery")(
            connection.default_channel
        ).declare()


def serve(args: Options) -> int:
    config = Config.from_env()  # a bad CARDLEDGER_JOBS stops here, before anything starts
    if config.jobs == "sqlite" and config.broker_url:
        prepare_broker(config.broker_url)
    stopping: list[int] = []

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stopping.append(signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)
    children: dict[str, subprocess.Popen[bytes]] = {}
    try:
        for name, command in commands(args, config).items():
            if stopping:
                break
            children[name] = subprocess.Popen(
                command, start_new_session=True, preexec_fn=_die_with_parent
            )
            print(f"cardledger serve: {name} pid {children[name].pid}", file=sys.stderr,
                  flush=True)  # fmt: skip
        if config.jobs == "sqlite":
            print(f"cardledger serve: jobs run in the worker, broker {config.broker_url}",
                  file=sys.stderr, flush=True)  # fmt: skip
        while not stopping and all(child.poll() is None for child in children.values()):
            time.sleep(0.2)
    finally:
        stop(children)
    if stopping:
        return 0
    exited = [f"{name} (exit {c.returncode})" for name, c in children.items()]
    print(f"cardledger serve: stopped: {', '.join(exited)}", file=sys.stderr, flush=True)
    return 1


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--workers", type=int, default=2, show_default=True, help="gunicorn worker processes")
@click.option(
    "--threads", type=int, default=4, show_default=True, help="threads per gunicorn worker"
)
@click.option(
    "--job-workers", type=int, default=2, show_default=True, help="Celery worker processes"
)
def serve_command(**options: object) -> int:
    """gunicorn, plus the jobs' Celery worker on the SQLite broker (make run)."""
    return serve(Options(**options))  # type: ignore[arg-type]
