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
from tests.service.tournament_play import (
    ORGANISER,
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


def test_head_to_head_and_byes_columns_appear_only_when_they_say_something(
    client: FlaskClient,
) -> None:
    tournament, _ = spring_cup(client)
    page = page_of(client, f"/tournaments/{tournament}/standings.html")
    rows = standings(client, tournament)["rows"]
    tied = any(r["tiebreaks"]["head_to_head"] is not None for r in rows)
    assert ("Head-to-head</span>" in page) == tied
    assert ('<th scope="col">Byes</th>' in page) == any(r["byes"] for r in rows)


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
