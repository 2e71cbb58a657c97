"""Concurrent writers on real PostgreSQL, through the whole HTTP command path.

Many requests race for the same table version: the expected version (``If-Match``) lets
exactly one win, an ``Idempotency-Key`` makes a burst of retries record once, and writers
without ``If-Match`` who lose a race are decided again on the new state. Whatever the
interleaving, the log stays gap-free.

Flask's test client is not thread-safe, so every thread builds its own; a barrier starts
them together so they really overlap.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from werkzeug.test import TestResponse

from service.application.tables import ATTEMPTS, table_logs
from service.storage.db import get_database
from service.storage.eventstore import EventStore
from service.storage.models import events, idempotency_keys
from tests.helpers import ADMIN_TOKEN

pytestmark = pytest.mark.integration

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
RACERS = 16

Request = Callable[[FlaskClient], TestResponse]


@dataclass(frozen=True)
class DealtTable:
    """A 4-player standard table just dealt (version 2): every seat is preparing."""

    id: str
    tokens: dict[int, str]
    hands: list[list[int]]

    def seat(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}


def deal_a_table(app: Flask) -> DealtTable:
    client = app.test_client()
    created = client.post(
        "/tables",
        json={
            "game": "bottle-imp",
            "seats": [{"name": name} for name in ("Keawe", "Kokua", "Lopaka", "Boatswain")],
            "seed": "concurrency",
        },
        headers=ORGANISER,
    )
    assert created.status_code == 201, created.get_json()
    table = created.get_json()
    dealt = client.post(
        f"/tables/{table['id']}/actions",
        json={"type": "deal"},
        headers={**ORGANISER, "If-Match": '"1"'},
    )
    assert dealt.status_code == 201, dealt.get_json()
    state = client.get(f"/tables/{table['id']}/state", headers=ORGANISER).get_json()
    assert (state["version"], state["phase"]) == (2, "preparing")
    return DealtTable(table["id"], {s["seat"]: s["token"] for s in table["seats"]}, state["hands"])


def race(app: Flask, requests: list[Request]) -> list[TestResponse]:
    """Run each request on its own thread and client, all released at once."""
    barrier = threading.Barrier(len(requests))

    def run(request: Request) -> TestResponse:
        client = app.test_client()
        barrier.wait(timeout=30)
        return request(client)

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        futures = [pool.submit(run, request) for request in requests]
        return [future.result(timeout=120) for future in futures]


def post(table: DealtTable, body: dict[str, Any], headers: dict[str, str]) -> Request:
    return lambda client: client.post(f"/tables/{table.id}/actions", json=body, headers=headers)


def event_log(app: Flask, table: DealtTable) -> list[dict[str, Any]]:
    page = app.test_client().get(f"/tables/{table.id}/events?limit=1000", headers=ORGANISER)
    assert page.status_code == 200
    body = page.get_json()
    assert body["next"] is None
    return list(body["events"])


def assert_gap_free(log: list[dict[str, Any]]) -> None:
    assert [e["version"] for e in log] == list(range(1, len(log) + 1))


def stored_rows(app: Flask, table: DealtTable) -> int:
    """Event rows in the database itself, not through the (cached) API."""
    with get_database(app).reading() as connection:
        return int(connection.scalar(select(func.count()).where(events.c.stream == table.id)) or 0)


def test_the_same_if_match_lets_exactly_one_writer_in(pg_app: Flask) -> None:
    table = deal_a_table(pg_app)
    discard = {"type": "discard", "seat": 0, "card": table.hands[0][0]}
    headers = {**ORGANISER, "If-Match": '"2"'}

    responses = race(pg_app, [post(table, discard, headers)] * RACERS)

    statuses = Counter(r.status_code for r in responses)
    assert statuses == {201: 1, 409: RACERS - 1}, [r.get_json() for r in responses]
    winner = next(r for r in responses if r.status_code == 201)
    for loser in (r for r in responses if r.status_code == 409):
        problem = loser.get_json()
        assert (problem["code"], problem["current"]) == ("version_conflict", 3)
    log = event_log(pg_app, table)
    assert_gap_free(log)
    assert log[2:] == winner.get_json()["events"]  # one set of new events: the winner's
    assert [e["type"] for e in log[2:]] == ["CardDiscarded"]
    assert stored_rows(pg_app, table) == 3


def test_the_same_idempotency_key_records_once(pg_app: Flask) -> None:
    """A burst of retries of one request: every one gets the first response. One round per
    seat, since a lost race shows only in some interleavings."""
    table = deal_a_table(pg_app)
    answers = []
    for seat, hand in enumerate(table.hands):
        discard = {"type": "discard", "seat": seat, "card": hand[0]}
        headers = {**ORGANISER, "Idempotency-Key": f"discard-{seat}"}

        responses = race(pg_app, [post(table, discard, headers)] * RACERS)

        problems = [r.get_json() for r in responses if r.status_code != 201]
        assert problems == [], f"seat {seat}"
        bodies = [r.get_json() for r in responses]
        assert all(body == bodies[0] for body in bodies)
        assert {r.headers["ETag"] for r in responses} == {f'"{3 + seat}"'}
        answers += bodies[0]["events"]
    log = event_log(pg_app, table)
    assert_gap_free(log)
    assert log[2:] == answers  # each burst appended its one event, once
    assert stored_rows(pg_app, table) == 6
    with get_database(pg_app).reading() as connection:
        keys = connection.scalar(select(func.count()).where(idempotency_keys.c.stream == table.id))
    assert keys == 4


@pytest.mark.parametrize(
    ("with_passes", "expected"),
    [
        (False, {"CardDiscarded": 4}),
        (True, {"CardDiscarded": 4, "CardsPassed": 4, "PassesDelivered": 1}),
    ],
    ids=["4 discards", "4 discards and 4 passes"],
)
def test_different_seats_racing_without_if_match_all_get_in(
    pg_app: Flask, with_passes: bool, expected: dict[str, int]
) -> None:
    """Every seat prepares at once, without If-Match: a writer that loses the race to the
    stream's next version is decided again on the new state, so all get in. A table has
    four seats; with each seat's pass too, eight writers race (each action is legal in any
    order, and the last one also delivers the passes)."""
    table = deal_a_table(pg_app)
    requests = []
    for seat, hand in enumerate(table.hands):
        requests.append(
            post(table, {"type": "discard", "seat": seat, "card": hand[0]}, table.seat(seat))
        )
        if with_passes:
            passing = {"type": "pass", "seat": seat, "left": hand[1], "right": hand[2]}
            requests.append(post(table, passing, table.seat(seat)))

    responses = race(pg_app, requests)

    problems = [r.get_json() for r in responses if r.status_code != 201]
    assert problems == []
    log = event_log(pg_app, table)
    assert_gap_free(log)
    assert Counter(e["type"] for e in log[2:]) == expected
    assert stored_rows(pg_app, table) == len(log) == 2 + sum(expected.values())


def unlocked(monkeypatch: pytest.MonkeyPatch, app: Flask) -> None:
    """Writers that take no lock: each reads the stream's head and loads the log as a
    reader does (``FOR UPDATE`` dropped; rows committed after its head not yet its own)."""
    head_row, logs = EventStore.head_row, type(table_logs(app))
    load = logs.load

    def read_head(self: EventStore, stream: str, lock: bool = False) -> Any:
        return head_row(self, stream, lock=False)

    def read_log(self: Any, connection: Any, stream: str, head: Any = None, **_: Any) -> Any:
        return load(self, connection, stream)

    monkeypatch.setattr(EventStore, "head_row", read_head)
    monkeypatch.setattr(logs, "load", read_log)


LOST_A_RACE = r"table {}: lost a race at version \d+, deciding again \(attempt (\d+)\)"


def test_without_the_tables_lock_writers_lose_races_and_are_decided_again(
    pg_app: Flask, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The retry is real: with the table's row lock taken away (``FOR UPDATE`` dropped, so
    writers read the same version and the stream's guarded UPDATE lets one through), writers
    without If-Match lose races, the server logs each new attempt, and every ruling it
    accepted is appended once. With the lock (the tests above, ``test_race_served.py``)
    no writer ever loses a race, and no such line is logged."""
    unlocked(monkeypatch, pg_app)
    caplog.set_level(logging.WARNING, logger="service.application.tables")
    table = deal_a_table(pg_app)
    said = re.compile(LOST_A_RACE.format(table.id))
    attempts: list[int] = []
    accepted = 0
    for burst in range(5):  # sixteen writers may still happen not to overlap: race again
        rulings = [{"type": "adjust", "seat": n % 4, "points": 1, "reason": f"{burst}-{n}"}
                   for n in range(RACERS)]  # fmt: skip
        responses = race(pg_app, [post(table, ruling, ORGANISER) for ruling in rulings])
        refused = [r.get_json() for r in responses if r.status_code != 201]
        assert {(p["status"], p["code"]) for p in refused} <= {(409, "version_conflict")}
        accepted += RACERS - len(refused)
        attempts = [int(m[1]) for r in caplog.records if (m := said.search(r.getMessage()))]
        # a refused writer lost every attempt, and said so before each one after the first
        assert len(attempts) >= (ATTEMPTS - 1) * len(refused)
        if attempts:
            break
    assert attempts, "no writer lost a race in five bursts without the lock"
    assert set(attempts) <= set(range(2, ATTEMPTS + 1)), attempts
    log = event_log(pg_app, table)
    assert_gap_free(log)
    assert [e["type"] for e in log[2:]] == ["Adjusted"] * accepted
    reasons = [e["data"]["reason"] for e in log[2:]]
    assert len(set(reasons)) == len(reasons) == accepted  # each once
