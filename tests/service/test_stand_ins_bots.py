"""The bots' loop at seats taken over: a takeover's commit queues the table's bots (and lists
the table for the sweep), the loop a worker runs plays the seat, and once the seat is handed
back it plays it no more. The jobs go to `make run`'s SQLite broker with no worker taking
them, so the test runs the loop itself (``botplay.play_bots``), as a worker would."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from service.jobs import botplay
from service.storage.db import get_database
from service.storage.models import bot_turns
from tests.helpers import ORGANISER, OpenTable, export_of, open_table
from tests.service.queued import queued_app, tasks

PEOPLE = [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]


@pytest.fixture
def broker(tmp_path: Path) -> Path:
    return tmp_path / "broker.sqlite"


@pytest.fixture
def queued(sqlite_url: str, broker: Path) -> Iterator[Flask]:
    app = queued_app(sqlite_url, broker)
    yield app
    get_database(app).engine.dispose()


def waiting_on_bots(app: Flask) -> set[str]:
    with get_database(app).reading() as connection:
        return set(connection.scalars(select(bot_turns.c.table_id)))


def play_bots(app: Flask, table: str) -> dict[str, Any]:
    with app.app_context():
        return botplay.play_bots(table)  # the loop a worker would run


def organiser_state(client: FlaskClient, table: str) -> dict[str, Any]:
    return dict(client.get(f"/tables/{table}/state", headers=ORGANISER).get_json())


def test_the_bots_play_a_seat_taken_over_and_stop_once_it_is_handed_back(
    queued: Flask, broker: Path
) -> None:
    client = queued.test_client()
    table: OpenTable = open_table(client, "bottle-imp-3", seats=PEOPLE)
    url = f"/tables/{table.id}/seats"
    assert client.post(f"/tables/{table.id}/actions", json={"type": "deal"},
                       headers=table.seat(0)).status_code == 201  # fmt: skip
    assert tasks(broker, "cardledger.autoplay") == []  # people only: no bot to wake
    assert waiting_on_bots(queued) == set()

    for seat in (1, 2):
        body = {"bot": "random", "reason": "gone home"}
        assert client.post(f"{url}/{seat}/bot", json=body, headers=ORGANISER).status_code == 201
    # the first takeover's commit woke the bots (one autoplay pending per table), and the
    # sweep would find the table waiting on a bot
    assert [args[0] for args in tasks(broker, "cardledger.autoplay")] == [table.id]
    assert waiting_on_bots(queued) == {table.id}
    outcome = play_bots(queued, table.id)
    assert (outcome["stopped"], outcome["to_act"]) == ("waiting_for_person", [0])
    assert outcome["moves"] >= 2  # Bo's and Cy's seats prepared
    assert waiting_on_bots(queued) == set()

    handed_back = client.delete(f"{url}/2/bot", headers=ORGANISER)
    assert handed_back.status_code == 200
    returned_at = handed_back.get_json()["version"]
    while (now := organiser_state(client, table.id))["status"] != "finished":
        assert 1 not in now["to_act"], now  # the bot's seat never waits for anyone
        if 2 in now["to_act"]:  # Cy's again: the loop leaves it to her
            assert play_bots(queued, table.id)["moves"] == 0
        seat = now["to_act"][0]
        mine = client.get(f"/tables/{table.id}/state", headers=table.seat(seat)).get_json()
        acted = client.post(f"/tables/{table.id}/actions", json=mine["legal_actions"][0],
                            headers=table.seat(seat))  # fmt: skip
        assert acted.status_code == 201, acted.get_json()
        play_bots(queued, table.id)

    lines = [json.loads(line) for line in export_of(client, table.id).splitlines()[2:]]
    moves = [(line["version"], line["data"].get("seat"), line["by"]) for line in lines
             if line["by"] not in ("engine", "organiser")]  # fmt: skip
    assert {by for _, seat, by in moves if seat == 1} == {"bot random seat 1"}
    assert {by for v, seat, by in moves if seat == 2 and v < returned_at} == {"bot random seat 2"}
    assert {by for v, seat, by in moves if seat == 2 and v > returned_at} == {"seat 2"}
