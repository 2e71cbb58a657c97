"""Playing from a table page, through the Flask client: a token link becomes an HttpOnly
cookie and a clean address; the page's news and act endpoints ride on that cookie (never
a bearer token), act only with the page's CSRF token and the version the page showed, and
answer refusals with the engine's words; the moves panel offers exactly the legal
actions, for the organiser every seat that is to act."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.games import SPECS
from service.web.pages.session import csrf_token
from tests.pages.consoles import session_of
from tests.pages.tables import (
    KINDS,
    ORGANISER,
    Table,
    act,
    browser_of,
    embedded,
    moves,
    open_page,
    open_table,
    play,
    state,
)

Json = dict[str, Any]
ACTION = re.compile(r"data-action='([^']*)'")


def page_actions(page: str) -> list[Json]:
    return [json.loads(html.unescape(a)) for a in ACTION.findall(page)]


def post_move(
    browser: FlaskClient, table: Table, action: Json, token: str | None, version: int,
    **headers: str,
) -> Any:  # fmt: skip
    sent = {"If-Match": f'"{version}"', **headers}
    if token is not None:
        sent["X-CSRF-Token"] = csrf_token(token)
    return browser.post(f"/tables/{table.id}/view/act", json=action, headers=sent)


def test_a_seat_link_becomes_a_cookie_scoped_to_its_table(client: FlaskClient) -> None:
    table = open_table(client)
    browser = client.application.test_client()
    response = browser.get(f"/tables/{table.id}/view?token={table.tokens[1]}&x=1")
    assert response.status_code == 303
    assert response.headers["Location"] == f"/tables/{table.id}/view?x=1"
    cookie = response.headers["Set-Cookie"]
    assert f"Path=/tables/{table.id};" in cookie or cookie.endswith(f"Path=/tables/{table.id}")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    page = browser.get(f"/tables/{table.id}/view").get_data(as_text=True)
    assert "You are Bo:" in page
    assert str(table.tokens[1]) not in page
    other = open_table(client)  # the cookie is not sent to another table's pages
    assert "You see what lies face up" in browser.get(f"/tables/{other.id}/view").get_data(
        as_text=True
    )


def test_the_organiser_link_is_a_site_wide_cookie(client: FlaskClient) -> None:
    table = open_table(client)
    browser = client.application.test_client()
    response = browser.get(f"/tables/{table.id}/view?token=test-organiser-token")
    assert response.status_code == 303
    assert "Path=/;" in response.headers["Set-Cookie"] or response.headers["Set-Cookie"].endswith(
        "Path=/"
    )
    other = open_table(client)
    page = browser.get(f"/tables/{other.id}/view").get_data(as_text=True)
    assert "Organiser: you see every card" in page


def test_news_answers_the_fragment_only_after_a_change(client: FlaskClient) -> None:
    table = open_table(client)
    browser = browser_of(client, table, 0)
    version = state(client, table)["version"]
    quiet = browser.get(f"/tables/{table.id}/view/news?after={version}")
    assert quiet.status_code == 200
    assert quiet.get_json() == {"version": version, "finished": False, "html": None}
    play(client, table, lambda s: s["phase"] == "preparing")
    news = browser.get(f"/tables/{table.id}/view/news?after={version}").get_json()
    assert news["version"] > version
    assert f'data-version="{news["version"]}"' in news["html"]
    hand = state(client, table, 0)["hands"][0]
    assert {str(c) for c in hand} <= set(re.findall(r'data-card="([^"]+)"', news["html"]))
    public = client.application.test_client().get(f"/tables/{table.id}/view/news?after=0")
    assert not {str(c) for c in hand} & set(
        re.findall(r'data-card="([^"]+)"', public.get_json()["html"])
    )
    assert browser.get(f"/tables/{table.id}/view/news?after=x").status_code == 400


def test_a_seat_acts_from_its_page_with_the_csrf_token_and_version(client: FlaskClient) -> None:
    table = open_table(client)
    browser = browser_of(client, table, 0)
    page = browser.get(f"/tables/{table.id}/view").get_data(as_text=True)
    assert page_actions(page) == [{"type": "deal"}]  # seat 0 deals first
    live = embedded(page)["live"]
    token = str(table.tokens[0])
    assert live["csrf"] == csrf_token(token)
    moved = post_move(browser, table, {"type": "deal"}, token, live["version"])
    assert moved.status_code == 201, moved.get_json()
    answer = moved.get_json()
    assert answer["version"] == state(client, table)["version"] > live["version"]
    assert 'id="table"' in answer["html"]
    again = post_move(browser, table, {"type": "deal"}, token, live["version"])  # a stale page
    assert again.status_code == 409
    assert again.get_json()["code"] == "version_conflict"


def test_a_move_from_a_page_the_table_moved_past_is_taken_while_still_offered(
    client: FlaskClient,
) -> None:
    """Bottle Imp seats prepare together: each page acts on the version it showed, and a
    move sent after another seat's (one request after the other here; raced for real in
    ``tests/integration/test_race_served.py``) is taken all the same, being still offered;
    the same page sending it again is refused, since it is offered no more."""
    table = open_table(client)
    act(client, table, {"type": "deal"})
    shown = state(client, table)["version"]
    sent = {}
    for seat in (1, 2):
        move = state(client, table, seat)["legal_actions"][0]
        answer = post_move(browser_of(client, table, seat), table, move, str(table.tokens[seat]),
                           shown)  # fmt: skip
        assert answer.status_code == 201, answer.get_json()
        sent[seat] = move
    assert state(client, table)["version"] > shown + 1  # both were recorded
    again = post_move(browser_of(client, table, 2), table, sent[2], str(table.tokens[2]), shown)
    assert again.status_code == 409, again.get_json()
    assert again.get_json()["code"] == "version_conflict"


def test_a_move_without_the_csrf_token_or_from_another_site_is_refused(
    client: FlaskClient,
) -> None:
    table = open_table(client)
    browser = browser_of(client, table, 0)
    version = state(client, table)["version"]
    for token, headers in [
        (None, {}),
        ("not-the-token", {}),
        (str(table.tokens[0]), {"Origin": "https://evil.example"}),
        (str(table.tokens[0]), {"Sec-Fetch-Site": "cross-site"}),
    ]:
        refused = post_move(browser, table, {"type": "deal"}, token, version, **headers)
        assert refused.status_code == 403, (token, headers)
        assert refused.get_json()["code"] == "csrf"
    assert state(client, table)["version"] == version
    nobody = client.application.test_client()
    refused = post_move(nobody, table, {"type": "deal"}, None, version)
    assert refused.status_code == 401


def test_the_json_api_does_not_ride_on_the_page_cookie(client: FlaskClient) -> None:
    table = open_table(client)
    play(client, table, lambda s: s["phase"] == "preparing")
    browser = browser_of(client, table, 0)
    move = state(client, table, 0)["legal_actions"][0]
    response = browser.post(f"/tables/{table.id}/actions", json=move)
    assert response.status_code == 401
    assert browser.get(f"/tables/{table.id}/state").get_json()["hands"] == [None] * 4


def test_a_refused_move_answers_the_engines_words(client: FlaskClient) -> None:
    table = open_table(client)
    now = play(client, table, lambda s: s["phase"] == "playing" and len(s["trick"]["cards"]) == 1)
    (seat,) = now["to_act"]
    legal = {a["card"] for a in now["legal_actions"]}
    wrong = next((c for c in now["hands"][seat] if c not in legal), None)
    browser = browser_of(client, table, seat)
    page = browser.get(f"/tables/{table.id}/view").get_data(as_text=True)
    assert {a["card"] for a in page_actions(page) if a["type"] == "play"} == legal
    if wrong is None:
        return  # the seat holds only the suit led: every card is legal
    assert re.search(rf'data-card="{wrong}"[^>]*data-reason="[^"]*follow', page), wrong
    move = {"type": "play", "seat": seat, "card": wrong}
    refused = post_move(browser, table, move, str(table.tokens[seat]), now["version"])
    assert refused.status_code == 422
    problem = refused.get_json()
    assert problem["code"] == "must_follow_suit"
    assert "follow" in problem["detail"]


def test_the_organiser_records_for_every_seat_to_act(client: FlaskClient) -> None:
    table = open_table(client)
    now = play(client, table, lambda s: s["phase"] == "preparing")
    response = open_page(client, table, "organiser")
    page = response.get_data(as_text=True)
    seats = {a["seat"] for a in page_actions(page) if "seat" in a}
    assert seats == set(now["to_act"]) == {0, 1, 2, 3}
    for name in ("Ann", "Bo", "Cy", "Di"):
        assert f"Record for {name}" in page
    picks = re.findall(r"data-pick='([^']*)'", page)
    assert {next(iter(json.loads(html.unescape(p)))) for p in picks} == {"left", "right"}
    discard = next(a for a in page_actions(page) if a["type"] == "discard" and a["seat"] == 2)
    organiser = browser_of(client, table, "organiser")
    session_id = session_of(organiser)  # the organiser's cookie: a session, not the token
    assert session_id != "test-organiser-token"
    moved = post_move(organiser, table, discard, session_id, now["version"])
    assert moved.status_code == 201, moved.get_json()
    assert state(client, table)["discards"][2] == discard["card"]
    response = client.get(f"/tables/{table.id}/events?after={now['version']}", headers=ORGANISER)
    assert response.get_json()["events"][0]["type"] == "CardDiscarded"


def test_the_public_page_offers_no_move(client: FlaskClient) -> None:
    table = open_table(client)
    play(client, table, lambda s: s["phase"] == "playing")
    page = open_page(client, table, None).get_data(as_text=True)
    assert page_actions(page) == []
    assert "data-pick=" not in page
    assert embedded(page)["live"]["csrf"] is None


def canonical(actions: list[Json]) -> set[str]:
    return {json.dumps(a, sort_keys=True) for a in actions}


def offered(page: str) -> tuple[set[str], set[str]]:
    """The moves a page offers: complete ones (``data-action``) and those its builders
    build (their ``data-actions``)."""
    built = [
        a
        for found in re.findall(r"data-actions='([^']*)'", page)
        for a in json.loads(html.unescape(found))
    ]
    return canonical(page_actions(page)), canonical(built)


@pytest.mark.parametrize("kind", KINDS)
def test_a_seat_page_offers_exactly_its_legal_actions(client: FlaskClient, kind: str) -> None:
    """Throughout a match, each seat's page offers every legal action of the seat and no
    other: as an element to tap, or as the result of one of its builders."""
    table = open_table(client, kind)
    for n, _ in enumerate([None, *moves(client, table, seed=kind)]):
        if n % 3 or n > 90:
            continue
        for seat, token in enumerate(table.tokens):
            if token is None:
                continue
            legal = canonical(state(client, table, seat)["legal_actions"])
            page = open_page(client, table, seat).get_data(as_text=True)
            tapped, built = offered(page)
            assert tapped | built == legal, (kind, seat, n)
            assert not tapped & built, "a move offered twice"


@pytest.mark.parametrize("kind", list(SPECS))  # each game's default variant, by its id
def test_the_table_page_links_its_games_rules(client: FlaskClient, kind: str) -> None:
    table = open_table(client, kind)
    page = open_page(client, table, 0).get_data(as_text=True)
    game = table.body["game"]
    assert f'href="/rules/{game}"' in page
    assert client.get(f"/rules/{game}").status_code == 200


@pytest.mark.parametrize("kind", ["bottle-imp", "bright-house", "bestia"])
def test_the_last_trick_is_shown_with_its_one_winning_card(client: FlaskClient, kind: str) -> None:
    table = open_table(client, kind)
    now = play(client, table, lambda s: s.get("tricks_played", 0) >= 1 and s["phase"] == "playing")
    events = client.get(f"/tables/{table.id}/events", headers=ORGANISER).get_json()["events"]
    trick = [e["data"] for e in events if e["type"] == "TrickCompleted"][-1]
    page = open_page(client, table, None).get_data(as_text=True)
    found = re.search(r"Last trick \((\d+)\): won by ([^<]*)</div>(.*?)</div>\s*</div>", page, re.S)
    assert found, "no last trick on the page"
    assert int(found.group(1)) == trick["trick"] == now["tricks_played"]
    shown = re.findall(r'data-card="([^"]+)"', found.group(3))
    assert shown == [str(c) for c in trick["cards"]]
    (winning,) = re.findall(r'class="[^"]*winner[^"]*" data-card="([^"]+)"', found.group(3))
    seat = trick["seats"][[str(c) for c in trick["cards"]].index(winning)]
    assert seat == trick["winner"]
