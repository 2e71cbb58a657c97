"""Moves made at the same moment, raced for real: many clients at one table at once, on
SQLite (``make run``'s default) through ``make run``'s own gunicorn (two worker
processes of four threads), each client on its own connection, all released together.

- The same ``If-Match`` version: exactly one writer is let in; every other one is 409
  ``version_conflict`` naming the version the winner made.
- Without ``If-Match``: every action is appended, once, and none is lost, whatever the
  interleaving (docs/api.md, "Acting at a table"). A writer that lost a race to the
  stream's next version would be decided again, and the server would say so in its log
  (``table <id>: lost a race at version n, deciding again (attempt k)``); the lines are
  counted: none, since each writer decides under the table's lock (SQLite's write lock)
  on the state it locked. A process deciding on a stale cached log loses races and says
  so, and a lost race when nothing holds the lock is decided again:
  ``test_concurrency.py``; on PostgreSQL a cached table's unchecked append that finds the
  head moved is loaded and decided again (``test_unchecked_appends.py``).

The log stays gap-free: its versions, as served and as stored, are 1..n.
"""

from __future__ import annotations

import http.client
import json
import re
import secrets
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import create_engine, select

from service.storage.models import events
from tests.integration.served import MAKE_RUN, Served, free_port, read, server_env

pytestmark = pytest.mark.integration

ADMIN = secrets.token_urlsafe(24)
ORGANISER = {"Authorization": f"Bearer {ADMIN}"}
RACERS = 16

Json = dict[str, Any]
Call = tuple[Json, dict[str, str]]


class Server:
    def __init__(self, served: Served, url: str) -> None:
        self.served, self.url = served, url

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, Any]:  # fmt: skip
        return self.served.request(method, path, body, ORGANISER if headers is None else headers)

    def stored_versions(self, table_id: str) -> list[int]:
        """The table's versions as stored, read straight from the database file."""
        engine = create_engine(self.url)
        try:
            with engine.connect() as connection:
                query = select(events.c.version).where(events.c.stream == table_id)
                return sorted(connection.scalars(query))
        finally:
            engine.dispose()

    def races_lost(self, table_id: str) -> list[int]:
        """The attempts the server says a writer made again at ``table_id``, in order."""
        lines = re.findall(rf"table {table_id}: lost a race at version \S+, deciding again "
                           r"\(attempt (\d+)\)", self.served.output())  # fmt: skip
        return [int(attempt) for attempt in lines]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``make run`` on a SQLite file of its own: gunicorn, 2 workers of 4 threads."""
    home = tmp_path_factory.mktemp("race")
    url = f"sqlite:///{home / 'cardledger.db'}"
    port = free_port()
    env = server_env(url, ADMIN, PORT=str(port), WORKERS="2", THREADS="4")
    served = Served(MAKE_RUN, env, port, home / "make-run.log")
    try:
        yield Server(served, url)
    finally:
        served.stop()


def dealt_table(server: Server) -> tuple[str, dict[int, dict[str, str]], list[list[int]]]:
    """A 4-seat Bottle Imp table just dealt (version 2): every seat is to discard and pass,
    in any order. Its id, each seat's headers and each seat's hand."""
    seats = [{"name": name} for name in ("Keawe", "Kokua", "Lopaka", "Boatswain")]
    status, created = server.request("POST", "/tables", {"game": "bottle-imp", "seats": seats,
                                                         "seed": secrets.token_hex(8)})  # fmt: skip
    assert status == 201, created
    table_id = created["id"]
    dealt = server.request("POST", f"/tables/{table_id}/actions", {"type": "deal"},
                           {**ORGANISER, "If-Match": '"1"'})  # fmt: skip
    assert dealt[0] == 201, dealt
    status, state = server.request("GET", f"/tables/{table_id}/state")
    assert (state["version"], state["phase"]) == (2, "preparing"), state
    headers = {s["seat"]: {"Authorization": f"Bearer {s['token']}"} for s in created["seats"]}
    return table_id, headers, state["hands"]


def race(server: Server, table_id: str, calls: list[Call]) -> list[tuple[int, Json]]:
    """Each call POSTed to the table's actions on a connection of its own, opened before
    the start; all are sent together (a barrier), and every answer is read."""
    barrier = threading.Barrier(len(calls))

    def send(call: Call) -> tuple[int, Json]:
        body, headers = call
        connection = http.client.HTTPConnection("127.0.0.1", server.served.port, timeout=120)
        try:
            connection.connect()
            barrier.wait(timeout=60)
            connection.request("POST", f"/tables/{table_id}/actions", body=json.dumps(body),
                               headers={"Content-Type": "application/json", **headers})  # fmt: skip
            return read(connection.getresponse())
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(send, calls, timeout=300))


def served_log(server: Server, table_id: str) -> list[Json]:
    status, page = server.request("GET", f"/tables/{table_id}/events?limit=1000")
    assert status == 200 and page["next"] is None, page
    return list(page["events"])


def assert_gap_free(server: Server, table_id: str, log: list[Json]) -> None:
    assert [e["version"] for e in log] == list(range(1, len(log) + 1))
    assert server.stored_versions(table_id) == list(range(1, len(log) + 1))


def test_the_same_if_match_lets_exactly_one_of_many_racers_in(server: Server) -> None:
    """Sixteen writers at version 2, each seat's two legal moves from its own token and the
    organiser's for it: one is let in, the fifteen others are told the table is at 3."""
    table_id, seats, hands = dealt_table(server)
    calls: list[Call] = []
    for seat, hand in enumerate(hands):
        discard = {"type": "discard", "seat": seat, "card": hand[0]}
        passing = {"type": "pass", "seat": seat, "left": hand[1], "right": hand[2]}
        for body in (discard, passing):
            for who in (seats[seat], ORGANISER):
                calls.append((body, {**who, "If-Match": '"2"'}))
    assert len(calls) == RACERS

    answers = race(server, table_id, calls)

    statuses = Counter(status for status, _ in answers)
    assert statuses == {201: 1, 409: RACERS - 1}, answers
    (winner,) = [answer for status, answer in answers if status == 201]
    losers = [answer for status, answer in answers if status == 409]
    assert {(p["code"], p["current"]) for p in losers} == {("version_conflict", 3)}, losers
    log = served_log(server, table_id)
    assert_gap_free(server, table_id, log)
    assert log[2:] == winner["events"]  # one new event: the winner's
    assert server.races_lost(table_id) == []  # a loser with If-Match is refused, not retried


def test_racers_without_if_match_are_all_appended_once(server: Server) -> None:
    """Every seat discards and passes while the organiser records rulings, all at once and
    without If-Match: each action is legal in any order, so every one is accepted, each
    appears in the log exactly once, and nothing else does."""
    table_id, seats, hands = dealt_table(server)
    calls: list[Call] = []
    for seat, hand in enumerate(hands):
        calls.append(({"type": "discard", "seat": seat, "card": hand[0]}, seats[seat]))
        calls.append(({"type": "pass", "seat": seat, "left": hand[1], "right": hand[2]},
                      seats[seat]))  # fmt: skip
    rulings = RACERS - len(calls)
    for n in range(rulings):
        calls.append(({"type": "adjust", "seat": n % 4, "points": 1, "reason": f"ruling {n}"},
                      ORGANISER))  # fmt: skip

    answers = race(server, table_id, calls)

    assert [status for status, _ in answers] == [201] * RACERS, answers
    log = served_log(server, table_id)
    assert_gap_free(server, table_id, log)
    appended = sorted((e["version"], e["type"], e["at"]) for _, a in answers for e in a["events"])
    assert appended == [(e["version"], e["type"], e["at"]) for e in log[2:]]  # each its own, once
    assert Counter(e["type"] for e in log[2:]) == {
        "CardDiscarded": 4, "CardsPassed": 4, "PassesDelivered": 1, "Adjusted": rulings,
    }  # fmt: skip
    reasons = sorted(e["data"]["reason"] for e in log if e["type"] == "Adjusted")
    assert reasons == sorted(f"ruling {n}" for n in range(rulings))
    assert server.races_lost(table_id) == []  # each decided under the lock, on the head
