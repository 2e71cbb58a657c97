"""The standings page and the home page's tournament tables, as a club reads them: the
tournament's and the game's names, how many rounds of how many, a way home and to the
rules; an entry that withdrew before playing is listed last and unranked (and the JSON
and CSV standings keep their contract); tables are named by tournament, round and table.
"""

from __future__ import annotations

import random
import re

from flask.testing import FlaskClient

from service.web.pages.standings import progress
from tests.factories import table_body
from tests.service.tournament_play import (
    ORGANISER,
    Json,
    enter,
    new_tournament,
    play_round,
    seat_round,
    standings,
)


def page_of(client: FlaskClient, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


def spring_cup(client: FlaskClient) -> tuple[str, int]:
    """Four players and one who withdrew before round 1; round 1 played, round 2 seated."""
    tournament = new_tournament(client, name="Spring cup", rounds=3)
    enter(client, tournament, "Ann", "Bo", "Cy", "Di")
    quitter = enter(client, tournament, "Quentin")[0]["entry"]
    gone = client.delete(f"/tournaments/{tournament}/entries/{quitter}", headers=ORGANISER)
    assert gone.status_code == 200
    play_round(client, tournament, random.Random(5))
    seat_round(client, tournament)
    return tournament, quitter


def test_the_header_names_the_tournament_and_game_and_counts_rounds(client: FlaskClient) -> None:
    tournament, _ = spring_cup(client)
    page = page_of(client, f"/tournaments/{tournament}/standings.html")
    assert "<h1>Spring cup</h1>" in page
    assert '<a href="/rules/bottle-imp">The Bottle Imp</a>' in page
    assert "standings after 1 of 3 rounds · round 2 in play" in page
    assert '<a href="/">Club home</a>' in page
    for link in set(re.findall(r'href="(/[^"]*)"', page)):
        assert client.get(link).status_code == 200, link


def test_an_entry_that_withdrew_before_playing_is_listed_last_unranked(
    client: FlaskClient,
) -> None:
    tournament, quitter = spring_cup(client)
    page = page_of(client, f"/tournaments/{tournament}/standings.html")
    entries = re.findall(r'<tr class="([^"]*)" data-entry="(\d+)">', page)
    assert entries[-1] == ("withdrawn unranked", str(quitter))
    assert all("unranked" not in classes for classes, _ in entries[:-1])
    row = page[page.index(f'data-entry="{quitter}"') :].split("</tr>")[0]
    assert "withdrew before playing" in row and 'class="rank"><abbr' in row

    body = standings(client, tournament)
    rows = body["rows"]
    assert rows[-1]["entry"] == quitter
    assert rows[-1]["rank"] == len(rows)  # still an integer rank: after everyone who played
    assert {r["rank"] for r in rows[:-1]} <= set(range(1, len(rows)))
    for field in ("rank", "player", "entry", "match_points", "score", "tables", "tiebreaks"):
        assert all(field in r for r in rows)
    csv = client.get(f"/tournaments/{tournament}/standings?format=csv").get_data(as_text=True)
    assert csv.startswith("rank,player,match_points,score,tables")
    assert csv.rstrip().splitlines()[-1].startswith(f"{len(rows)},Quentin,0,0,0")


#: One recorded four-player deal of The Bottle Imp (docs/rules/bottle-imp.md, "Recorded
#: deals"): nothing left to the shuffle.
HANDS = [[c for c in range(1, 38) if c != 19][seat::4] for seat in range(4)]


def act(client: FlaskClient, table: str, action: Json) -> Json:
    answer = client.post(f"/tables/{table}/actions", json=action, headers=ORGANISER)
    assert answer.status_code == 201, (action, answer.get_json())
    return dict(answer.get_json())


def table_state(client: FlaskClient, table: str) -> Json:
    response = client.get(f"/tables/{table}/state", headers=ORGANISER)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def end_on(client: FlaskClient, table: str, totals: list[int]) -> None:
    """Play a tournament table's one deal so that its seats end on ``totals``: the deal is
    recorded, and played first on a lone table dealt the same by the same dealer (the first
    legal action each time) to learn its scores; the tournament's table then plays the same
    moves, and before the last one the director's rulings make up the difference."""
    dealer = table_state(client, table)["dealer"]
    body = table_body(seats=[{"name": n} for n in "ABCD"], rules={"first_dealer": dealer})
    lone = client.post("/tables", json=body, headers=ORGANISER).get_json()["id"]
    moves: list[Json] = [{"type": "deal", "hands": HANDS}]
    act(client, lone, moves[0])
    while (now := table_state(client, lone))["status"] != "finished":
        moves.append(now["legal_actions"][0])
        act(client, lone, moves[-1])
    scored = now["totals"]
    for move in moves[:-1]:
        act(client, table, move)
    for seat, (wanted, got) in enumerate(zip(totals, scored, strict=True)):
        if wanted != got:
            act(client, table, {"type": "adjust", "seat": seat, "points": wanted - got,
                                "reason": "results chosen by the test"})  # fmt: skip
    act(client, table, moves[-1])
    assert table_state(client, table)["totals"] == totals


def cup(client: FlaskClient, names: list[str], totals: list[int]) -> tuple[str, Json]:
    """A one-round tournament at a table of four (the fifth entry, if any, has a bye) whose
    table ends on ``totals``; its id and its round as seated."""
    tournament = new_tournament(client, name="Chosen cup", rounds=1)
    enter(client, tournament, *names)
    seated = seat_round(client, tournament)
    (table,) = seated["tables"]
    end_on(client, table["id"], totals)
    return tournament, seated


def columns(client: FlaskClient, tournament: str) -> tuple[bool, bool]:
    page = page_of(client, f"/tournaments/{tournament}/standings.html")
    return '<th scope="col">Byes</th>' in page, "Head-to-head</span>" in page


def test_entries_level_after_buchholz_show_the_head_to_head_column(client: FlaskClient) -> None:
    """Seats 0 and 1 end level: same match points, score and Buchholz (their opponents are
    each other and the same two), so they share the first rank and head-to-head shows."""
    tournament, seated = cup(client, ["Ann", "Bo", "Cy", "Di"], [100, 100, 50, 20])
    rows = standings(client, tournament)["rows"]
    level = [seat["entry"] for seat in seated["tables"][0]["seats"][:2]]
    first = [row for row in rows if row["entry"] in level]
    assert [row["rank"] for row in rows] == [1, 1, 3, 4]
    assert {row["rank"] for row in first} == {1} and first[0]["match_points"] == 2.5
    assert all(row["tiebreaks"]["head_to_head"] is not None for row in first)
    assert columns(client, tournament) == (False, True)


def test_entries_apart_show_no_head_to_head_column(client: FlaskClient) -> None:
    tournament, _ = cup(client, ["Ann", "Bo", "Cy", "Di"], [100, 80, 50, 20])
    rows = standings(client, tournament)["rows"]
    assert [row["rank"] for row in rows] == [1, 2, 3, 4]
    assert all(row["tiebreaks"]["head_to_head"] is None for row in rows)
    assert columns(client, tournament) == (False, False)


def test_an_odd_entry_out_shows_the_byes_column(client: FlaskClient) -> None:
    """Five entries at tables of four, no bots: one sits the round out with a bye."""
    tournament, seated = cup(client, ["Ann", "Bo", "Cy", "Di", "Ed"], [100, 80, 50, 20])
    (bye,) = seated["byes"]
    rows = standings(client, tournament)["rows"]
    assert len(rows) == 5
    (row,) = [row for row in rows if row["entry"] == bye["entry"]]
    assert (row["byes"], row["tables"], row["match_points"]) == (1, 0, 1.5)
    assert sum(r["byes"] for r in rows) == 1
    assert columns(client, tournament) == (True, False)


def test_progress_reads_rounds_played_of_planned() -> None:
    assert progress(0, 3, "open") == "after 0 of 3 rounds"
    assert progress(2, 3, "playing") == "after 2 of 3 rounds · round 3 in play"
    assert progress(3, 3, "finished") == "after 3 of 3 rounds · final"
    assert progress(1, None, "open") == "after 1 round"


def test_home_names_tournament_tables_and_links_their_standings(client: FlaskClient) -> None:
    tournament, _ = spring_cup(client)
    page = page_of(client, "/")
    labels = re.findall(r'<a href="/tables/[0-9a-f]{32}/view">([^<]+)</a>', page)
    assert "Spring cup · round 2 · table 1" in labels
    assert "Spring cup · round 1 · table 1" in labels
    link = f'<a href="/tournaments/{tournament}/standings.html" title="standings">Spring cup</a>'
    assert link in page


def test_the_favicon_is_served_and_linked(client: FlaskClient) -> None:
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.mimetype == "image/svg+xml"
    assert icon.get_data(as_text=True).startswith("<svg")
    assert '<link rel="icon" href="/favicon.ico"' in page_of(client, "/")
    assert '<link rel="icon" href="/favicon.ico"' in page_of(client, "/rules/bestia")
