"""A seat's token issued again (``POST /tables/{id}/seats/{seat}/token``), a round's
seating (``GET /tournaments/{id}/rounds/{r}``) and the refusal to seat the next round
while tables still play, naming them (``docs/api.md``, Tournaments; Lists and seat tokens)."""

from __future__ import annotations

import random

from flask.testing import FlaskClient

from tests.factories import table_body
from tests.service.test_tables_api import assert_problem, bearer
from tests.service.tournament_play import (
    ORGANISER,
    Json,
    created,
    enter,
    new_tournament,
    play_table,
    seat_round,
)


def open_with_a_bot(client: FlaskClient) -> Json:
    seats = [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}, {"bot": "random"}]
    return created(client.post("/tables", json=table_body(seats=seats), headers=ORGANISER))


def own_view(client: FlaskClient, table: str, token: str) -> int:
    return client.get(f"/tables/{table}/state", headers=bearer(token)).status_code


def reissue(client: FlaskClient, table: str, seat: int, headers: dict[str, str] = ORGANISER):  # type: ignore[no-untyped-def]
    return client.post(f"/tables/{table}/seats/{seat}/token", headers=headers)


# --- seat tokens -----------------------------------------------------------------------------


def test_a_reissued_token_replaces_the_old_one_at_once(client: FlaskClient) -> None:
    table = open_with_a_bot(client)
    old = {s["seat"]: s["token"] for s in table["seats"]}
    deal = {"type": "deal"}
    created(client.post(f"/tables/{table['id']}/actions", json=deal, headers=ORGANISER))
    assert own_view(client, table["id"], old[0]) == 200
    fresh = created(reissue(client, table["id"], 0))
    assert fresh["seat"] == 0 and fresh["token"] not in old.values()
    assert_problem(
        client.get(f"/tables/{table['id']}/state", headers=bearer(old[0])), 401, "unauthorized"
    )
    state = created(client.get(f"/tables/{table['id']}/state", headers=bearer(fresh["token"])), 200)
    assert state["hands"][0] and state["hands"][1] is None  # seat 0's own view
    assert own_view(client, table["id"], old[1]) == 200  # the other seats keep theirs
    again = created(reissue(client, table["id"], 0))
    assert own_view(client, table["id"], fresh["token"]) == 401
    assert own_view(client, table["id"], again["token"]) == 200


def test_the_new_token_acts_for_its_seat(client: FlaskClient) -> None:
    table = open_with_a_bot(client)
    token = created(reissue(client, table["id"], 0))["token"]  # seat 0 deals first
    response = client.post(
        f"/tables/{table['id']}/actions", json={"type": "deal"}, headers=bearer(token)
    )
    assert response.status_code == 201, response.get_json()


def test_only_the_organiser_reissues(client: FlaskClient) -> None:
    table = open_with_a_bot(client)
    seat_token = table["seats"][0]["token"]
    assert_problem(reissue(client, table["id"], 0, {}), 401, "unauthorized")
    assert_problem(reissue(client, table["id"], 0, bearer(seat_token)), 403, "forbidden")
    assert own_view(client, table["id"], seat_token) == 200  # nothing changed


def test_no_token_for_a_bot_or_a_seat_the_table_lacks(client: FlaskClient) -> None:
    table = open_with_a_bot(client)
    body = assert_problem(reissue(client, table["id"], 3), 422, "bot_seat")
    assert "bot" in body["detail"]
    body = assert_problem(reissue(client, table["id"], 4), 422, "unknown_seat")
    assert body["seats"] == 4
    assert_problem(reissue(client, "f" * 32, 0), 404, "not_found")
    tournament = new_tournament(client)
    assert_problem(reissue(client, tournament, 0), 404, "not_found")  # not a table


# --- a round's seating -----------------------------------------------------------------------


def test_a_rounds_seating_shows_each_table_its_status_and_who_is_to_act(
    client: FlaskClient,
) -> None:
    tournament = new_tournament(client, rounds=2)
    enter(client, tournament, *"ABCDEFGHI")  # two tables and a bye
    seated = seat_round(client, tournament)
    url = f"/tournaments/{tournament}/rounds/1"
    seating = created(client.get(url), 200)
    assert seating["round"] == 1 and seating["finished"] is False
    assert [t["table"] for t in seating["tables"]] == [1, 2]
    assert [t["id"] for t in seating["tables"]] == [t["id"] for t in seated["tables"]]
    assert seating["byes"] == seated["byes"]
    for shown, opened in zip(seating["tables"], seated["tables"], strict=True):
        assert shown["status"] == "waiting_for_deal"
        assert [(s["seat"], s["entry"], s["name"]) for s in shown["seats"]] == [
            (s["seat"], s["entry"], s["name"]) for s in opened["seats"]
        ]
        assert all(s["bot"] is None and "token" not in s for s in shown["seats"])
        state = created(client.get(f"/tables/{shown['id']}/state"), 200)
        assert shown["to_act"] == state["to_act"] != []
    first, second = (t["id"] for t in seated["tables"])
    created(client.post(f"/tables/{first}/actions", json={"type": "deal"}, headers=ORGANISER))
    play_table(client, second, random.Random(2))
    seating = created(client.get(url), 200)
    dealt, done = seating["tables"]
    assert dealt["status"] == "in_deal"
    assert dealt["to_act"] == created(client.get(f"/tables/{first}/state"), 200)["to_act"]
    assert (done["status"], done["to_act"]) == ("finished", [])
    play_table(client, first, random.Random(3))
    assert created(client.get(url), 200)["finished"] is True


def test_bots_filling_a_table_are_named_in_the_seating(client: FlaskClient) -> None:
    tournament = new_tournament(client, fill_with_bots="random")
    enter(client, tournament, *"ABCDE")
    seated = seat_round(client, tournament)
    tables = created(client.get(f"/tournaments/{tournament}/rounds/1"), 200)["tables"]
    seats = [s for t in tables for s in t["seats"]]
    bots = [s for s in seats if s["entry"] is None]
    assert len(seats) == 4 * len(tables) and len(bots) == len(seats) - 5
    assert all(s["bot"] == "random" and s["name"] is None for s in bots)
    assert [[s["bot"] for s in t["seats"]] for t in tables] == [
        [s["bot"] for s in t["seats"]] for t in seated["tables"]
    ]


def test_a_round_not_seated_is_not_found(client: FlaskClient) -> None:
    tournament = new_tournament(client)
    assert_problem(client.get(f"/tournaments/{tournament}/rounds/1"), 404, "not_found")
    enter(client, tournament, *"ABCD")
    seat_round(client, tournament)
    assert_problem(client.get(f"/tournaments/{tournament}/rounds/2"), 404, "not_found")
    assert_problem(client.get(f"/tournaments/{tournament}/rounds/0"), 404, "not_found")
    assert_problem(client.get(f"/tournaments/{'a' * 32}/rounds/1"), 404, "not_found")


# --- the round guard names the tables still playing -------------------------------------------


def test_the_next_round_waits_and_names_the_tables_still_playing(client: FlaskClient) -> None:
    tournament = new_tournament(client, rounds=2)
    enter(client, tournament, *"ABCDEFGH")
    seated = seat_round(client, tournament)
    first, second = seated["tables"]
    url = f"/tournaments/{tournament}/rounds"
    body = assert_problem(client.post(url, headers=ORGANISER), 409, "round_in_progress")
    assert body["tables"] == [{"table": 1, "id": first["id"]}, {"table": 2, "id": second["id"]}]
    assert body["round"] == 1 and "1, 2" in body["detail"]
    play_table(client, first["id"], random.Random(0))
    body = assert_problem(client.post(url, headers=ORGANISER), 409, "round_in_progress")
    assert body["tables"] == [{"table": 2, "id": second["id"]}]
    assert "(2)" in body["detail"]
    finish = f"/tournaments/{tournament}/finish"
    body = assert_problem(client.post(finish, headers=ORGANISER), 409, "round_in_progress")
    assert body["tables"] == [{"table": 2, "id": second["id"]}]
    play_table(client, second["id"], random.Random(0))
    assert created(client.post(url, headers=ORGANISER))["round"] == 2
