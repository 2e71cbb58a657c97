"""A person's own link as a browser uses it, through the Flask client (``docs/api.md``,
"Personal links (tournaments)" and "More pages"): ``/tournaments/{id}/me?token=…``
becomes a cookie and a clean address, then opens their seat, or says in words where and
when they play next; the seat page plays on that cookie; the console's slips show the
same links however often they are printed, and a person's new link (asked first) stops
their old one alone; a withdrawal is taken back."""

from __future__ import annotations

import html
import json
import random
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.web.pages.session import ENTRY_COOKIE, csrf_token
from tests.pages.consoles import log_in, post
from tests.service.test_tables_api import bearer
from tests.service.tournament_play import (
    ORGANISER,
    created,
    enter,
    new_tournament,
    play_table,
    seat_round,
)

ACTION = re.compile(r"data-action='([^']*)'")


def text(response: Any) -> str:
    return html.unescape(response.get_data(as_text=True))


def phone(client: FlaskClient, tournament: str, token: str) -> FlaskClient:
    """A browser of its own that opened the person's link once."""
    browser = client.application.test_client()
    opened = browser.get(f"/tournaments/{tournament}/me?token={token}")
    assert opened.status_code == 303, text(opened)[:500]
    assert opened.headers["Location"] == f"/tournaments/{tournament}/me"
    cookie = opened.headers["Set-Cookie"]
    assert cookie.startswith(f"{ENTRY_COOKIE}_{tournament}={token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/;" in cookie
    return browser


def me_page(browser: FlaskClient, tournament: str) -> Any:
    return browser.get(f"/tournaments/{tournament}/me", headers={"Accept": "text/html"})


@pytest.fixture
def club(client: FlaskClient) -> tuple[str, dict[str, str]]:
    tournament = new_tournament(client, rounds=2, seed="pages")
    entered = enter(client, tournament, "Ann", "Bo", "Cy", "Dee", "Eve")
    return tournament, {e["name"]: e["token"] for e in entered}


def test_the_link_says_when_the_first_round_begins(
    client: FlaskClient, club: tuple[str, dict[str, str]]
) -> None:
    tournament, tokens = club
    browser = phone(client, tournament, tokens["Ann"])
    page = me_page(browser, tournament)
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert "Round 1 has not begun yet" in text(page)
    assert tokens["Ann"] not in text(page)  # the token never rides in the page
    assert f"/tournaments/{tournament}/watch" in text(page)
    shown = browser.get(f"/tournaments/{tournament}/me", headers={"Accept": "application/json"})
    assert created(shown, 200)["name"] == "Ann"  # the cookie answers the page's own check


def test_the_link_opens_the_seat_and_plays_from_it(
    client: FlaskClient, club: tuple[str, dict[str, str]]
) -> None:
    tournament, tokens = club
    seated = seat_round(client, tournament)
    table = seated["tables"][0]
    dealer = created(client.get(f"/tables/{table['id']}/state", headers=ORGANISER), 200)
    name = next(s["name"] for s in table["seats"] if s["seat"] == dealer["to_act"][0])
    browser = phone(client, tournament, tokens[name])
    opened = me_page(browser, tournament)
    assert opened.status_code == 303
    assert opened.headers["Location"] == f"/tables/{table['id']}/view"
    page = text(browser.get(opened.headers["Location"]))
    assert f"You are {name}:" in page  # the seat's own view
    actions = [json.loads(a) for a in ACTION.findall(page)]
    assert actions == [{"type": "deal"}]
    version = int(re.findall(r'data-version="(\d+)"', page)[0])
    moved = browser.post(
        f"/tables/{table['id']}/view/act",
        json={"type": "deal"},
        headers={"If-Match": f'"{version}"', "X-CSRF-Token": csrf_token(tokens[name])},
    )
    assert moved.status_code == 201, moved.get_json()
    assert created(client.get(f"/tables/{table['id']}"), 200)["status"] == "in_deal"


def test_a_bye_and_a_finished_table_are_said_in_words(client: FlaskClient) -> None:
    tournament = new_tournament(client, rounds=2, seed="two tables")
    names = ("Ann", "Bo", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal", "Ida")
    tokens = {e["name"]: e["token"] for e in enter(client, tournament, *names)}
    seated = seat_round(client, tournament)  # two tables of four, and a bye
    (bye,) = seated["byes"]
    assert "a bye" in text(me_page(phone(client, tournament, tokens[bye["name"]]), tournament))
    table = seated["tables"][0]
    play_table(client, table["id"], random.Random(11))
    player = table["seats"][0]["name"]
    browser = phone(client, tournament, tokens[player])
    page = text(me_page(browser, tournament))
    assert "Your table of round 1 has finished" in page
    seat_page = text(browser.get(f"/tables/{table['id']}/view"))
    assert f'href="/tournaments/{tournament}/me" id="next-table"' in seat_page


def test_the_end_and_a_withdrawal_are_said_in_words(client: FlaskClient) -> None:
    tournament = new_tournament(client, rounds=1, seed="the end")
    tokens = {e["name"]: e["token"] for e in enter(client, tournament, "Ann", "Bo", "Cy", "Dee")}
    (table,) = seat_round(client, tournament)["tables"]
    play_table(client, table["id"], random.Random(12))
    page = text(me_page(phone(client, tournament, tokens["Ann"]), tournament))
    assert re.search(r"you finished \d(st|nd|rd|th) of 4", page), page
    other = new_tournament(client, seed="gone")
    (gone,) = enter(client, other, "Zed")
    created(client.delete(f"/tournaments/{other}/entries/1", headers=ORGANISER), 200)
    assert "You have withdrawn" in text(me_page(phone(client, other, gone["token"]), other))


def test_a_browser_without_the_link_is_told_how_to_open_it(
    client: FlaskClient, club: tuple[str, dict[str, str]]
) -> None:
    tournament, _ = club
    page = me_page(client, tournament)
    assert page.status_code == 401 and page.mimetype == "text/html"
    assert "personal link" in text(page)
    bad = client.get(f"/tournaments/{tournament}/me?token=not-a-token",
                     headers={"Accept": "text/html"})  # fmt: skip
    assert bad.status_code == 401 and "Set-Cookie" not in bad.headers


def test_slips_printed_again_show_the_same_links(
    client: FlaskClient, club: tuple[str, dict[str, str]]
) -> None:
    tournament, tokens = club
    seated = seat_round(client, tournament)
    console = log_in(client)
    links = re.compile(r'<div class="link">([^<]+)</div>')
    first = console.get(f"/console/tournaments/{tournament}/rounds/1/slips")
    assert first.status_code == 200
    printed = links.findall(text(first))
    people = sum(1 for t in seated["tables"] for s in t["seats"] if s["entry"] is not None)
    assert len(printed) == people == 4
    again = post(console, f"/console/tournaments/{tournament}/rounds/1/slips")
    assert links.findall(text(again)) == printed  # the form of earlier pages: the same links
    assert links.findall(text(console.get(f"/console/tournaments/{tournament}/rounds/1/slips"))) \
        == printed  # fmt: skip
    for link in printed:
        token = link.split("?token=")[1]
        assert token in tokens.values()  # the links the entries were given
        where = client.get(f"/tournaments/{tournament}/me", headers=bearer(token))
        assert created(where, 200)["status"] == "playing"


def test_a_new_link_is_asked_for_and_stops_only_the_old_one(
    client: FlaskClient, club: tuple[str, dict[str, str]]
) -> None:
    tournament, tokens = club
    console = log_in(client)
    path = f"/console/tournaments/{tournament}/entries/2/token"
    unsure = post(console, path)
    assert unsure.status_code == 422 and "stop the old link" in text(unsure)
    browser = phone(client, tournament, tokens["Bo"])
    shown = post(console, path, {"sure": "yes"})
    assert shown.status_code == 200
    found = re.search(rf"/tournaments/{tournament}/me\?token=([\w-]+)", text(shown))
    assert found and found.group(1) != tokens["Bo"]
    assert me_page(browser, tournament).status_code == 401  # the old link's phone: out
    assert me_page(phone(client, tournament, found.group(1)), tournament).status_code == 200
    for name in ("Ann", "Cy", "Dee", "Eve"):
        assert me_page(phone(client, tournament, tokens[name]), tournament).status_code == 200


def test_a_withdrawal_is_taken_back_from_the_console(
    client: FlaskClient, club: tuple[str, dict[str, str]]
) -> None:
    tournament, _ = club
    console = log_in(client)
    withdraw = f"/console/tournaments/{tournament}/entries/3/withdraw"
    assert post(console, withdraw, {"sure": "yes"}).status_code == 303
    page = text(console.get(f"/console/tournaments/{tournament}"))
    assert f"/console/tournaments/{tournament}/entries/3/return" in page
    back = post(console, f"/console/tournaments/{tournament}/entries/3/return")
    assert back.status_code == 303
    entries = created(client.get(f"/tournaments/{tournament}"), 200)["entries"]
    assert [e["withdrawn"] for e in entries] == [False] * 5
    again = post(console, f"/console/tournaments/{tournament}/entries/3/return")
    assert again.status_code == 409 and "entry_not_withdrawn" in text(again)
