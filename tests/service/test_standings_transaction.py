"""A table's end and its tournament's standings are one transaction (docs/rules/common.md,
"Tournaments"; ``service.application.policies``): when the standings cannot be updated,
the table's last move is not recorded either, so neither ever lags behind the other.

Each test makes the standings update fail on the move that ends a tournament's table and
checks that nothing of that move stayed: no ``MatchEnded`` stored, the table at the version
before (in the database and in the process that served it), the standings as they were;
then, the failure gone, the same move ends the table and moves the standings.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from domain.events import MatchEnded
from service.application import policies, unit_of_work
from service.storage.db import get_database
from service.storage.models import events
from service.storage.projections import tournaments
from tests.service.tournament_play import (
    ORGANISER,
    Json,
    created,
    enter,
    new_tournament,
    seat_round,
    standings,
)


class StandingsFailed(RuntimeError):
    """The failure a test puts into the standings update."""


def tells_then_fails(work: Any, table: Any, ended: MatchEnded) -> None:
    """The real policy (the tournament's ``TableFinished`` appended), then a failure."""
    policies.finished_table_tells_its_tournament(work, table, ended)
    raise StandingsFailed("the standings update failed after the tournament's append")


def break_the_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(policies.ON_TABLE_EVENT, MatchEnded, (tells_then_fails,))


def break_the_projection(monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(*_: Any) -> None:
        raise StandingsFailed("the tournament's read models could not be written")

    monkeypatch.setattr(tournaments, "project_appended", fails)


def stored_types(app: Flask, table_id: str) -> list[str]:
    """The table's event types as stored, read straight from the database."""
    with get_database(app).reading() as connection:
        rows = connection.execute(
            select(events.c.type).where(events.c.stream == table_id).order_by(events.c.version)
        )
        return [row.type for row in rows]


def organiser_state(client: FlaskClient, table_id: str) -> Json:
    return created(client.get(f"/tables/{table_id}/state", headers=ORGANISER), 200)


def last_move(client: FlaskClient, table_id: str, rng: random.Random) -> Json:
    """Play random legal actions until the next one ends the match; that one, unplayed:
    a one-deal match ends with the last card of its last trick."""
    while True:
        now = organiser_state(client, table_id)
        assert now["status"] != "finished", "the table ended before its last move was found"
        action = rng.choice(now["legal_actions"])
        if now["phase"] == "playing" and sum(len(h or []) for h in now["hands"]) == 1:
            return action
        created(client.post(f"/tables/{table_id}/actions", json=action, headers=ORGANISER))


def one_transaction(
    app: Flask,
    client: FlaskClient,
    monkeypatch: pytest.MonkeyPatch,
    breaking: Callable[[pytest.MonkeyPatch], None],
) -> None:
    """The guard: the standings update fails on a table's last move, nothing of it stays."""
    tournament = new_tournament(client, rounds=1, seed="one-transaction")
    enter(client, tournament, "Ann", "Bo", "Cy", "Di")
    (table,) = seat_round(client, tournament)["tables"]
    table_id = table["id"]
    before = standings(client, tournament)
    assert all(row["tables"] == 0 for row in before["rows"]) and len(before["rows"]) == 4

    action = last_move(client, table_id, random.Random("one-transaction"))
    version = organiser_state(client, table_id)["version"]
    types = stored_types(app, table_id)

    with monkeypatch.context() as broken:
        breaking(broken)
        failed = client.post(f"/tables/{table_id}/actions", json=action, headers=ORGANISER)
    assert (failed.status_code, failed.get_json().get("code")) == (500, "internal_error")

    assert stored_types(app, table_id) == types
    assert "MatchEnded" not in types
    now = organiser_state(client, table_id)  # the same process: its cache kept nothing
    assert (now["version"], now["status"]) == (version, "in_deal")
    assert standings(client, tournament) == before

    answer = created(client.post(f"/tables/{table_id}/actions", json=action, headers=ORGANISER))
    assert "MatchEnded" in [event["type"] for event in answer["events"]]
    assert stored_types(app, table_id)[-1] == "MatchEnded"
    after = standings(client, tournament)
    assert after["rounds_played"] == 1
    assert sorted(row["tables"] for row in after["rows"]) == [1, 1, 1, 1]


BREAKINGS = pytest.mark.parametrize(
    "breaking", [break_the_policy, break_the_projection], ids=["policy", "projection"]
)


@BREAKINGS
def test_a_failed_standings_update_stores_no_match_end(
    app: Flask,
    client: FlaskClient,
    monkeypatch: pytest.MonkeyPatch,
    breaking: Callable[[pytest.MonkeyPatch], None],
) -> None:
    one_transaction(app, client, monkeypatch, breaking)


def swallowing(call: Callable[..., None]) -> Callable[..., None]:
    def swallowed(*args: Any) -> None:
        with contextlib.suppress(StandingsFailed):
            call(*args)

    return swallowed


@BREAKINGS
def test_the_guard_catches_a_table_that_ends_without_its_standings(
    app: Flask,
    client: FlaskClient,
    monkeypatch: pytest.MonkeyPatch,
    breaking: Callable[[pytest.MonkeyPatch], None],
) -> None:
    """Mutation check: a unit of work that lets the table end when its standings update
    fails (the failure swallowed, as a policy run beside the transaction would) fails the
    guard."""

    class Swallowing(dict[type, tuple[Any, ...]]):
        def get(self, key: type, default: Any = None) -> Any:
            return tuple(swallowing(p) for p in policies.ON_TABLE_EVENT.get(key, default))

    monkeypatch.setattr(unit_of_work, "ON_TABLE_EVENT", Swallowing())
    monkeypatch.setattr(
        unit_of_work,
        "tournaments",
        SimpleNamespace(project_appended=lambda *a: swallowing(tournaments.project_appended)(*a)),
    )
    with pytest.raises(AssertionError):
        one_transaction(app, client, monkeypatch, breaking)
