"""The Tournaments API (``docs/api.md``, Tournaments): whole tournaments of every registered game
played through the API by random legal actions, standings checked against a reckoning of
the tables' results; then entries (late, withdrawn, duplicate), byes, bots, the round
guard, the exports and the errors."""

from __future__ import annotations

import csv
import hashlib
import io
import random
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.factories import table_body, tournament_body
from tests.service.test_tables_api import assert_problem, bearer
from tests.service.tournament_play import (
    GAME_SETUPS,
    ORGANISER,
    Json,
    Reckoning,
    created,
    enter,
    enter_player,
    new_tournament,
    play_round,
    play_table,
    register,
    seat_round,
    standings,
)

#: Every game the engine registers (``domain.games.SPECS``).
REGISTERED = list(GAME_SETUPS)


def tournament_of(client: FlaskClient, tournament: str) -> Json:
    return created(client.get(f"/tournaments/{tournament}"), 200)


# --- whole tournaments -----------------------------------------------------------------------


@pytest.mark.parametrize("game", REGISTERED)
def test_a_swiss_tournament_of_each_game_is_seated_played_and_ranked(
    client: FlaskClient, game: str
) -> None:
    setup = GAME_SETUPS[game]
    size = tournament_body(**setup)["table_size"]
    entries = 2 * size + 1  # two tables and a bye each round
    tournament = new_tournament(client, rounds=2, seed=f"e2e-{game}", **setup)
    members = [register(client, f"{game} member {i}") for i in range(1, entries)]
    for member in members:
        enter_player(client, tournament, member)
    enter(client, tournament, f"{game} guest")  # not registered: never rated
    rng = random.Random(f"e2e-{game}")
    reckoning = Reckoning()
    bye_worth = tournament_of(client, tournament)["bye_points"]
    assert bye_worth == (size - 1) / 2
    rated_tables = dict.fromkeys(range(1, entries), 0)

    for number in (1, 2):
        seated, summaries = play_round(client, tournament, rng)
        assert seated["round"] == number
        seats = [s["entry"] for t in seated["tables"] for s in t["seats"]]
        assert sorted(seats + [b["entry"] for b in seated["byes"]]) == list(range(1, entries + 1))
        assert all(s["token"] for t in seated["tables"] for s in t["seats"])
        assert all(summary["status"] == "finished" for summary in summaries)
        for table in seated["tables"]:
            rated = [s["entry"] for s in table["seats"] if s["player_id"]]
            for entry in rated if len(rated) > 1 else []:
                rated_tables[entry] += 1
        reckoning.round(seated, summaries, bye_worth)
        reckoning.matches(standings(client, tournament)["rows"])

    assert sorted(n for n in reckoning.byes.values() if n) == [1, 1]  # two different byes
    shown = tournament_of(client, tournament)
    assert (shown["status"], shown["rounds_played"]) == ("finished", 2)
    assert shown["seed"] == f"e2e-{game}"  # revealed once finished
    final = standings(client, tournament)
    assert (final["status"], final["rounds_played"]) == ("finished", 2)
    for entry, member in enumerate(members, start=1):
        rating = created(client.get(f"/players/{member}"), 200)["rating"]
        assert rating["tables"] == rated_tables[entry]
    ladder = created(client.get("/ratings"), 200)["rows"]
    assert {row["id"] for row in ladder} == {m for e, m in enumerate(members, 1) if rated_tables[e]}
    assert_problem(
        client.post(f"/tournaments/{tournament}/rounds", headers=ORGANISER),
        409,
        "tournament_finished",
    )


def test_round_robin_of_four_players_at_two_player_tables(client: FlaskClient) -> None:
    """A small case reckoned by hand: 4 entries, 3 rounds, everyone meets everyone once."""
    tournament = new_tournament(
        client, variant="lopaka", table_size=2, rounds=3, pairing="round_robin"
    )
    enter(client, tournament, "Ann", "Bo", "Cy", "Di")
    rng = random.Random("lopaka")
    met: set[frozenset[int]] = set()
    reckoning = Reckoning()
    for _ in range(3):
        seated, summaries = play_round(client, tournament, rng)
        for table, summary in zip(seated["tables"], summaries, strict=True):
            assert len(summary["totals"]) == 3 and summary["ranking"][2] is None  # Lopaka
            pair = frozenset(s["entry"] for s in table["seats"])
            assert pair not in met
            met.add(pair)
        reckoning.round(seated, summaries, 0.5)
    assert len(met) == 6
    rows = standings(client, tournament)["rows"]
    reckoning.matches(rows)
    assert sum(r["match_points"] for r in rows) == 6  # one point per table (or two halves)


def test_seats_tokens_act_for_their_seat(client: FlaskClient) -> None:
    tournament = new_tournament(client)
    enter(client, tournament, "Ann", "Bo", "Cy", "Di")
    table = seat_round(client, tournament)["tables"][0]
    state = created(client.get(f"/tables/{table['id']}/state", headers=ORGANISER), 200)
    dealer = state["to_act"][0]
    token = next(s["token"] for s in table["seats"] if s["seat"] == dealer)
    response = client.post(
        f"/tables/{table['id']}/actions", json={"type": "deal"}, headers=bearer(token)
    )
    assert response.status_code == 201, response.get_json()
    summary = created(client.get(f"/tables/{table['id']}"), 200)
    assert [s["name"] for s in summary["seats"]] == [s["name"] for s in table["seats"]]


def test_the_seed_fixes_the_seating_and_each_tables_deal_seed(client: FlaskClient) -> None:
    def first_round(seed: str) -> list[list[str]]:
        tournament = new_tournament(client, seed=seed)
        enter(client, tournament, *"ABCDEFGH")
        seated = seat_round(client, tournament)
        return [[s["name"] for s in t["seats"]] for t in seated["tables"]]

    # Seating draws from the secret salted key (docs/rules/common.md, "Deterministic shuffling"
    # 1), so a guessable seed does not say who will sit where; the domain tests pin that the
    # same seed and salt seat alike.
    assert first_round("same") != first_round("same")
    tournament = new_tournament(client, seed="derived")
    enter(client, tournament, *"ABCD")
    table = seat_round(client, tournament)["tables"][0]
    summary = play_table(client, table["id"], random.Random(0))
    assert "derived" not in summary["seed"]  # a finished table does not give the others away
    # nor does the guessable tournament seed alone give the tables' seeds
    assert summary["seed"] != hashlib.sha256(b"derived/round-1/table-1").hexdigest()
    shown = created(client.post(f"/tournaments/{tournament}/finish", headers=ORGANISER), 200)
    key = f"{shown['salt']}:{shown['seed']}"  # docs/rules/common.md, "Deterministic shuffling" 1
    assert shown["seed"] == "derived"
    assert summary["seed"] == hashlib.sha256(f"{key}/round-1/table-1".encode()).hexdigest()
    assert (
        table["first_dealer"]
        == created(client.get(f"/tables/{table['id']}/events"), 200)["events"][0]["data"][
            "first_dealer"
        ]
    )


# --- entries ---------------------------------------------------------------------------------


def test_a_late_entry_is_seated_from_the_next_round(client: FlaskClient) -> None:
    tournament = new_tournament(client, rounds=3)
    enter(client, tournament, *"ABCDEFGH")
    rng = random.Random(1)
    play_round(client, tournament, rng)
    late = enter(client, tournament, "Latecomer")[0]
    assert late["entry"] == 9
    seated, _ = play_round(client, tournament, rng)
    everyone = {s["entry"] for t in seated["tables"] for s in t["seats"]}
    everyone |= {b["entry"] for b in seated["byes"]}
    assert 9 in everyone
    row = next(r for r in standings(client, tournament)["rows"] if r["entry"] == 9)
    assert row["tables"] + row["byes"] == 1


def test_a_withdrawn_entry_keeps_its_results_and_is_never_seated_again(
    client: FlaskClient,
) -> None:
    tournament = new_tournament(client, rounds=3)
    enter(client, tournament, *"ABCDEFGHI")
    rng = random.Random(2)
    seated, _ = play_round(client, tournament, rng)
    gone = seated["tables"][0]["seats"][0]["entry"]
    before = next(r for r in standings(client, tournament)["rows"] if r["entry"] == gone)
    response = client.delete(f"/tournaments/{tournament}/entries/{gone}", headers=ORGANISER)
    assert created(response, 200)["withdrawn"] is True
    for _ in range(2):
        seated, _ = play_round(client, tournament, rng)
        assert gone not in {s["entry"] for t in seated["tables"] for s in t["seats"]}
        assert gone not in {b["entry"] for b in seated["byes"]}
        assert not seated["byes"]  # 8 active entries fill two tables
    after = next(r for r in standings(client, tournament)["rows"] if r["entry"] == gone)
    assert after["withdrawn"] is True
    assert (after["match_points"], after["score"], after["tables"]) == (
        before["match_points"],
        before["score"],
        before["tables"],
    )
    again = client.delete(f"/tournaments/{tournament}/entries/{gone}", headers=ORGANISER)
    assert_problem(again, 409, "tournament_finished")


def test_entries_refused(client: FlaskClient) -> None:
    tournament = new_tournament(client)
    ann = register(client, "Ann")
    enter_player(client, tournament, ann)
    enter(client, tournament, "Bo")
    url = f"/tournaments/{tournament}/entries"
    assert_problem(
        client.post(url, json={"name": " ann "}, headers=ORGANISER), 422, "duplicate_entry"
    )
    assert_problem(client.post(url, json={"name": "BO"}, headers=ORGANISER), 422, "duplicate_entry")
    assert_problem(
        client.post(url, json={"player_id": ann}, headers=ORGANISER), 422, "duplicate_entry"
    )
    assert_problem(
        client.post(url, json={"player_id": "0" * 32}, headers=ORGANISER), 422, "unknown_player"
    )
    problem = assert_problem(
        client.post(url, json={"name": "Cy", "player_id": ann}, headers=ORGANISER),
        422,
        "validation_error",
    )
    assert "_schema" in problem["errors"]
    assert_problem(
        client.post(url, json={"name": "   "}, headers=ORGANISER), 422, "validation_error"
    )
    assert_problem(client.delete(f"{url}/7", headers=ORGANISER), 404, "not_found")
    created(client.delete(f"{url}/2", headers=ORGANISER), 200)
    assert_problem(client.delete(f"{url}/2", headers=ORGANISER), 409, "entry_withdrawn")


# --- byes and bots ---------------------------------------------------------------------------


def test_extra_entries_get_byes_worth_the_tournaments_bye_points(client: FlaskClient) -> None:
    tournament = new_tournament(client, bye_points=2.5, pairing="random")
    enter(client, tournament, *"ABCDEF")  # one table of four, two byes
    seated = seat_round(client, tournament)
    assert len(seated["tables"]) == 1 and len(seated["byes"]) == 2
    rows = {r["entry"]: r for r in standings(client, tournament)["rows"]}
    for bye in seated["byes"]:
        assert (rows[bye["entry"]]["match_points"], rows[bye["entry"]]["byes"]) == (2.5, 1)
        assert rows[bye["entry"]]["rank"] == 1


def seated_with_a_bot_dealing_last(client: FlaskClient) -> tuple[str, dict[str, Any]]:
    """A one-round tournament of five entries at tables of four, seated, whose last table
    (two people and two bots; the first: three people and a bot) has a bot as its first
    dealer. Seating comes from the secret salted key, so no
    seed can be chosen for it: tournaments are opened until one seats so (about half do)."""
    for _ in range(40):
        tournament = new_tournament(client, bots=True, rounds=1)
        enter(client, tournament, *"ABCDE")  # the bots spread: 3 people + 1 bot, 2 + 2
        seated = seat_round(client, tournament)
        last = seated["tables"][-1]
        if last["seats"][last["first_dealer"]]["bot"]:
            return tournament, seated
    raise AssertionError("no seating put a bot first to deal in 40 tournaments")


def test_bots_are_spread_over_the_tables_and_are_not_ranked(client: FlaskClient) -> None:
    tournament, seated = seated_with_a_bot_dealing_last(client)
    assert seated["tables"][-1]["seats"][seated["tables"][-1]["first_dealer"]]["bot"]
    last_table = seated["tables"][-1]
    bots = {s["seat"] for s in last_table["seats"] if s["bot"]}
    state = created(client.get(f"/tables/{last_table['id']}/state", headers=ORGANISER), 200)
    assert not bots & set(state["to_act"])  # bots move by themselves, from the first deal
    rng = random.Random(5)
    summaries = [play_table(client, t["id"], rng) for t in seated["tables"]]
    assert not seated["byes"]
    first, last = (t["seats"] for t in seated["tables"])
    assert sorted(s["bot"] or "" for s in first) == ["", "", "", "random"]
    assert sorted(s["bot"] or "" for s in last) == ["", "", "random", "random"]
    assert all(s["token"] is None for s in last if s["bot"])
    reckoning = Reckoning()
    reckoning.round(seated, summaries, 0)
    rows = standings(client, tournament)["rows"]
    reckoning.matches(rows)
    two = [r for r in rows if r["entry"] in {s["entry"] for s in last if s["entry"]}]
    assert sorted(r["match_points"] for r in two) in ([0, 1], [0.5, 0.5])


def test_custom_match_points_by_place(client: FlaskClient) -> None:
    by_place = [10, 6, 3, 0]
    tournament = new_tournament(client, match_points=by_place, rounds=1)
    enter(client, tournament, *"ABCD")
    seated, (summary,) = play_round(client, tournament, random.Random(3))
    totals = summary["totals"]
    expected = {}
    for seat in seated["tables"][0]["seats"]:
        mine = totals[seat["seat"]]
        above = sum(1 for t in totals if t > mine)
        tied = sum(1 for t in totals if t == mine)
        expected[seat["entry"]] = sum(by_place[above : above + tied]) / tied
    rows = standings(client, tournament)["rows"]
    assert {r["entry"]: r["match_points"] for r in rows} == pytest.approx(expected)
    assert tournament_of(client, tournament)["bye_points"] == 4.75


# --- the round guard and other refusals --------------------------------------------------------


def test_no_new_round_while_a_table_of_the_current_one_plays(client: FlaskClient) -> None:
    tournament = new_tournament(client)
    enter(client, tournament, *"ABCDEFGH")
    seated = seat_round(client, tournament)
    url = f"/tournaments/{tournament}/rounds"
    assert_problem(client.post(url, headers=ORGANISER), 409, "round_in_progress")
    play_table(client, seated["tables"][0]["id"], random.Random(0))
    assert_problem(client.post(url, headers=ORGANISER), 409, "round_in_progress")
    assert tournament_of(client, tournament)["status"] == "playing"
    play_table(client, seated["tables"][1]["id"], random.Random(0))
    assert created(client.post(url, headers=ORGANISER))["round"] == 2


def test_a_round_needs_a_full_table(client: FlaskClient) -> None:
    tournament = new_tournament(client)
    enter(client, tournament, "A", "B", "C")
    assert_problem(
        client.post(f"/tournaments/{tournament}/rounds", headers=ORGANISER),
        409,
        "not_enough_entries",
    )


def test_an_open_ended_tournament_is_finished_by_the_organiser(client: FlaskClient) -> None:
    tournament = new_tournament(client, rounds=None)
    enter(client, tournament, *"ABCD")
    play_round(client, tournament, random.Random(4))
    finish = f"/tournaments/{tournament}/finish"
    shown = created(client.post(finish, headers=ORGANISER), 200)
    assert shown["status"] == "finished" and shown["seed"] is not None
    assert_problem(client.post(finish, headers=ORGANISER), 409, "tournament_finished")
    assert_problem(
        client.post(f"/tournaments/{tournament}/entries", json={"name": "E"}, headers=ORGANISER),
        409,
        "tournament_finished",
    )


@pytest.mark.parametrize(
    ("overrides", "status", "code"),
    [
        ({"table_size": 5}, 422, "invalid_table_size"),
        ({"variant": "lopaka"}, 422, "invalid_table_size"),
        ({"game": "chess"}, 422, "validation_error"),
        ({"rules": {"first_dealer": 2}}, 422, "invalid_rules"),
        ({"rules": {"no_such": True}}, 422, "unknown_option"),
        ({"match_points": [3, 2, 1]}, 422, "invalid_match_points"),
        ({"pairing": "knockout"}, 422, "validation_error"),
        ({"name": " "}, 422, "validation_error"),
    ],
)
def test_a_tournament_the_rules_refuse(
    client: FlaskClient, overrides: dict[str, Any], status: int, code: str
) -> None:
    response = client.post("/tournaments", json=tournament_body(**overrides), headers=ORGANISER)
    assert_problem(response, status, code)


def test_only_the_organiser_writes_and_anyone_reads(client: FlaskClient) -> None:
    tournament = new_tournament(client)
    table = created(client.post("/tables", json=table_body(), headers=ORGANISER))
    seat = bearer(table["seats"][0]["token"])
    assert_problem(client.post("/tournaments", json=tournament_body()), 401, "unauthorized")
    assert_problem(
        client.post("/tournaments", json=tournament_body(), headers=seat), 403, "forbidden"
    )
    for url in (f"/tournaments/{tournament}/entries", f"/tournaments/{tournament}/rounds"):
        assert_problem(client.post(url, json={"name": "X"}), 401, "unauthorized")
    assert_problem(client.delete(f"/tournaments/{tournament}/entries/1"), 401, "unauthorized")
    assert client.get(f"/tournaments/{tournament}").status_code == 200
    assert client.get(f"/tournaments/{tournament}/standings").status_code == 200


def test_unknown_tournaments_and_other_streams_are_not_found(client: FlaskClient) -> None:
    table = created(client.post("/tables", json=table_body(), headers=ORGANISER))["id"]
    tournament = new_tournament(client)
    for url in (
        f"/tournaments/{table}",
        f"/tournaments/{table}/standings",
        f"/tournaments/{'0' * 32}",
        f"/tournaments/{'0' * 32}/standings.html",
        f"/tables/{tournament}",
        f"/tables/{tournament}/state",
    ):
        assert_problem(client.get(url), 404, "not_found")
    assert_problem(client.post(f"/tournaments/{table}/rounds", headers=ORGANISER), 404, "not_found")


# --- exports ---------------------------------------------------------------------------------


def played_tournament(client: FlaskClient) -> str:
    tournament = new_tournament(client, name="Spring <Open> & Co", rounds=2)
    enter(client, tournament, "Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ívar")
    rng = random.Random(8)
    play_round(client, tournament, rng)
    play_round(client, tournament, rng)
    return tournament


def test_the_csv_parses_and_equals_the_json(client: FlaskClient) -> None:
    tournament = played_tournament(client)
    rows = standings(client, tournament)["rows"]
    response = client.get(f"/tournaments/{tournament}/standings?format=csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    text = response.get_data(as_text=True)
    assert text.splitlines()[0].startswith("rank,player,match_points,score,tables")
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert len(parsed) == len(rows)
    for line, row in zip(parsed, rows, strict=True):
        assert int(line["rank"]) == row["rank"]
        assert line["player"] == row["player"]
        assert float(line["match_points"]) == row["match_points"]
        assert int(line["score"]) == row["score"]
        assert int(line["tables"]) == row["tables"]
        assert int(line["entry"]) == row["entry"]
        assert int(line["byes"]) == row["byes"]
        assert float(line["buchholz"]) == row["tiebreaks"]["buchholz"]
        h2h = row["tiebreaks"]["head_to_head"]
        assert line["head_to_head"] == ("" if h2h is None else str(h2h))
        assert line["withdrawn"] == str(row["withdrawn"]).lower()
    bad = client.get(f"/tournaments/{tournament}/standings?format=xml")
    assert_problem(bad, 422, "validation_error")


def test_the_printable_page_is_self_contained(client: FlaskClient) -> None:
    tournament = played_tournament(client)
    response = client.get(f"/tournaments/{tournament}/standings.html")
    assert response.status_code == 200 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert "Spring &lt;Open&gt; &amp; Co" in page and "<Open>" not in page
    assert "Ívar" in page and "@media print" in page
    icon = re.search(r'<link rel="icon" href="data:image/svg\+xml,[^"]+"[^>]*>', page)
    assert icon is not None  # the favicon travels inside the page
    for external in ("<link", "<script", "src=", "@import", "url("):
        assert external not in page.replace(icon.group(0), "")
    rows = standings(client, tournament)["rows"]
    ranked = re.findall(r'<tr class="[^"]*" data-entry="(\d+)">', page)  # the crosstable after
    assert ranked == [str(r["entry"]) for r in rows]
    positions = [page.index(f'data-entry="{r["entry"]}"') for r in rows]
    assert positions == sorted(positions)
