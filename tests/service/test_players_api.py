"""Players and ratings: ``POST /players``, ``GET /players/{id}``, ``GET /ratings``; a seat
naming a player must name a registered one; after every finished table its registered
players' OpenSkill (Plackett–Luce) ratings move, checked against openskill itself."""

from __future__ import annotations

import random

import pytest
from flask.testing import FlaskClient
from openskill.models import PlackettLuce

from tests.factories import player_body, table_body
from tests.helpers import assert_problem, open_table
from tests.service.tournament_play import ORGANISER, Json, created, play_table, register

MODEL = PlackettLuce()


def rating(client: FlaskClient, player: str) -> Json:
    rated: Json = created(client.get(f"/players/{player}"), 200)["rating"]
    return rated


def places_among(totals: list[int], seats: list[int]) -> list[int]:
    """Places among the given seats only, higher total first, ties shared."""
    return [1 + sum(1 for o in seats if totals[o] > totals[s]) for s in seats]


# --- players ---------------------------------------------------------------------------------


def test_a_player_is_registered_and_starts_at_the_default_rating(client: FlaskClient) -> None:
    player = created(client.post("/players", json={"name": "  Ann   Lee "}, headers=ORGANISER))
    assert player["name"] == "Ann Lee"
    assert player["rating"] == {"mu": 25.0, "sigma": 25 / 3, "ordinal": 0.0, "tables": 0}
    assert created(client.get(f"/players/{player['id']}"), 200) == player
    assert created(client.get("/ratings"), 200) == {"rows": []}  # nobody rated yet


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "  "}, {"name": "A", "x": 1}])
def test_a_player_needs_a_name(client: FlaskClient, body: Json) -> None:
    assert_problem(client.post("/players", json=body, headers=ORGANISER), 422, "validation_error")


def test_players_are_the_organisers_to_register_and_anyones_to_read(client: FlaskClient) -> None:
    assert_problem(client.post("/players", json=player_body()), 401, "unauthorized")
    assert_problem(client.get(f"/players/{'0' * 32}"), 404, "not_found")
    assert_problem(client.get("/players/not-an-id"), 404, "not_found")


def test_a_seat_names_a_registered_player_once(client: FlaskClient) -> None:
    ann = register(client, "Ann")
    unknown = [{"player_id": "f" * 32}, {"name": "B"}, {"name": "C"}, {"name": "D"}]
    response = client.post("/tables", json=table_body(seats=unknown), headers=ORGANISER)
    assert_problem(response, 422, "unknown_player")
    twice = [{"player_id": ann}, {"player_id": ann}, {"name": "C"}, {"name": "D"}]
    response = client.post("/tables", json=table_body(seats=twice), headers=ORGANISER)
    assert_problem(response, 422, "duplicate_player")
    table = open_table(client, seats=[{"player_id": ann, "name": "Ann"}, *unknown[1:]]).id
    assert created(client.get(f"/tables/{table}"), 200)["seats"][0]["player_id"] == ann


def test_a_players_seat_given_without_a_name_sits_under_the_players_name(
    client: FlaskClient,
) -> None:
    """The seat's own name wins; without one the table records the registered name, so
    its pages say who sits there instead of "Seat 1"."""
    ann = register(client, "Ann Lee")
    seats = [{"player_id": ann}, {"name": "Bo"}, {"bot": "random"}, {"name": "Di"}]
    created_table = created(client.post("/tables", json=table_body(seats=seats), headers=ORGANISER))
    assert created_table["seats"][0]["name"] == "Ann Lee"
    table = created_table["id"]
    seat = created(client.get(f"/tables/{table}"), 200)["seats"][0]
    assert (seat["player_id"], seat["name"]) == (ann, "Ann Lee")
    opened = created(client.get(f"/tables/{table}/events"), 200)["events"][0]
    assert opened["data"]["seats"][0] == {"name": "Ann Lee", "player_id": ann}
    page = client.get(f"/tables/{table}/view?as=organiser", headers=ORGANISER).get_data(True)
    assert "Ann Lee" in page and "Seat 1" not in page
    own = open_table(client, seats=[{"player_id": ann, "name": "Annie"}, *seats[1:]]).id
    assert created(client.get(f"/tables/{own}"), 200)["seats"][0]["name"] == "Annie"


# --- ratings ---------------------------------------------------------------------------------


def test_a_finished_table_rates_its_registered_players_only(client: FlaskClient) -> None:
    players = [register(client, name) for name in ("Ann", "Bo", "Cy")]
    seats = [{"player_id": p} for p in players] + [{"name": "Guest"}]
    table = open_table(client, seats=seats).id
    summary = play_table(client, table, random.Random(11))
    places = places_among(summary["totals"], [0, 1, 2])
    expected = MODEL.rate([[MODEL.rating()] for _ in players], ranks=places)
    for player, team in zip(players, expected, strict=True):
        got = rating(client, player)
        assert (got["mu"], got["sigma"], got["tables"]) == (team[0].mu, team[0].sigma, 1)
        assert got["ordinal"] == pytest.approx(team[0].mu - 3 * team[0].sigma)
    ladder = created(client.get("/ratings"), 200)["rows"]
    assert {row["id"] for row in ladder} == set(players)
    ordinals = [row["rating"]["ordinal"] for row in ladder]
    assert ordinals == sorted(ordinals, reverse=True)
    assert ladder[0]["rank"] == 1


def test_ratings_follow_the_tables_in_the_order_they_finish(client: FlaskClient) -> None:
    ann, bo, cy = (register(client, name) for name in ("Ann", "Bo", "Cy"))
    expected = {p: MODEL.rating() for p in (ann, bo, cy)}
    for number, trio in enumerate([(ann, bo, cy), (cy, ann, bo)]):
        table = open_table(client, seats=[{"player_id": p} for p in trio]).id
        summary = play_table(client, table, random.Random(number))
        places = places_among(summary["totals"], [0, 1, 2])
        after = MODEL.rate([[expected[p]] for p in trio], ranks=places)
        expected |= {p: team[0] for p, team in zip(trio, after, strict=True)}
    for player, want in expected.items():
        got = rating(client, player)
        assert (got["mu"], got["sigma"], got["tables"]) == (want.mu, want.sigma, 2)


def test_bots_lopaka_and_a_lone_player_are_not_rated(client: FlaskClient) -> None:
    ann, bo, cy = (register(client, name) for name in ("Ann", "Bo", "Cy"))
    lopaka = open_table(client, "lopaka", seats=[{"player_id": ann}, {"player_id": bo}]).id
    summary = play_table(client, lopaka, random.Random(1))
    assert summary["ranking"][2] is None and len(summary["totals"]) == 3
    places = places_among(summary["totals"], [0, 1])
    expected = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=places)
    assert rating(client, ann)["mu"] == expected[0][0].mu
    assert rating(client, bo)["mu"] == expected[1][0].mu

    alone = [{"player_id": cy}, {"bot": "random"}, {"bot": "random"}, {"name": "Guest"}]
    play_table(client, open_table(client, seats=alone).id, random.Random(2))
    assert rating(client, cy)["tables"] == 0
    assert cy not in {row["id"] for row in created(client.get("/ratings"), 200)["rows"]}
