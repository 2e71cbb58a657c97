"""Live updates against a real server started as ``make run`` starts it (gunicorn, two
workers, ``THREADS`` for requests and ``CARDLEDGER_WATCHERS`` more for streams), spoken to
over sockets: a watcher receives each move as a ``version`` event and the match's end as
``finished``, far more watchers than request threads are held at once while ordinary
requests are still answered, and a personal link's watcher follows its tournament. Every
read waits for its event (a socket timeout bounds it); nothing is timed."""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from tests.factories import table_body, tournament_body
from tests.integration.served import MAKE_RUN, Served, free_port, server_env

ADMIN = secrets.token_urlsafe(24)
ORGANISER = {"Authorization": f"Bearer {ADMIN}"}
#: More watchers than the server's request threads (2 workers x 4), as a club room's phones.
WATCHERS = 45


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("live-served")
    port = free_port()
    env = server_env(f"sqlite:///{home / 'cardledger.db'}", ADMIN, PORT=str(port))
    served = Served(MAKE_RUN, env, port, home / "make-run.log")
    try:
        yield served
    finally:
        served.stop()
    assert "Traceback" not in served.output(), served.output()[-5000:]


class Watcher:
    """One open event stream on its own connection."""

    def __init__(self, server: Served, path: str, headers: dict[str, str] | None = None) -> None:
        self.connection = server.connection()
        self.connection.request("GET", path, headers={"Accept": "text/event-stream",
                                                      **(headers or {})})  # fmt: skip
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.read()[:500]
        assert self.response.getheader("Content-Type", "").startswith("text/event-stream")

    def next(self) -> tuple[str, Any] | None:
        """The next event (its name and data), past comments; None once the stream ended."""
        fields: dict[str, str] = {}
        while True:
            line = self.response.readline()
            if not line:
                return None
            text = line.decode().rstrip("\n")
            if text:
                if not text.startswith(":"):
                    name, _, value = text.partition(": ")
                    fields[name] = value
            elif "event" in fields:
                return fields["event"], json.loads(fields["data"])
            else:
                fields = {}

    def until(self, event: str, **data: Any) -> Any:
        """Read until ``event`` whose data holds ``data``."""
        while True:
            found = self.next()
            assert found is not None, f"the stream ended before {event} {data}"
            kind, said = found
            if kind == event and all(said.get(k) == v for k, v in data.items()):
                return said

    def close(self) -> None:
        self.connection.close()


def request(server: Served, method: str, path: str, body: Any = None) -> Any:
    status, answer = server.request(method, path, body, ORGANISER)
    assert status < 300, (status, answer)
    return answer


def act(server: Served, table: str) -> int:
    """One legal move by the organiser; the new version."""
    shown = request(server, "GET", f"/tables/{table}/state")
    action = random.Random(shown["version"]).choice(shown["legal_actions"])
    return int(request(server, "POST", f"/tables/{table}/actions", action)["version"])


def test_a_watcher_hears_each_move_and_the_end(server: Served) -> None:
    table = request(server, "POST", "/tables", table_body())["id"]
    watcher = Watcher(server, f"/tables/{table}/watch")
    try:
        assert watcher.until("version") == {"version": 1}
        while True:
            version = act(server, table)
            assert watcher.until("version", version=version)["version"] == version
            if request(server, "GET", f"/tables/{table}")["status"] == "finished":
                break
        assert watcher.until("finished") == {"version": version}
        assert watcher.next() is None  # the stream ends with the match
    finally:
        watcher.close()


def test_many_watchers_are_held_and_requests_still_answered(server: Served) -> None:
    table = request(server, "POST", "/tables", table_body())["id"]
    watchers = [Watcher(server, f"/tables/{table}/watch") for _ in range(WATCHERS)]
    try:
        for watcher in watchers:
            assert watcher.until("version") == {"version": 1}
        assert server.request("GET", "/health")[0] == 200  # beside 45 open streams
        version = act(server, table)
        for watcher in watchers:
            assert watcher.until("version", version=version)["version"] == version
    finally:
        for watcher in watchers:
            watcher.close()


def test_a_personal_links_tournament_is_followed(server: Served) -> None:
    tournament = request(server, "POST", "/tournaments", tournament_body(rounds=1))["id"]
    entries = [request(server, "POST", f"/tournaments/{tournament}/entries", {"name": n})
               for n in ("Ann", "Bo", "Cy", "Dee")]  # fmt: skip
    watcher = Watcher(server, f"/tournaments/{tournament}/watch")
    try:
        watcher.until("version")
        (table,) = request(server, "POST", f"/tournaments/{tournament}/rounds")["tables"]
        seated = watcher.until("version")["version"]
        status, where = server.request(
            "GET", f"/tournaments/{tournament}/me",
            headers={"Authorization": f"Bearer {entries[0]['token']}"},
        )  # fmt: skip
        assert status == 200 and where["table"] == table["id"]
        moved = act(server, table["id"])
        assert watcher.until("table", table=table["id"])["version"] == moved
        while request(server, "GET", f"/tables/{table['id']}")["status"] != "finished":
            act(server, table["id"])
        assert watcher.until("finished")["version"] > seated
    finally:
        watcher.close()
