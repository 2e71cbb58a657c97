"""Bots and jobs through the HTTP API, in the embedded (eager) mode: bots move by
themselves through the command path, jobs are stored and polled, simulations merge,
and a broker that is down costs only the routes that need it."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from domain.bots import bot
from domain.bots.simulate import Simulation, play_match, result, run_chunk
from domain.games import game
from domain.match import MatchRules
from domain.table import SeatSpec, Table
from service.application.tables import act, create_table
from service.jobs import botplay, queue
from service.storage.db import get_database
from service.storage.models import events
from tests.helpers import ADMIN_TOKEN, open_table

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def salt_of(client: FlaskClient, table_id: str) -> str:
    """The salt the server drew for the table (``docs/rules/common.md``), in the organiser's log."""
    events = client.get(f"/tables/{table_id}/events", headers=ORGANISER).json["events"]
    return str(events[0]["data"]["salt"])


def actors(app: Flask, table_id: str) -> list[str]:
    with get_database(app).reading() as connection:
        rows = connection.execute(
            select(events.c.actor).where(events.c.stream == table_id).order_by(events.c.version)
        )
        return [r.actor for r in rows]


# --- bots move by themselves ----------------------------------------------------------------


def test_a_table_of_bots_plays_itself_to_the_end(app: Flask, client: FlaskClient) -> None:
    """In eager mode the bots play before the response returns, each move recorded
    like a person's, and the match is the one a simulation of the same table plays."""
    names = ["heuristic", "random", "random"]
    bots = [{"bot": n} for n in names]
    created = open_table(client, seats=bots, seed="bots", target_score=None).created
    summary = client.get(f"/tables/{created['id']}").json
    assert summary["status"] == "finished"
    seats = tuple(SeatSpec(bot=n) for n in names)
    salt = salt_of(client, created["id"])
    table = Table("bottle-imp", "standard", seats, MatchRules(None, 1), "bots", salt=salt)
    totals, ranking = play_match(game("bottle-imp"), table, [bot(n) for n in names])
    assert (summary["totals"], summary["ranking"]) == (totals, ranking)
    by = set(actors(app, created["id"]))
    assert {"bot heuristic seat 0", "bot random seat 1", "bot random seat 2"} <= by
    assert client.get(f"/tables/{created['id']}/verify", headers=ORGANISER).json["ok"]


def test_a_persons_action_lets_the_bots_answer_before_it_returns(client: FlaskClient) -> None:
    created = open_table(
        client, seats=[{"name": "Ann"}, {"bot": "heuristic"}, {"bot": "montecarlo"}]
    ).created
    ann = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    table = f"/tables/{created['id']}"

    def state() -> dict[str, Any]:
        return dict(client.get(f"{table}/state", headers=ann).json)

    assert client.post(f"{table}/actions", json={"type": "deal"}, headers=ann).status_code == 201
    assert (state()["phase"], state()["to_act"]) == ("preparing", [0])  # both bots prepared
    for kind in ("discard", "pass"):
        body = next(b for b in state()["legal_actions"] if b["type"] == kind)
        assert client.post(f"{table}/actions", json=body, headers=ann).status_code == 201
    after = state()
    assert after["phase"] == "playing"
    assert after["to_act"] == [0]  # seats 1 and 2 played to the first trick: Ann's turn
    assert len(after["trick"]["cards"]) == 2


def test_two_autoplay_loops_on_one_table_never_both_append(app: Flask) -> None:
    """Racing loops submit each move at the expected version with the same key: one
    records it, the other finds it recorded (or a newer version) and reloads."""
    spec = {"game": "oh-quay", "seats": [{"bot": "random"}, {"bot": "heuristic"}],
            "seed": "race", "max_deals": 1, "rules": {"max_turns": 40}}  # fmt: skip
    with app.app_context():
        table_id = create_table(spec, autoplay=False).id  # its bots not woken: the loops race
    outcomes: list[dict[str, Any]] = []

    def loop() -> None:
        with app.app_context():
            outcomes.append(botplay.play_bots(table_id))

    threads = [threading.Thread(target=loop) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert [o["stopped"] for o in outcomes] == ["finished", "finished"]
    with get_database(app).reading() as connection:
        versions = connection.scalars(
            select(events.c.version).where(events.c.stream == table_id).order_by(events.c.version)
        ).all()
    assert versions == list(range(1, len(versions) + 1))
    table = Table("oh-quay", "standard", (SeatSpec(bot="random"), SeatSpec(bot="heuristic")),
                  MatchRules(None, 1), "race", options={"max_turns": 40},
                  salt=salt_of(app.test_client(), table_id))  # fmt: skip
    totals, _ = play_match(game("oh-quay"), table, [bot("random"), bot("heuristic")])
    assert app.test_client().get(f"/tables/{table_id}").json["totals"] == totals


def test_a_replayed_bot_move_is_recorded_once(app: Flask, client: FlaskClient) -> None:
    created = open_table(client, seats=[{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]).created
    table_id = created["id"]

    with app.test_request_context():  # the command takes who asks as a plain seat number
        first = act(table_id, {"type": "deal"}, 0, expected=1, key="bot:1:0", actor="bot x")
        again = act(table_id, {"type": "deal"}, 0, expected=1, key="bot:1:0", actor="bot x")
    assert first == again
    assert actors(app, table_id) == ["organiser", "bot x"]


# --- jobs ---------------------------------------------------------------------------------------


def test_autoplay_on_request_is_a_job(client: FlaskClient) -> None:
    created = open_table(
        client, seats=[{"bot": "random"}, {"bot": "random"}, {"bot": "random"}]
    ).created
    response = client.post(f"/tables/{created['id']}/autoplay", headers=ORGANISER)
    assert response.status_code == 202
    job = client.get(f"/jobs/{response.json['job']}").json
    assert job["kind"] == "autoplay" and job["state"] == "done"
    assert job["result"]["stopped"] == "finished" and job["table"] == created["id"]


def test_autoplay_needs_a_token_and_a_table(client: FlaskClient) -> None:
    created = open_table(
        client, seats=[{"name": "Ann"}, {"bot": "random"}, {"bot": "random"}]
    ).created
    assert client.post(f"/tables/{created['id']}/autoplay").status_code == 401
    seat = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    assert client.post(f"/tables/{created['id']}/autoplay", headers=seat).status_code == 202
    assert client.post(f"/tables/{'0' * 32}/autoplay", headers=ORGANISER).status_code == 404
    assert client.get(f"/jobs/{'0' * 32}").status_code == 404


def test_a_simulation_job_holds_the_merged_result(client: FlaskClient) -> None:
    body = {"game": "bottle-imp", "seats": ["heuristic", "random", "random"], "matches": 12,
            "seed": 7, "max_deals": 1}  # fmt: skip
    response = client.post("/simulations", json=body, headers=ORGANISER)
    assert response.status_code == 202
    job = client.get(f"/jobs/{response.json['job']}").json
    assert job["state"] == "done", job
    assert job["progress"] == {"done": 12, "total": 12}
    sim = Simulation("bottle-imp", ("heuristic", "random", "random"), 12, "7", max_deals=1)
    assert job["result"] == result(sim, run_chunk(sim, range(12)))
    seat = job["result"]["seats"][0]
    assert seat["bot"] == "heuristic" and 0 <= seat["win_rate_ci95"][0] <= seat["win_rate"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"seats": ["heuristic", "deep-blue", "random"]}, 422, "validation_error"),
        ({"seats": ["heuristic", "random"]}, 422, "wrong_player_count"),
        ({"variant": "blitz"}, 422, "unknown_variant"),
        ({"matches": 0}, 422, "validation_error"),
    ],
)
def test_a_simulation_that_cannot_run_is_refused(
    client: FlaskClient, body: dict[str, Any], status: int, code: str
) -> None:
    spec = {"game": "bottle-imp", "seats": ["heuristic", "random", "random"], "matches": 3,
            "seed": 1, **body}  # fmt: skip
    response = client.post("/simulations", json=spec, headers=ORGANISER)
    assert (response.status_code, response.json["code"]) == (status, code)


def test_simulations_are_for_the_organiser(client: FlaskClient) -> None:
    body = {"game": "oh-quay", "seats": ["random", "random"], "matches": 1, "seed": 1}
    assert client.post("/simulations", json=body).status_code == 401
    stranger = {"Authorization": "Bearer x"}
    assert client.post("/simulations", json=body, headers=stranger).status_code == 403


def test_a_simulation_too_large_for_the_request_fails_and_says_why(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue, "EAGER_SIMULATION_SECONDS", 0.0)
    body = {"game": "oh-quay", "seats": ["random", "random"], "matches": 50, "seed": 1}
    job = client.get(
        f"/jobs/{client.post('/simulations', json=body, headers=ORGANISER).json['job']}"
    )
    assert job.json["state"] == "failed"
    assert "CARDLEDGER_JOBS" in job.json["error"]


def test_an_unknown_bot_at_a_table_is_refused(client: FlaskClient) -> None:
    body = {"game": "bottle-imp", "seats": [{"bot": "deep-blue"}, {"name": "A"}, {"name": "B"}]}
    response = client.post("/tables", json=body, headers=ORGANISER)
    assert response.status_code == 422
    assert "seats.0.bot" in response.json["errors"]


# --- the broker down ------------------------------------------------------------------------------


def test_with_the_broker_down_only_job_routes_fail(brokerless: Flask) -> None:
    client = brokerless.test_client()
    created = open_table(
        client, seats=[{"name": "Ann"}, {"bot": "random"}, {"bot": "random"}]
    ).created
    table_id = created["id"]
    ann = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    # a person's action that leaves the bots to move is still recorded
    assert client.post(f"/tables/{table_id}/actions", json={"type": "deal"},
                       headers=ann).status_code == 201  # fmt: skip
    assert client.get(f"/tables/{table_id}").status_code == 200
    autoplay = client.post(f"/tables/{table_id}/autoplay", headers=ORGANISER)
    assert (autoplay.status_code, autoplay.json["code"]) == (503, "broker_unavailable")
    body = {"game": "oh-quay", "seats": ["random", "random"], "matches": 1, "seed": 1}
    simulation = client.post("/simulations", json=body, headers=ORGANISER)
    assert (simulation.status_code, simulation.json["code"]) == (503, "broker_unavailable")
    assert client.get("/health").json["broker"] == "down"
