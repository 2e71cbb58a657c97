"""Issue 12, finding 1: a guessable seed must not deal everyone's cards.

``docs/rules/common.md``, "Deterministic shuffling", rule 1: the server draws a secret 128-bit salt
per table (and per tournament); deal ``k`` is shuffled from ``"{salt}:{seed}/{k}"`` and
``seed_commitment`` is SHA-256 of ``"{salt}:{seed}"``; seed and salt are shown only once the
match (the tournament) has ended. The attack is played here as a seat would play it, with the
documented shuffle written out from the rules (``domain.shuffle.shuffle`` is pinned against
the published vectors in ``tests/domain/test_shuffle.py``).
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.shuffle import shuffle
from tests.factories import tournament_body
from tests.service.test_tables_api import (
    ORGANISER,
    PUBLIC,
    Headers,
    Json,
    OpenTable,
    all_events,
    assert_problem,
    get_state,
    open_table,
    post_action,
    step,
)
from tests.service.tournament_play import created, enter, play_table, seat_round

BOTTLE_IMP_DECK = [c for c in range(1, 38) if c != 19]  # docs/rules/bottle-imp.md, canonical order
SALT = re.compile("[0-9a-f]{32}")

#: What an attacker would try for a club's seed: the club's habits, numbers, dates.
CANDIDATES = [
    *(f"club-night-{n}" for n in range(1, 41)),
    *(f"club-{n}" for n in range(1, 21)),
    *(f"clubnight{n}" for n in range(1, 11)),
    *(f"night-{n}" for n in range(1, 11)),
    *(str(n) for n in range(1, 11)),
    *(f"2024-0{m}-0{d}" for m in range(1, 4) for d in range(1, 4)),
    "club-night",
    "seed",
]


def seat_0_hand(deal_seed: str) -> list[int]:
    """Seat 0's hand in a standard four-player Bottle Imp deal from ``deal_seed``, dealer 0:
    card ``i`` of the shuffled deck goes to seat ``(dealer + 1 + i) % 4``."""
    deck = shuffle(BOTTLE_IMP_DECK, deal_seed)
    return sorted(card for i, card in enumerate(deck) if (1 + i) % 4 == 0)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_seat_that_knows_its_hand_cannot_find_a_guessable_seed_by_trial(
    client: FlaskClient,
) -> None:
    table = open_table(client, seed="club-night-7", players=4, max_deals=1)  # first dealer 0
    assert post_action(client, table, {"type": "deal"}, table.seat(0)).status_code == 201
    mine = get_state(client, table, table.seat(0))["hands"][0]
    assert len(mine) == 9
    commitment = table.created["seed_commitment"]
    assert len(CANDIDATES) >= 100 and "club-night-7" in CANDIDATES

    # the attacker: every candidate through the documented shuffle, and against the commitment
    dealt_alike = [seed for seed in CANDIDATES if seat_0_hand(f"{seed}/1") == mine]
    committed = [seed for seed in CANDIDATES if sha256(seed) == commitment]
    assert dealt_alike == [], "a guessed seed re-deals seat 0's hand"
    assert committed == [], "a guessed seed matches the commitment"

    # ...and only for want of the salt, which the organiser's log holds
    salt = all_events(client, table, ORGANISER)[0]["data"]["salt"]
    assert SALT.fullmatch(salt), salt
    assert seat_0_hand(f"{salt}:club-night-7/1") == mine
    assert sha256(f"{salt}:club-night-7") == commitment


def test_each_table_draws_its_own_salt(client: FlaskClient) -> None:
    first, second = (open_table(client, seed="club-night-7") for _ in range(2))
    assert first.created["seed_commitment"] != second.created["seed_commitment"]
    salts = {all_events(client, t, ORGANISER)[0]["data"]["salt"] for t in (first, second)}
    assert len(salts) == 2


@pytest.mark.parametrize("salt", ["00112233445566778899aabbccddeeff", ""])
def test_no_client_chooses_the_salt(client: FlaskClient, salt: str) -> None:
    body = {"game": "bottle-imp", "seats": [{"name": n} for n in "ABC"], "seed": "s", "salt": salt}
    response = client.post("/tables", json=body, headers=ORGANISER)
    assert "salt" in assert_problem(response, 422, "validation_error")["errors"]
    tournament = tournament_body(salt=salt)
    response = client.post("/tournaments", json=tournament, headers=ORGANISER)
    assert "salt" in assert_problem(response, 422, "validation_error")["errors"]


def secrets_seen(client: FlaskClient, table: OpenTable, headers: Headers) -> list[str]:
    """Every answer a non-organiser can get about the table, as text."""
    urls = [
        f"/tables/{table.id}",
        f"/tables/{table.id}/state",
        f"/tables/{table.id}/events",
        f"/tables/{table.id}/deals/1",
        f"/tables/{table.id}/deals/1?format=text",
        "/tables?limit=100",
        f"/tables/{table.id}/view",
    ]
    return [client.get(url, headers=headers).get_data(as_text=True) for url in urls]


def test_the_salt_is_hidden_from_seats_and_the_public_until_the_match_ends(
    client: FlaskClient,
) -> None:
    table = open_table(client, seed="club-night-7", players=3, max_deals=1)
    salt = all_events(client, table, ORGANISER)[0]["data"]["salt"]
    viewers: dict[str, Headers] = {"public": PUBLIC} | {
        f"seat {s}": table.seat(s) for s in range(3)
    }
    rng = random.Random("salt-hidden")
    while (now := get_state(client, table))["status"] != "finished":
        for name, headers in viewers.items():
            for text in secrets_seen(client, table, headers):
                assert salt not in text, f"{name} sees the salt at version {now['version']}"
            summary = client.get(f"/tables/{table.id}", headers=headers).get_json()
            assert (summary["seed"], summary["salt"]) == (None, None)
            opened = all_events(client, table, headers)[0]["data"]
            assert opened["seed"] is None and "salt" not in opened, name
            export = client.get(f"/tables/{table.id}/export", headers=headers)
            assert_problem(export, 403, "forbidden")
        organiser = all_events(client, table, ORGANISER)
        assert organiser[0]["data"]["salt"] == salt  # the organiser sees everything
        step(client, table, rng)

    key = f"{salt}:club-night-7"
    for name, headers in viewers.items():
        summary = client.get(f"/tables/{table.id}", headers=headers).get_json()
        assert (summary["seed"], summary["salt"]) == ("club-night-7", salt), name
        assert sha256(key) == summary["seed_commitment"] == table.created["seed_commitment"]
        events = all_events(client, table, headers)
        assert events[0]["data"]["salt"] == salt
        assert [e["data"]["seed"] for e in events if e["type"] == "DealStarted"] == [f"{key}/1"]
        export = client.get(f"/tables/{table.id}/export", headers=headers)
        assert export.status_code == 200 and salt in export.get_data(as_text=True)


# --- tournaments -----------------------------------------------------------------------------


def tournament_of(client: FlaskClient, tournament: str, headers: Headers = PUBLIC) -> Json:
    return created(client.get(f"/tournaments/{tournament}", headers=headers), 200)


def test_a_tournament_commits_to_its_salted_key_and_its_tables_derive_from_it(
    client: FlaskClient,
) -> None:
    body = tournament_body(seed="spring-open", rounds=1)
    tournament = created(client.post("/tournaments", json=body, headers=ORGANISER))["id"]
    before = tournament_of(client, tournament)
    commitment = before["seed_commitment"]
    assert (before["seed"], before["salt"]) == (None, None)
    assert re.fullmatch("[0-9a-f]{64}", commitment) and commitment != sha256("spring-open")
    assert tournament_of(client, tournament, ORGANISER)["salt"] is None  # shown to no one yet

    enter(client, tournament, *"ABCD")
    table: Any = seat_round(client, tournament)["tables"][0]
    shown = play_table(client, table["id"], random.Random(3))
    assert shown["status"] == "finished"
    assert shown["seed"] != sha256("spring-open/round-1/table-1")  # the bare seed gives nothing

    after = tournament_of(client, tournament)
    assert after["status"] == "finished"  # one round: over with its last table
    seed, salt = after["seed"], after["salt"]
    assert seed == "spring-open" and SALT.fullmatch(salt)
    key = f"{salt}:{seed}"
    assert sha256(key) == after["seed_commitment"] == commitment
    assert shown["seed"] == sha256(f"{key}/round-1/table-1")
    # the table has its own salt, shown with its seed, and its commitment binds both
    assert SALT.fullmatch(shown["salt"]) and shown["salt"] != salt
    assert shown["seed_commitment"] == sha256(f"{shown['salt']}:{shown['seed']}")
