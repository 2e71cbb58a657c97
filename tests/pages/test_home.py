"""``GET /``: the club's home lists running and recent tables and the tournaments, newest
first, with links to each table's page and each tournament's standings page."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from service.web.openapi import render_spec
from tests.pages.tables import ORGANISER, finish, open_table, play, playing


def home(client: FlaskClient) -> str:
    response = client.get("/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


def section(page: str, title: str) -> str:
    found = re.search(rf"<h2>{title}</h2>(.*?)(?=<h2>|</main>)", page, re.S)
    assert found, title
    return found.group(1)


def test_an_empty_club_says_so(client: FlaskClient) -> None:
    page = home(client)
    assert "No table is being played right now." in page
    assert "No finished table yet." in page
    assert "No tournament yet." in page
    # a player is sent to the seat slip's link, never told to type a token into an address
    assert "seat slip" in page and "?token=" not in page


def test_running_and_finished_tables_are_listed_with_links(client: FlaskClient) -> None:
    waiting, running, done = (open_table(client) for _ in range(3))
    play(client, running, playing)
    finish(client, done)
    page = home(client)
    live, recent = section(page, "Running tables"), section(page, "Recent tables")
    for table in (waiting, running):
        assert f'href="/tables/{table.id}/view"' in live
    assert f'href="/tables/{done.id}/view"' in recent
    assert f'href="/tables/{done.id}/view"' not in live
    assert "The Bottle Imp" in live
    assert "Ann (0), Bo (0), Cy (0), Di (0)" in live
    assert "won by" in recent
    assert re.search(r'class="status in_deal">playing</span> <span class="meta">deal 1', live)


def test_the_newest_twenty_tables_are_listed_newest_first(client: FlaskClient) -> None:
    tables = [open_table(client) for _ in range(22)]
    page = home(client)
    listed = re.findall(r'<tr data-table="([0-9a-f]{32})">', page)
    assert listed == [t.id for t in reversed(tables)][:20]


def test_tournaments_link_to_their_standings_page(client: FlaskClient) -> None:
    body = {"name": "Thursday club night", "game": "bottle-imp", "table_size": 4,
            "max_deals": 1, "rounds": 1, "seed": "home-page"}  # fmt: skip
    response = client.post("/tournaments", json=body, headers=ORGANISER)
    assert response.status_code == 201, response.get_json()
    tournament = response.get_json()["id"]
    page = section(home(client), "Tournaments")
    assert "Thursday club night" in page
    assert f'href="/tournaments/{tournament}/standings.html"' in page
    assert client.get(f"/tournaments/{tournament}/standings.html").status_code == 200


def test_pages_stay_out_of_the_json_contract(client: FlaskClient) -> None:
    spec = render_spec(client.application)
    for path in ("/:", "/view:", "/replay:"):
        assert f"{path}\n" not in spec
    assert "  /tables/{table_id}/state:" in spec
