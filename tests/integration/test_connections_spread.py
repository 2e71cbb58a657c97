"""gunicorn's workers share the connections (``service.running.gunicorn_conf``): each listens
on its own ``SO_REUSEPORT`` socket, so a burst of keep-alive clients is spread by the kernel
instead of all landing on whichever worker woke first, and a worker that dies is replaced
by one that listens again.

Who holds a connection is read from ``/proc``: a worker's open sockets against the port's
established TCP connections.
"""

from __future__ import annotations

import http.client
import os
import secrets
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.storage.db import run_migrations
from tests.helpers import wait_for
from tests.integration.served import Served, gunicorn

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

ESTABLISHED, LISTENING = "01", "0A"
CONNECTIONS = 64


def workers(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return sorted(int(pid) for pid in children)


def sockets_of(pid: int) -> set[str]:
    """The inodes of a process's open sockets."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed while we looked
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    return inodes


def port_sockets(port: int, state: str) -> set[str]:
    """The inodes of this machine's TCP sockets on local ``port`` in ``state``."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, st, inode = fields[1], fields[3], fields[9]
        if int(local.split(":")[1], 16) == port and st == state:
            found.add(inode)
    return found


def held(served: Served, state: str) -> dict[int, int]:
    """Each worker's count of sockets on the server's port in ``state``."""
    on_port = port_sockets(served.port, state)
    return {pid: len(sockets_of(pid) & on_port) for pid in workers(served.process.pid)}


def open_connections(served: Served) -> list[http.client.HTTPConnection]:
    """``CONNECTIONS`` keep-alive clients, each answered once and left open."""
    clients = []
    for _ in range(CONNECTIONS):
        client = served.connection()
        client.request("GET", "/health")
        response = client.getresponse()
        response.read()
        assert response.status == 200
        clients.append(client)
    return clients


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """gunicorn with two workers as ``make run`` starts it; keep-alive long enough that
    every client is still connected when it is counted."""
    url = f"sqlite:///{tmp_path / 'cardledger.db'}"
    run_migrations(url)
    admin = secrets.token_urlsafe(24)
    server = gunicorn(url, admin, tmp_path / "gunicorn.log", more=["--keep-alive", "120"])
    try:
        wait_for(lambda: len(workers(server.process.pid)) == 2, 60, "two workers")
        yield server
    finally:
        server.stop()


def spread(served: Served) -> dict[int, int]:
    clients = open_connections(served)
    try:
        return held(served, ESTABLISHED)
    finally:
        for client in clients:
            client.close()


def test_each_worker_listens_and_the_connections_are_spread(served: Served) -> None:
    listening = held(served, LISTENING)
    assert sorted(listening.values()) == [1, 1], listening  # a socket each, none shared
    assert not sockets_of(served.process.pid) & port_sockets(served.port, LISTENING)

    counts = spread(served)
    assert sum(counts.values()) == CONNECTIONS, counts
    # One shared socket gave nearly all 64 to one worker; hashed, fewer than 16 of 64 on
    # either worker is a chance of about 1 in 30,000.
    assert min(counts.values()) >= CONNECTIONS // 4, counts


def test_a_killed_worker_is_replaced_by_one_that_listens(served: Served) -> None:
    killed = workers(served.process.pid)[0]
    os.kill(killed, signal.SIGKILL)

    def replaced() -> bool:
        now = held(served, LISTENING)
        return killed not in now and sorted(now.values()) == [1, 1]

    wait_for(replaced, 60, "a new worker listening on the port")
    counts = spread(served)
    assert sum(counts.values()) == CONNECTIONS, counts
    assert min(counts.values()) >= CONNECTIONS // 4, counts
