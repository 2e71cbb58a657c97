"""Tables of one tournament finishing at the same moment, on real PostgreSQL.

Each table's last action appends ``MatchEnded`` and, in the same transaction, records
``TableFinished`` on the tournament's stream (locked ``FOR UPDATE``), updates the
standings and rates the players. Racing finishes must all be recorded, in some order,
with standings equal to a rebuild from the streams.
"""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.service.test_projections_rebuild import rebuild, snapshot
from tests.service.tournament_play import (
    ORGANISER,
    Json,
    created,
    enter_player,
    new_tournament,
    register,
    seat_round,
    standings,
)

pytestmark = pytest.mark.integration


def play_until_one_card_left(client: FlaskClient, table: str, rng: random.Random) -> Json:
    """Random legal actions until the next play is the deal's (and match's) last."""
    while True:
        state = created(client.get(f"/tables/{table}/state", headers=ORGANISER), 200)
        if sum(state["hand_sizes"]) == 1 and state["phase"] == "playing":
            return state
        action = rng.choice(state["legal_actions"])
        created(client.post(f"/tables/{table}/actions", json=action, headers=ORGANISER))


def test_racing_last_plays_are_all_recorded(pg_app: Flask) -> None:
    client = pg_app.test_client()
    tournament = new_tournament(client, rounds=1)
    for i in range(12):
        enter_player(client, tournament, register(client, f"Racer {i}"))
    tables = [t["id"] for t in seat_round(client, tournament)["tables"]]
    rng = random.Random("race")
    last = {t: play_until_one_card_left(client, t, rng)["legal_actions"][0] for t in tables}
    start = threading.Barrier(len(tables))

    def finish(table: str) -> TestResponse:
        racer = pg_app.test_client()  # the test client is not thread-safe: one each
        start.wait()
        return racer.post(f"/tables/{table}/actions", json=last[table], headers=ORGANISER)

    with ThreadPoolExecutor(len(tables)) as pool:
        responses = list(pool.map(finish, tables))
    assert [r.status_code for r in responses] == [201] * len(tables)

    final = standings(client, tournament)
    assert (final["status"], final["rounds_played"]) == ("finished", 1)
    assert all(row["tables"] == 1 for row in final["rows"])
    assert sum(row["match_points"] for row in final["rows"]) == 6 * len(tables)
    kept = snapshot(pg_app)
    rebuild(pg_app)
    assert snapshot(pg_app) == kept
