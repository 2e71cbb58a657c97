"""Every registered game through the same API: created, dealt (seeded or recorded), played
to the end of a match by the seats' own tokens, read back; then Bestia's and Oh Quay's own
rules through it. What each seat and the public is shown on the way is checked against what
it may know from the organiser's log (``tests/contract/knowledge.py``); every game's every
answer and page is the contract's (``tests/contract/test_over_http.py``)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.games import SPECS
from tests.contract.cards import cards_in
from tests.contract.checks import assert_may_know
from tests.contract.http import Walk
from tests.contract.matches import EVERY_GAME, Case
from tests.helpers import ADMIN_TOKEN

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
Json = dict[str, Any]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def open_table(client: FlaskClient, body: Json) -> tuple[str, list[str]]:
    response = client.post("/tables", json=body, headers=ORGANISER)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    return created["id"], [s["token"] for s in created["seats"]]


def play_out(client: FlaskClient, table: str, tokens: list[str], seed: int) -> int:
    """Each seat acts with its own token, choosing among the legal actions it is shown; the
    public's state and the acting seat's hold no card they may not know."""
    rng = random.Random(seed)
    game = client.get(f"/tables/{table}").get_json()["game"]
    walk = Walk(client, SPECS[game], table, list(tokens))
    walk.follow()
    actions = 0
    while True:
        deal = walk.deal_at(walk.version)
        state = client.get(f"/tables/{table}/state").get_json()
        assert_may_know("the public state", cards_in(walk.spec, state), walk.may_know(None, deal))
        if state["status"] == "finished":
            return actions
        seat = rng.choice(state["to_act"])
        mine = client.get(f"/tables/{table}/state", headers=bearer(tokens[seat])).get_json()
        where = f"seat {seat}'s state at version {walk.version}"
        assert_may_know(where, cards_in(walk.spec, mine), walk.may_know(seat, deal))
        assert mine["legal_actions"], mine
        action = rng.choice(mine["legal_actions"])
        response = client.post(
            f"/tables/{table}/actions", json=action, headers=bearer(tokens[seat])
        )
        assert response.status_code == 201, (action, response.get_json())
        walk.follow()
        actions += 1


@pytest.mark.parametrize("case", EVERY_GAME)
def test_every_game_is_played_to_the_end_of_its_match_through_the_api(
    client: FlaskClient, case: Case
) -> None:
    """A two-deal match of each registered game (``domain.games.SPECS``), with its quick
    options, by the seats' own tokens: finished, ranked, its totals those of its state,
    and it verifies."""
    table, tokens = open_table(
        client,
        {
            "game": case.spec.id,
            "variant": case.variant,
            "seats": [{"name": f"P{i}"} for i in range(case.players)],
            "seed": f"every-{case.id}",
            "target_score": None,
            "max_deals": 2,
            "rules": dict(case.spec.quick_options),
        },
    )
    assert play_out(client, table, tokens, 2) > 0
    summary = client.get(f"/tables/{table}").get_json()
    assert summary["status"] == "finished" and summary["deal"] == 2
    assert len(summary["ranking"]) == case.players
    assert summary["totals"] == client.get(f"/tables/{table}/state").get_json()["totals"]
    assert client.get(f"/tables/{table}/verify", headers=ORGANISER).get_json()["ok"]


@pytest.mark.parametrize("players", [3, 5, 8])
def test_a_bestia_match_is_played_to_its_end_through_the_api(
    client: FlaskClient, players: int
) -> None:
    table, tokens = open_table(
        client,
        {
            "game": "bestia",
            "seats": [{"name": f"P{i}"} for i in range(players)],
            "seed": f"bestia-{players}",
            "max_deals": 3,
            "rules": {"ante": 3, "trick_pay": "fifth"},
        },
    )
    assert play_out(client, table, tokens, players) > 0
    summary = client.get(f"/tables/{table}").get_json()
    assert summary["status"] == "finished" and summary["deal"] == 3
    state = client.get(f"/tables/{table}/state").get_json()
    assert sum(state["balances"]) + state["pot"] == 0
    assert summary["totals"] == state["balances"]
    assert summary["seed"] == f"bestia-{players}"
    assert client.get(f"/tables/{table}/verify", headers=ORGANISER).get_json()["ok"]


def test_an_oh_quay_match_is_played_to_its_end_through_the_api(client: FlaskClient) -> None:
    table, tokens = open_table(
        client,
        {"game": "oh-quay", "seats": [{"name": "Ann"}, {"name": "Bo"}], "seed": "quay"},
    )
    assert play_out(client, table, tokens, 1) > 0
    summary = client.get(f"/tables/{table}").get_json()
    assert summary["status"] == "finished" and summary["deal"] == 2  # default: two games
    assert len(summary["ranking"]) == 2
    assert client.get(f"/tables/{table}/verify", headers=ORGANISER).get_json()["ok"]


def test_bestia_options_are_checked_at_creation(client: FlaskClient) -> None:
    body = {"game": "bestia", "seats": [{"name": n} for n in "ABC"]}
    unknown = client.post("/tables", json={**body, "rules": {"antee": 2}}, headers=ORGANISER)
    assert unknown.status_code == 422 and unknown.get_json()["code"] == "unknown_option"
    assert "antee" in unknown.get_json()["detail"]
    bad = client.post("/tables", json={**body, "rules": {"deck": "huge"}}, headers=ORGANISER)
    assert bad.status_code == 422 and bad.get_json()["code"] == "invalid_option"
    assert "deck" in bad.get_json()["detail"]
    many = client.post(
        "/tables", json={**body, "seats": [{"name": str(i)} for i in range(9)]}, headers=ORGANISER
    )
    assert many.status_code == 422


def test_a_recorded_bestia_deal_is_taken_as_dealt(client: FlaskClient) -> None:
    table, tokens = open_table(
        client, {"game": "bestia", "seats": [{"name": n} for n in "ABC"], "seed": "r"}
    )
    hands = [["AS", "KS", "QS", "JS", "10S"], ["AH", "KH", "QH", "JH", "10H"],
             ["AD", "KD", "QD", "JD", "10D"]]  # fmt: skip
    response = client.post(
        f"/tables/{table}/actions",
        json={"type": "deal", "hands": hands, "muestra": "10S"},
        headers=ORGANISER,
    )
    assert response.status_code == 201, response.get_json()
    started = response.get_json()["events"][0]
    assert started["type"] == "DealStarted" and started["data"]["trump"] == "S"
    seat_view = client.get(f"/tables/{table}/state", headers=bearer(tokens[1])).get_json()
    assert sorted(seat_view["hands"][1]) == sorted(hands[1])
    assert seat_view["hands"][0] is None and seat_view["hands"][2] is None
    # a seat may not record a deal
    again = client.post(
        f"/tables/{table}/actions", json={"type": "deal", "hands": hands}, headers=bearer(tokens[0])
    )
    assert again.status_code == 403


def test_a_recorded_oh_quay_deal_and_what_each_seat_sees(client: FlaskClient) -> None:
    table, tokens = open_table(
        client, {"game": "oh-quay", "seats": [{"name": "Ann"}, {"name": "Bo"}], "seed": "q"}
    )
    deck = client.get(f"/tables/{table}/state", headers=ORGANISER).get_json()
    assert deck["status"] == "waiting_for_deal"
    names = [
        "ace-moons", "ace-suns", "ace-waves", "ace-leaves", "ace-wyrms", "ace-knots",
        "author", "desert", "origin", "journey", "painter", "savage", "mountain", "sailor",
        "battle", "forest", "discovery", "soldier", "lunatic", "penitent", "market",
        "chance-meeting", "castle", "cave", "diplomat", "mill", "betrayal", "pact", "darkness",
        "merchant", "huntress", "bard", "sea", "end", "calamity", "windfall",
    ]  # fmt: skip
    quays, canals = [names[0:9], names[18:27]], [names[9:18], names[27:36]]
    response = client.post(
        f"/tables/{table}/actions",
        json={"type": "deal", "quays": quays, "canals": canals},
        headers=ORGANISER,
    )
    assert response.status_code == 201, response.get_json()
    ann = client.get(f"/tables/{table}/state", headers=bearer(tokens[0])).get_json()
    assert ann["hands"][0] == canals[0]  # her own canal
    assert ann["quays"][1]["top"] == quays[1][0]  # the top of Bo's quay faces her
    assert ann["quays"][0].get("top") is None  # never the top of her own
    assert all(card is None for card in ann["canals"][1])  # Bo's canal is unknown to her
    public = client.get(f"/tables/{table}/state").get_json()
    assert public["hands"] == [None, None]
