"""Personal links through the API (``docs/api.md``, "Personal links (tournaments)"): each
entry's token for the whole tournament, where it says the person is, its acting as the
seat token of the seat the entry holds in the current round, a re-issue stopping that one
token at once, the undo of a withdrawal, and every refusal as a problem with its code."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient

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


def me(client: FlaskClient, tournament: str, token: str) -> Json:
    return created(client.get(f"/tournaments/{tournament}/me", headers=bearer(token)), 200)


def state(client: FlaskClient, table: str, token: str) -> Any:
    return client.get(f"/tables/{table}/state", headers=bearer(token))


@pytest.fixture
def club(client: FlaskClient) -> tuple[str, dict[str, str]]:
    """A tournament of five (tables of four: one bye a round), its tokens by name."""
    tournament = new_tournament(client, rounds=3, seed="personal-links")
    entered = enter(client, tournament, "Ann", "Bo", "Cy", "Dee", "Eve")
    return tournament, {e["name"]: e["token"] for e in entered}


def test_an_entry_is_answered_with_its_own_token(
    client: FlaskClient, club: tuple[str, dict[str, str]]
) -> None:
    tournament, tokens = club
    assert len(set(tokens.values())) == 5 and all(len(t) >= 32 for t in tokens.values())
    assert me(client, tournament, tokens["Cy"]) == {
        "entry": 3, "name": "Cy", "status": "waiting", "round": 1, "table": None, "seat": None,
    }  # fmt: skip


def test_the_token_finds_the_seat_and_acts_for_it_alone(
    client: FlaskClient, club: tuple[str, dict[str, str]]
) -> None:
    tournament, tokens = club
    seated = seat_round(client, tournament)
    table = seated["tables"][0]
    for seat in table["seats"]:
        where = me(client, tournament, tokens[seat["name"]])
        assert (where["status"], where["round"], where["table"], where["seat"]) == (
            "playing", 1, table["id"], seat["seat"])  # fmt: skip
    (bye,) = seated["byes"]
    assert me(client, tournament, tokens[bye["name"]])["status"] == "waiting"
    assert_problem(state(client, table["id"], tokens[bye["name"]]), 401, "unauthorized")

    dealer = created(client.get(f"/tables/{table['id']}/state", headers=ORGANISER), 200)
    seat = dealer["to_act"][0]
    token = tokens[table["seats"][seat]["name"]]
    moved = client.post(f"/tables/{table['id']}/actions", json={"type": "deal"},
                        headers=bearer(token))  # fmt: skip
    assert moved.status_code == 201, moved.get_json()
    for each in table["seats"]:  # each token sees its own hand, and no other
        hands = created(state(client, table["id"], tokens[each["name"]]), 200)["hands"]
        assert [bool(hand) for hand in hands] == [s == each["seat"] for s in range(len(hands))]
    other = next(s for s in table["seats"] if s["seat"] != seat)
    offered = created(state(client, table["id"], token), 200)["legal_actions"]
    assert offered and all(a["seat"] == seat for a in offered if "seat" in a)
    foreign = {**offered[0], "seat": other["seat"]}  # its own move, for another seat
    refused = client.post(f"/tables/{table['id']}/actions", json=foreign, headers=bearer(token))
    assert_problem(refused, 403, "forbidden")


def test_a_reissue_stops_that_token_at_once_and_no_other(
    client: FlaskClient, club: tuple[str, dict[str, str]]
) -> None:
    tournament, tokens = club
    table = seat_round(client, tournament)["tables"][0]
    seat = table["seats"][0]
    name, old = seat["name"], tokens[seat["name"]]
    assert state(client, table["id"], old).status_code == 200
    issued = created(
        client.post(f"/tournaments/{tournament}/entries/{seat['entry']}/token", headers=ORGANISER)
    )
    assert issued["entry"] == seat["entry"] and issued["token"] not in tokens.values()
    assert_problem(state(client, table["id"], old), 401, "unauthorized")
    get_me = client.get(f"/tournaments/{tournament}/me", headers=bearer(old))
    assert_problem(get_me, 401, "unauthorized")
    hands = created(state(client, table["id"], issued["token"]), 200)["hands"]
    assert hands[seat["seat"]] is not None
    assert me(client, tournament, issued["token"])["name"] == name
    for other, token in tokens.items():
        if other != name:
            assert me(client, tournament, token)["name"] == other  # nobody else's changed


def test_the_token_follows_its_entry_to_the_next_round(
    client: FlaskClient, club: tuple[str, dict[str, str]]
) -> None:
    tournament, tokens = club
    table = seat_round(client, tournament)["tables"][0]
    play_table(client, table["id"], random.Random(1))
    for seat in table["seats"]:
        where = me(client, tournament, tokens[seat["name"]])
        assert (where["status"], where["round"], where["table"]) == ("waiting", 2, None)
    (second,) = seat_round(client, tournament)["tables"]
    again = {s["name"] for s in second["seats"]} & {s["name"] for s in table["seats"]}
    token = tokens[sorted(again)[0]]  # at a table in both rounds (one of five sits out)
    where = me(client, tournament, token)
    assert (where["status"], where["round"], where["table"]) == ("playing", 2, second["id"])
    assert state(client, second["id"], token).status_code == 200
    # the last round's table opens to it no more: only the public view, with no token
    assert_problem(state(client, table["id"], token), 401, "unauthorized")


def test_a_finished_tournament_says_so(client: FlaskClient) -> None:
    tournament = new_tournament(client, rounds=1, seed="over")
    tokens = [e["token"] for e in enter(client, tournament, "Ann", "Bo", "Cy", "Dee")]
    table = seat_round(client, tournament)["tables"][0]
    play_table(client, table["id"], random.Random(2))
    assert {me(client, tournament, t)["status"] for t in tokens} == {"finished"}


def test_a_withdrawal_undone_seats_the_entry_from_the_next_round(
    client: FlaskClient, club: tuple[str, dict[str, str]]
) -> None:
    tournament, tokens = club
    url = f"/tournaments/{tournament}/entries"
    assert created(client.delete(f"{url}/5", headers=ORGANISER), 200)["withdrawn"] is True
    assert me(client, tournament, tokens["Eve"])["status"] == "withdrawn"
    round_one = seat_round(client, tournament)
    seated = [s["entry"] for t in round_one["tables"] for s in t["seats"]]
    assert 5 not in seated and not round_one["byes"]
    back = created(client.post(f"{url}/5/return", headers=ORGANISER), 200)
    assert back == {"entry": 5, "name": "Eve", "player_id": None, "withdrawn": False}
    assert me(client, tournament, tokens["Eve"])["status"] == "waiting"
    for table in round_one["tables"]:
        play_table(client, table["id"], random.Random(3))
    round_two = seat_round(client, tournament)
    seated = [s["entry"] for t in round_two["tables"] for s in t["seats"]]
    byes = [b["entry"] for b in round_two["byes"]]
    assert 5 in seated + byes
    assert_problem(client.post(f"{url}/5/return", headers=ORGANISER), 409, "entry_not_withdrawn")


# --- refusals -------------------------------------------------------------------------------


def test_where_am_i_refusals(client: FlaskClient, club: tuple[str, dict[str, str]]) -> None:
    tournament, tokens = club
    path = f"/tournaments/{tournament}/me"
    assert_problem(client.get(path), 401, "unauthorized")
    assert_problem(client.get(path, headers=bearer("not-a-token")), 401, "unauthorized")
    assert_problem(client.get(path, headers={"Authorization": "Basic eDp5"}), 401, "unauthorized")
    assert_problem(client.get(path, headers=ORGANISER), 403, "forbidden")
    other = new_tournament(client, seed="other")
    (stranger,) = enter(client, other, "Zed")
    assert_problem(client.get(path, headers=bearer(stranger["token"])), 401, "unauthorized")
    missing = "0" * 32
    assert_problem(client.get(f"/tournaments/{missing}/me", headers=bearer(tokens["Ann"])),
                   404, "not_found")  # fmt: skip


def test_reissue_and_return_refusals(client: FlaskClient, club: tuple[str, dict[str, str]]) -> None:
    tournament, tokens = club
    url = f"/tournaments/{tournament}/entries"
    for route in ("token", "return"):
        assert_problem(client.post(f"{url}/1/{route}"), 401, "unauthorized")
        assert_problem(client.post(f"{url}/1/{route}", headers=bearer(tokens["Ann"])),
                       403, "forbidden")  # fmt: skip
        assert_problem(client.post(f"{url}/9/{route}", headers=ORGANISER), 404, "not_found")
        assert_problem(client.post(f"/tournaments/{'0' * 32}/entries/1/{route}",
                                   headers=ORGANISER), 404, "not_found")  # fmt: skip
    assert_problem(client.post(f"{url}/1/return", headers=ORGANISER), 409, "entry_not_withdrawn")
    created(client.delete(f"{url}/1", headers=ORGANISER), 200)
    created(client.post(f"/tournaments/{tournament}/finish", headers=ORGANISER), 200)
    assert_problem(client.post(f"{url}/1/return", headers=ORGANISER), 409, "tournament_finished")
