"""``GET /tables/{id}/view``: seats, totals, whose turn, the current trick and each game's
own state, drawn with card faces; a page for a phone and for paper, with no external
asset, that follows the table while the match runs."""

from __future__ import annotations

import re

import pytest
from flask import Flask, render_template_string
from flask.testing import FlaskClient

from domain.events import TableOpened
from domain.games import bestia
from domain.match import MatchRules
from domain.table import ORGANISER, SeatSpec, Table
from service.web.pages.games import face, scene
from service.web.pages.scenes import seat_names
from service.web.pages.session import csrf_token
from tests.pages.tables import (
    KINDS,
    act,
    backs,
    embedded,
    finish,
    open_table,
    page_cards,
    play,
    playing,
    state,
    table_reaching,
)


def view_page(client: FlaskClient, table_id: str, query: str = "") -> str:
    """The page as a fresh browser sees it after following the link (a ``?token=`` link
    is answered 303 to the clean address, its token stored in a cookie)."""
    browser = client.application.test_client()  # its own cookie jar, as a phone has
    response = browser.get(f"/tables/{table_id}/view{query}", follow_redirects=True)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert response.request.query_string == b""
    assert [r.status_code for r in response.history] == ([303] if query else [])
    return response.get_data(as_text=True)


def seat_panel(page: str, seat: int) -> str:
    found = re.search(
        rf'<section class="panel seat[^"]*" data-seat="{seat}">(.*?)</section>', page, re.S
    )
    assert found, f"no panel for seat {seat}"
    return found.group(1)


def centre(page: str) -> str:
    found = re.search(r'<section class="panel centre">(.*?)</section>', page, re.S)
    assert found
    return found.group(1)


@pytest.mark.parametrize("kind", KINDS)
def test_every_game_has_a_page_from_opening_to_the_end(client: FlaskClient, kind: str) -> None:
    assert "nothing dealt yet" in view_page(client, open_table(client, kind).id).lower()
    table, _ = table_reaching(client, kind, playing)
    assert "Live: this page follows the table" in view_page(client, table.id)
    finish(client, table)
    page = view_page(client, table.id)
    assert "The match is over." in page
    assert embedded(page)["live"]["finished"] is True
    assert "place 1" in page


def test_a_bottle_imp_table_shows_seats_totals_turn_trick_and_bottle(client: FlaskClient) -> None:
    table = open_table(client)
    now = play(client, table, lambda s: s["phase"] == "playing" and len(s["trick"]["cards"]) == 2)
    page = view_page(client, table.id)
    names = ["Ann", "Bo", "Cy", "Di"]
    for seat, name in enumerate(names):
        panel = seat_panel(page, seat)
        assert f'<span class="name">{name}</span>' in panel
        assert f'<span class="total" title="total">{now["totals"][seat]}</span>' in panel
    (turn,) = now["to_act"]
    assert 'class="panel seat to-act"' in page
    assert '<span class="tag to-act">to act</span>' in seat_panel(page, turn)
    assert f"to act: <strong>{names[turn]}</strong>" in page
    middle = centre(page)
    trick = [str(c["card"]) for c in now["trick"]["cards"]]
    assert page_cards(middle)[: len(trick)] == trick
    for played in now["trick"]["cards"]:
        assert f'<span class="by">{names[played["seat"]]}</span>' in middle
    assert f'data-card="{now["bottle"]["price"]}"' in middle
    assert f"price {now['bottle']['price']}" in middle


def test_bottle_imp_cards_carry_their_suit_colour_and_coins(client: FlaskClient) -> None:
    table = open_table(client)
    play(client, table, lambda s: s["phase"] == "playing")
    page = view_page(client, table.id, "?token=" + str(table.tokens[0]))
    hand = seat_panel(page, 0)
    cards = re.findall(r'<span class="([^"]*)" data-card="(\d+)" title="([^"]*)">', hand)
    assert cards
    colours = {1: "yellow", 2: "yellow", 4: "blue", 6: "blue", 11: "red", 14: "red", 17: "blue"}
    for classes, card, title in cards:
        suit = next(s for s in ("yellow", "blue", "red") if f"imp-{s}" in classes)
        assert suit in title
        if int(card) in colours:
            assert suit == colours[int(card)]


def test_a_card_face_shows_its_number_suit_and_coins(app: Flask) -> None:
    with app.test_request_context():
        drawn = render_template_string(
            '{% import "pages/_cards.html" as c %}{{ c.card(f(17)) }}{{ c.card(f(19)) }}',
            f=lambda card: face("bottle-imp", card),
        )
    assert '<span class="card imp imp-blue" data-card="17" title="17 (blue, 3 coins)">' in drawn
    assert '<b class="corner">B</b><span class="big">17</span><small>●●●</small>' in drawn
    assert 'data-card="19" title="19, the start card under the bottle"' in drawn


def test_french_and_decktet_faces_use_their_suit_symbols() -> None:
    heart, club = face("bestia", "10H"), face("bestia", "JC")
    assert (heart.big, heart.pips, "red" in heart.classes) == ("10", (("suit", "♥"),), True)
    assert ("black" in club.classes, club.small, "pánfilo" in club.title) == (True, "★", True)
    author = face("oh-quay", "author")
    assert author.pips == (("s-moons", "☾"), ("s-knots", "✣"))
    assert (author.corner, author.small) == ("2", "author")
    assert face("oh-quay", "huntress").corner == "C"
    assert face("oh-quay", "ace-wyrms").pips == (("s-wyrms", "∿"),)
    symbols = {
        pip for card in ("sea", "end", "bard", "windfall") for pip in face("oh-quay", card).pips
    }
    assert {s for _, s in symbols} == {"≈", "❦", "☀", "✣"}


def test_an_oh_quay_table_shows_quays_canals_and_score_piles(client: FlaskClient) -> None:
    table, now = table_reaching(
        client, "oh-quay", lambda s: s.get("launch") is not None and len(s["launch"]["cards"]) > 1
    )
    page = view_page(client, table.id, "?token=" + str(table.tokens[0]))
    for seat in (0, 1):
        panel = seat_panel(page, seat)
        assert "Quay (top first)" in panel
        assert "Canal (front first)" in panel
        assert "Score pile" in panel
    mine = page_cards(seat_panel(page, 0))
    assert set(now["canals"][0]) <= set(mine)
    seen = state(client, table, 0)
    assert seen["quays"][1]["top"] in page_cards(seat_panel(page, 1))  # the opponent's top
    assert seen["quays"][0]["top"] is None
    raft = centre(page)
    assert page_cards(raft) == now["launch"]["cards"]
    assert 'class="s-' in raft
    assert f"Turn</dt><dd>{now['turn']} of at most" in page


def test_a_bestia_view_is_drawn_with_trump_pot_and_balances(app: Flask) -> None:
    """Through the engine directly, so this holds before Bestia tables open in the API."""
    seats = tuple(SeatSpec(name=n) for n in ("Ann", "Bo", "Cy"))
    rules = Table("bestia", "standard", seats, MatchRules(None, 6), "page-test")
    state_ = bestia.initial_state(rules)
    while not (state_.phase == "playing" and len(state_.trick) == 1):
        (seat, *_) = bestia.to_act(state_)
        for event in bestia.decide(state_, bestia.legal_actions(state_, seat)[0]):
            state_ = bestia.evolve(state_, event)
    names = seat_names(TableOpened.of(rules))
    everything = bestia.view(state_, ORGANISER)
    for viewer in (None, 0, 1, 2):
        shown = bestia.view(state_, viewer)
        with app.test_request_context():
            page = render_template_string(
                '{% import "pages/_cards.html" as c %}{{ c.scene(sc, face) }}',
                sc=scene(shown, names).json(),
                face=lambda card: face("bestia", card),
            )
        drawn = set(page_cards(page))
        for seat, hand in enumerate(everything["hands"]):
            if viewer == seat:
                assert set(hand) <= drawn
            else:
                assert not set(hand) & drawn - {shown["muestra"]} - {
                    c["card"] for c in shown["trick"]["cards"]
                }
        hidden = sum(
            s for h, s in zip(shown["hands"], shown["hand_sizes"], strict=True) if h is None
        )
        assert backs(page) == hidden
        trump = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}[shown["trump"]]
        assert (
            f"<dt>Trump</dt><dd>{' '.join(['♣♦♥♠'['CDHS'.index(shown['trump'])], trump])}</dd>"
            in page
        )
        assert f"<dt>Pot</dt><dd>{shown['pot']} chips</dd>" in page
        assert f'data-card="{shown["muestra"]}"' in page
        for seat, name in enumerate(names):
            assert f'<span class="name">{name}</span>' in page
            assert f'<span class="total" title="total">{shown["balances"][seat]}</span>' in page


def test_a_seat_page_says_whose_view_it_is(client: FlaskClient) -> None:
    table = open_table(client)
    assert "You see what lies face up" in view_page(client, table.id)
    assert "You are Cy:" in view_page(client, table.id, f"?token={table.tokens[2]}")
    assert "Organiser: you see every card" in view_page(
        client, table.id, "?token=test-organiser-token"
    )


def test_the_page_is_for_phones_and_paper_with_nothing_external(client: FlaskClient) -> None:
    table = open_table(client)
    play(client, table, playing)
    page = view_page(client, table.id)
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "@media print" in page
    assert "@media (max-width" in page
    # nothing from elsewhere: a <link> only to the site's own favicon
    external = r'<(img|iframe)\b|<link\b(?![^>]*href="/)|\bsrc=|url\(|@import|https?://'
    assert not re.search(external, page)


def test_the_page_polls_its_news_endpoint_while_the_match_runs(client: FlaskClient) -> None:
    table = open_table(client)
    play(client, table, playing)
    page = view_page(client, table.id, f"?token={table.tokens[1]}")
    live = embedded(page)["live"]
    assert live["news"] == f"/tables/{table.id}/view/news"
    assert live["act"] == f"/tables/{table.id}/view/act"
    assert live["csrf"] == csrf_token(str(table.tokens[1]))
    assert str(table.tokens[1]) not in page
    assert live["version"] == state(client, table)["version"]
    assert "Authorization" not in page
    assert '"after=" + config.version' in page
    act(client, table, state(client, table)["legal_actions"][0])
    assert embedded(view_page(client, table.id))["live"]["version"] > live["version"]


def test_deal_links_open_the_replays_of_scored_deals(client: FlaskClient) -> None:
    table = open_table(client, max_deals=2)
    play(client, table, lambda s: s["deal"] == 2)
    public = view_page(client, table.id)
    assert f'href="/tables/{table.id}/deals/1/replay"' in public
    assert "its replay opens once it is scored" in public
    organiser = view_page(client, table.id, "?token=test-organiser-token")
    assert f'href="/tables/{table.id}/deals/2/replay"' in organiser
    assert "?token=" not in organiser and "test-organiser-token" not in organiser


def test_an_unknown_table_is_a_404_page(client: FlaskClient) -> None:
    response = client.get(f"/tables/{'0' * 32}/view")
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert "not found" in response.get_data(as_text=True)
