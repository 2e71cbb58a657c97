"""Pages never show what the viewer may not see (``docs/api.md``, Pages; ``docs/rules/common.md``,
Hidden information): the same views as the API.

What a viewer may not see is worked out from the API, not from the page code: every
card of the organiser's ``GET /state`` that the viewer's own ``GET /state`` does not
show. Throughout whole matches of every game, for the public and every seat, none of
those cards is in the table page: no ``data-card`` attribute, no id in the embedded
JSON (Bottle Imp cards are numbers, so only card attributes and JSON are searched for
them; the Decktet's and the French deck's ids are searched for anywhere in the text).
A hidden card is drawn face down, without its id.
"""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from service.web.pages.session import csrf_token
from tests.pages.tables import (
    KINDS,
    Table,
    backs,
    cards_in_view,
    embedded,
    finish,
    hidden_in_view,
    last_trick_cards,
    moves,
    open_page,
    open_table,
    page_cards,
    play,
    state,
)

STYLE = re.compile(r"<style>.*?</style>", re.S)


def viewers(table: Table) -> list[int | None]:
    return [None, *(seat for seat, token in enumerate(table.tokens) if token)]


def table_page(client: FlaskClient, table: Table, viewer: int | str | None) -> str:
    response = open_page(client, table, viewer)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    return response.get_data(as_text=True)


def assert_shows_only_its_view(client: FlaskClient, table: Table, viewer: int | None) -> None:
    everything = state(client, table)
    seen = state(client, table, viewer)
    played = last_trick_cards(client, table, viewer)  # face up in the last trick
    shown = cards_in_view(seen) | played
    hidden = cards_in_view(everything) - shown
    page = table_page(client, table, viewer)
    who = "the public" if viewer is None else f"seat {viewer}"
    drawn = set(page_cards(page))
    assert not drawn & hidden, f"{who} is shown {drawn & hidden} at version {seen['version']}"
    assert drawn <= shown, f"{who} is shown cards its view lacks"
    assert backs(page) == hidden_in_view(seen), f"{who}: one back per hidden card"
    live = embedded(page)["live"]
    assert set(live) == {"version", "finished", "news", "act", "csrf", "interval"}
    token = table.token(viewer)
    assert live["csrf"] == (csrf_token(token) if token else None)
    assert token is None or token not in page, f"{who}'s token is in its page"
    if everything["game"] != "bottle-imp":  # names such as "author" or "10H" are unambiguous
        text = STYLE.sub("", page)
        for card in hidden:
            found = re.search(rf"(?<![\w-]){re.escape(card)}(?![\w-])", text)
            assert found is None, f"{who} finds hidden {card!r} in the page at {found.start()}"


@pytest.mark.parametrize("kind", KINDS)
def test_no_page_shows_a_card_its_viewer_may_not_see(client: FlaskClient, kind: str) -> None:
    table = open_table(client, kind)
    every = 3 if kind == "oh-quay" else 1  # Oh Quay games are long: every third version
    for n, _ in enumerate(moves(client, table, seed=kind)):
        if n % every == 0:
            for viewer in viewers(table):
                assert_shows_only_its_view(client, table, viewer)


def test_a_seat_sees_its_own_hand_and_backs_for_the_others(client: FlaskClient) -> None:
    table = open_table(client)
    now = play(client, table, lambda s: s["phase"] == "playing")
    for seat in range(4):
        page = table_page(client, table, seat)
        drawn = page_cards(page)
        assert {str(c) for c in now["hands"][seat]} <= set(drawn)
        passed = {str(c) for c in now["passes"][seat]}  # now in its neighbours' hands
        for other in set(range(4)) - {seat}:
            assert not ({str(c) for c in now["hands"][other]} - passed) & set(drawn)
        others = sum(len(now["hands"][o]) for o in range(4) if o != seat)
        assert backs(page) == others + len(now["devil_trick"])


def test_the_organiser_sees_every_hand(client: FlaskClient) -> None:
    table = open_table(client)
    now = play(client, table, lambda s: s["phase"] == "playing")
    page = table_page(client, table, "organiser")
    assert {str(c) for hand in now["hands"] for c in hand} <= set(page_cards(page))
    assert backs(page) == 0


def test_the_public_sees_no_hand_until_the_deal_is_scored(client: FlaskClient) -> None:
    table = open_table(client)
    now = play(client, table, lambda s: s["phase"] == "playing")
    page = table_page(client, table, None)
    assert not {str(c) for hand in now["hands"] for c in hand} & set(page_cards(page))
    finish(client, table)
    page = table_page(client, table, None)
    assert backs(page) == 0  # a scored deal is public: the devil's trick lies open
    assert len(set(page_cards(page))) > 4


@pytest.mark.parametrize("token", ["not-a-token", "x" * 40])
def test_an_unknown_token_gets_a_401_page(client: FlaskClient, token: str) -> None:
    table = open_table(client)
    for url in (f"/tables/{table.id}/view", f"/tables/{table.id}/deals/1/replay"):
        response = client.get(f"{url}?token={token}")
        assert "Set-Cookie" not in response.headers
        assert response.status_code == 401
        assert response.mimetype == "text/html"
        assert "unauthorized" in response.get_data(as_text=True)


def test_a_seat_token_of_another_table_gets_a_401_page(client: FlaskClient) -> None:
    table, other = open_table(client), open_table(client)
    response = client.get(f"/tables/{table.id}/view?token={other.tokens[0]}")
    assert response.status_code == 401


def test_a_live_deal_replay_is_refused_to_all_but_the_organiser(client: FlaskClient) -> None:
    table = open_table(client)
    play(client, table, lambda s: s["phase"] == "playing")
    for viewer in (None, 0, 1):
        response = open_page(client, table, viewer, "/deals/1/replay")
        assert response.status_code == 403, viewer
        assert not page_cards(response.get_data(as_text=True))
    response = open_page(client, table, "organiser", "/deals/1/replay")
    assert response.status_code == 200


def test_the_replay_of_a_scored_deal_holds_only_that_deal(client: FlaskClient) -> None:
    """Deal 1's replay opens to everyone once scored, while deal 2 is still played: its
    steps end with deal 1, so deal 2's hidden hands cannot be in it."""
    table = open_table(client, max_deals=2)
    now = play(client, table, lambda s: s["deal"] == 2 and s["phase"] == "playing")
    response = client.get(f"/tables/{table.id}/deals/1/replay")
    assert response.status_code == 200
    steps = embedded(response.get_data(as_text=True))["steps"]
    history = client.get(f"/tables/{table.id}/deals/1").get_json()
    assert [s["v"] for s in steps] == [e["version"] for e in history["events"]]
    assert steps[-1]["v"] < now["version"]
    assert steps[-1]["type"] == "DealScored"
    assert client.get(f"/tables/{table.id}/deals/2/replay").status_code == 403
    page = table_page(client, table, None)
    assert f"/tables/{table.id}/deals/1/replay" in page
    assert f"/tables/{table.id}/deals/2/replay" not in page
