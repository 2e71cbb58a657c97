"""A real server as a subprocess (gunicorn, or all of ``make run``) for tests that need the
whole HTTP stack: its own process group, a free 127.0.0.1 port, a temporary SQLite file, its
output captured to a file, bounded waits, and always stopped."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".venv" / "bin"
#: ``make run`` itself (``-o .venv/.installed``: the tests already run in the virtualenv it
#: would install, so pip is never called).
MAKE_RUN = ["make", "--no-print-directory", "-o", ".venv/.installed", "run"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(database_url: str, admin_token: str, **more: str) -> dict[str, str]:
    """The environment of a server of its own: never the checkout's ``var/`` keys, no broker
    (tasks run in the web process, ``CARDLEDGER_JOBS=eager``, unless ``more`` says else)."""
    drop = ("REDIS_URL", "PYTEST_ADDOPTS", "CARDLEDGER_BROKER_URL")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(DATABASE_URL=database_url, CARDLEDGER_ADMIN_TOKEN=admin_token,
               CARDLEDGER_JOBS="eager")  # fmt: skip
    env.update(more)
    # The tests' server key (tests.helpers.SIGNING_KEY): never the checkout's var/, and the
    # same as the in-process apps', so all of a session's processes are one server.
    from tests.helpers import SIGNING_KEY

    env["CARDLEDGER_SIGNING_KEY"] = SIGNING_KEY
    return env


def gunicorn(
    url: str,
    admin_token: str,
    log: Path,
    *,
    workers: int = 2,
    more: Sequence[str] = (),
    **env: str,
) -> Served:
    """gunicorn configured as ``make run`` configures it (its config file, 4 threads a
    worker) on a free port, jobs in the request (eager); ``more``: flags after the config."""
    port = free_port()
    command = [
        str(BIN / "gunicorn"), "service.running.app:create_app()", "--bind", f"127.0.0.1:{port}",
        "--workers", str(workers), "--threads", "4", "--config",
        "python:service.running.gunicorn_conf", *more,
    ]  # fmt: skip
    return Served(command, server_env(url, admin_token, **env), port, log)


class Served:
    """A server started by ``command``; ``request`` talks to it, ``output`` is what it said."""

    def __init__(self, command: Sequence[str], env: dict[str, str], port: int, log: Path) -> None:
        self.port, self.log = port, log
        self.process = subprocess.Popen(
            list(command),
            cwd=ROOT,
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            self._wait_until_up(seconds=90)
        except BaseException:
            self.stop()
            raise

    def _wait_until_up(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited:\n{self.output()}")
            try:
                if self.request("GET", "/health")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"the server did not answer within {seconds} s:\n{self.output()}")

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        """One request on a fresh connection: the status and the JSON (or text) answered."""
        connection = self.connection()
        try:
            if isinstance(body, dict):
                body = json.dumps(body)
                headers = {"Content-Type": "application/json", **(headers or {})}
            connection.request(method, path, body=body, headers=headers or {})
            return read(connection.getresponse())
        finally:
            connection.close()

    def stop(self) -> None:
        """SIGTERM the whole process group (make, gunicorn and its workers), then SIGKILL."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):  # a worker that outlived its parent
            os.killpg(self.process.pid, signal.SIGKILL)


def read(response: http.client.HTTPResponse) -> tuple[int, Any]:
    raw = response.read()
    kind = response.getheader("Content-Type", "").split(";")[0]
    is_json = kind in ("application/json", "application/problem+json")
    return response.status, json.loads(raw) if is_json else raw.decode(errors="replace")
