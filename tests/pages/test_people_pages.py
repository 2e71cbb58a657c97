"""Pages speak to people (``docs/api.md``, "Pages for people"; issue 20, items 5 and 6),
through the Flask client: a player's screen names seats by their people and says "you",
counts from 1 and shows no version, id or code; the organiser who also plays sees only
their own hand on their seat; rulings are shown to every player; the wall, the crosstable,
players registered and found from the console, a bot-dealt table offering no deal sheet,
and a default match's length known without playing one."""

from __future__ import annotations

import html
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.games import SPECS, game
from service.storage.db import get_database
from service.web.pages.console_forms import DEFAULT_DEALS, default_deals
from service.web.pages.words import seats_in_words
from tests.factories import table_body
from tests.helpers import make_test_app, post_table
from tests.pages.consoles import log_in, post
from tests.pages.tables import act, browser_of, cards_in_view, page_cards, state
from tests.pages.test_play_browser import BEFORE_ANN, YELLOW, seats
from tests.pages.test_play_endpoints import post_move
from tests.service.tournament_play import enter, new_tournament, play_table, seat_round

SCRIPTS = re.compile(r"<(script|style)\b.*?</\1>", re.S)
TAGS = re.compile(r"<[^>]+>")


def visible(page: str) -> str:
    """What a person reads on the page: its text, without markup, scripts or styles."""
    return " ".join(html.unescape(TAGS.sub(" ", SCRIPTS.sub(" ", page))).split())


def developer_words(text: str, ids: list[str]) -> list[str]:
    """What a player's screen must not say: versions, ids, 0-based seats, raw codes."""
    found = re.findall(r"\bversion \d+|\bseat \d+|\b[a-z]+_[a-z_]+\b", text)
    return found + [i for i in ids if i[:6] in text]


def ann_to_follow_yellow(client: FlaskClient) -> tuple[object, dict]:
    """Ann, Bo and Cy at a recorded deal: Bo led yellow and Ann, to play, also holds blues
    and reds (tests/pages/test_play_browser.py)."""
    table = post_table(client, table_body(seats=seats(3, 3)))
    for action in BEFORE_ANN:
        act(client, table, action)
    return table, state(client, table, 0)


def test_a_players_screen_names_people_says_you_and_shows_no_developer_words(
    client: FlaskClient,
) -> None:
    table, ann = ann_to_follow_yellow(client)
    for seat, name in enumerate(("Ann", "Bo", "Cy")):
        page = browser_of(client, table, seat).get(f"/tables/{table.id}/view")
        text = visible(page.get_data(as_text=True))
        assert f"You are {name}:" in text and f"{name} (you)" in text
        assert developer_words(text, [table.id]) == [], seat
    page = browser_of(client, table, 0).get(f"/tables/{table.id}/view").get_data(as_text=True)
    reasons = [html.unescape(r) for r in re.findall(r'data-reason="([^"]*)"', page)]
    assert reasons and all(r.startswith("You hold yellow cards") for r in reasons), reasons
    assert "● Your turn — Card Ledger" in page  # the title says it is Ann's turn

    wrong = next(c for c in ann["hands"][0] if c not in YELLOW)
    move = {"type": "play", "seat": 0, "card": wrong}
    refused = post_move(browser_of(client, table, 0), table, move, table.tokens[0], ann["version"])
    problem = refused.get_json()
    assert (refused.status_code, problem["code"]) == (422, "must_follow_suit")  # the API's code
    assert problem["detail"].startswith("You hold yellow cards and must follow yellow")
    api = client.post(f"/tables/{table.id}/actions", json=move, headers=table.seat(0))
    assert "seat 0 holds" in api.get_json()["detail"]  # the API keeps its 0-based seats


def test_the_engines_words_said_with_names() -> None:
    names = ["Ann", "Bo", "Cy"]
    said = "it is seat 1's turn, not seat 2's"
    assert seats_in_words(said, names, 2) == "It is Bo's turn, not yours"
    assert seats_in_words(said, names) == "It is Bo's turn, not Cy's"
    assert seats_in_words("seat 0 must get 12 cards", names) == "Ann must get 12 cards"
    assert seats_in_words("seat 2's pile A does not hold 7", names, 2) == (
        "Your pile A does not hold 7"
    )


def test_an_organiser_who_plays_sees_only_their_own_hand_on_their_seat(
    client: FlaskClient,
) -> None:
    table, _ = ann_to_follow_yellow(client)
    organiser = log_in(client.application.test_client())
    opened = organiser.get(f"/tables/{table.id}/view?token={table.tokens[1]}")
    assert opened.status_code == 303
    page = organiser.get(f"/tables/{table.id}/view").get_data(as_text=True)
    assert set(page_cards(page)) == cards_in_view(state(client, table, 1))  # Bo's, no more
    assert "You are Bo:" in visible(page) and 'id="as-organiser"' in page
    every = organiser.get(f"/tables/{table.id}/view?as=organiser").get_data(as_text=True)
    assert set(page_cards(every)) == cards_in_view(state(client, table))  # asked for: all
    assert "Organiser: you see every card" in visible(every)


def test_a_bestia_ruling_is_shown_on_every_players_page(client: FlaskClient) -> None:
    body = table_body(game="bestia", seats=[{"name": n} for n in ("Ann", "Bo", "Cy")],
                      target_score=None, max_deals=2)  # fmt: skip
    table = post_table(client, body)
    act(client, table, {"type": "deal"})
    ruling = {"type": "adjust", "seat": 0, "points": 1, "reason": "a card shown"}
    act(client, table, ruling)
    for seat in (0, 1, 2):
        shown = browser_of(client, table, seat).get(f"/tables/{table.id}/view")
        text = visible(shown.get_data(as_text=True))
        assert "Ruling Ann: 1 chip from the pot (a card shown)" in text, seat


# --- the console -----------------------------------------------------------------------------


def one_round_played(client: FlaskClient, **overrides: object) -> tuple[str, dict]:
    """Five people at tables of four, bots filling, two rounds; round 1 played."""
    tournament = new_tournament(client, name="Spring cup", rounds=2, table_size=4,
                                fill_with_bots="random", **overrides)  # fmt: skip
    enter(client, tournament, "Ann", "Bo", "Cy", "Di", "Ed")
    seat_round(client, tournament)
    seated = client.get(f"/tournaments/{tournament}/rounds/1").get_json()
    for table in seated["tables"]:
        play_table(client, table["id"], random.Random(table["id"]))
    return tournament, seated


def test_the_crosstable_says_who_met_whom_and_how_they_finished(client: FlaskClient) -> None:
    tournament, seated = one_round_played(client)
    page = client.get(f"/tournaments/{tournament}/standings.html").get_data(as_text=True)
    cross = page[page.index('id="crosstable"') :]
    entries = client.get(f"/tournaments/{tournament}").get_json()["entries"]
    names = {e["entry"]: e["name"] for e in entries}
    for table in seated["tables"]:
        people = [s for s in table["seats"] if s.get("entry") is not None]
        for seat in people:
            row = cross[cross.index(f'<tr data-entry="{seat["entry"]}">') :].split("</tr>")[0]
            cell = visible(row)
            assert f"Table {table['table']}: " in cell, cell
            assert re.search(r": \d(st|nd|rd|th), \d+(\.\d+)? points?", cell), cell
            for other in people:
                assert names[other["entry"]] in cell, cell
    assert "A bot takes no match points and pushes nobody down" in visible(page)


def test_the_wall_shows_the_round_and_the_standings_to_anyone(client: FlaskClient) -> None:
    tournament, seated = one_round_played(client)
    seat_round(client, tournament)
    second = client.get(f"/tournaments/{tournament}/rounds/2").get_json()
    anyone = client.application.test_client()
    page = anyone.get(f"/tournaments/{tournament}/wall")
    assert page.status_code == 200 and page.mimetype == "text/html"
    text = visible(page.get_data(as_text=True))
    assert "Spring cup" in text and "round 2 of 2, playing" in text
    assert "Standings" in text and "Ann" in text and "Ed" in text
    for table in second["tables"]:
        assert f"Table {table['table']}" in text
    ids = [tournament, *(t["id"] for t in seated["tables"] + second["tables"])]
    assert developer_words(text, ids) == []
    assert "signature" not in text.lower() and "Ed25519" not in text
    assert f"/tournaments/{tournament}/watch" in page.get_data(as_text=True)  # live


def test_the_console_counts_rounds_played_and_lists_results(client: FlaskClient) -> None:
    log_in(client)
    tournament, _ = one_round_played(client)
    index = visible(client.get("/console").get_data(as_text=True))
    assert "5 entries · 1 of 2 rounds played" in index
    page = client.get(f"/console/tournaments/{tournament}?round=1").get_data(as_text=True)
    places = re.findall(r'data-place="(\d)">(\d\w\w)</span>', page)
    assert places and all(int(n) >= 1 for n, _ in places)
    assert "random bot random bot" not in visible(page)


def test_the_console_names_a_lone_table_and_a_registered_seat_in_words(
    client: FlaskClient,
) -> None:
    """A registered player typed by name on the new-table form sits under that name (the
    table's pages said "Seat 1" for a seat of an id alone); a lone table is "The Bottle Imp
    table" on the console's home, not its id's first characters."""
    log_in(client)
    post(client, "/console/players", {"name": "Dee Dee Ramone"})
    (player,) = [p["id"] for p in client.get("/players?limit=100").get_json()["players"]]
    form = {"variant": "standard", "seat-0-kind": "player", "seat-0-who": "dee dee ramone",
            "seat-1-kind": "person", "seat-1-who": "Bo", "seat-2-kind": "bot:random"}  # fmt: skip
    opened = post(client, "/console/tables/new?game=bottle-imp", form)
    assert opened.status_code == 303, visible(opened.get_data(as_text=True))[:500]
    table = opened.headers["Location"].split("/console/tables/")[1].split("?")[0]
    seat = client.get(f"/tables/{table}").get_json()["seats"][0]
    assert (seat.get("player_id"), seat.get("name")) == (player, "Dee Dee Ramone")
    index = visible(client.get("/console").get_data(as_text=True))
    assert "The Bottle Imp table" in index
    page = visible(client.get(f"/console/tables/{table}").get_data(as_text=True))
    assert "Seat 1: Dee Dee Ramone registered player" in page
    for text in (index, page, visible(client.get(f"/tables/{table}/view").get_data(as_text=True))):
        assert developer_words(text, [table, player]) == []
        assert "Seat 1 " not in text.replace("Seat 1:", "")  # the seat is named


def test_players_are_registered_and_found_by_name_from_the_console(client: FlaskClient) -> None:
    log_in(client)
    done = post(client, "/console/players", {"name": "Dee Dee Ramone"})
    assert done.status_code == 303
    landed = client.get(done.headers["Location"]).get_data(as_text=True)
    assert "Dee Dee Ramone registered" in visible(landed)
    post(client, "/console/players", {"name": "Bo Diddley"})
    found = visible(client.get("/console/players?name=dee ").get_data(as_text=True))
    assert "Dee Dee Ramone" in found and "Bo Diddley" not in found
    nobody = client.get("/console/players?name=zzz").get_data(as_text=True)
    assert "Nobody registered is called anything like “zzz”" in visible(nobody)
    again = post(client, "/console/players", {"name": "DEE DEE RAMONE"})
    assert again.status_code == 422
    assert 'data-code="confusable_name"' in again.get_data(as_text=True)

    tournament = new_tournament(client, name="Punk night")
    entered = post(client, f"/console/tournaments/{tournament}/entries",
                   {"player_id": "dee dee ramone"})  # fmt: skip
    assert entered.status_code == 303
    (entry,) = client.get(f"/tournaments/{tournament}").get_json()["entries"]
    player = client.get("/players?limit=100").get_json()["players"]
    assert entry["player_id"] == next(p["id"] for p in player if p["name"] == "Dee Dee Ramone")


def test_a_refused_deal_is_said_with_names(client: FlaskClient) -> None:
    log_in(client)
    table = post_table(client, table_body(seats=seats(3, 3)))
    short = {"hands-0": "1 2 3", "hands-1": "", "hands-2": ""}
    page = post(client, f"/console/tables/{table.id}/deal", short)
    assert page.status_code == 422
    refused = r'<p class="refused"[^>]*data-code="invalid_deal">(.*?)</p>'
    said = re.search(refused, page.get_data(as_text=True))
    assert said and said[1].startswith("Ann") and "seat" not in said[1], said


@pytest.fixture
def queued_only(tmp_path: Path) -> Iterator[Flask]:
    """An app whose jobs go to a broker no worker reads: a bot dealer waits to deal."""
    database = f"sqlite:///{tmp_path / 'waiting.db'}"
    app = make_test_app(database, jobs="sqlite", broker_url=f"sqla+sqlite:///{tmp_path}/q.db")
    yield app
    get_database(app).engine.dispose()


def test_a_table_a_bot_deals_offers_no_deal_sheet(queued_only: Flask) -> None:
    client = log_in(queued_only.test_client())
    body = table_body(seats=[{"bot": "random"}, {"name": "Ann"}, {"name": "Bo"}],
                      rules={"first_dealer": 0})  # fmt: skip
    table = post_table(client, body)
    assert state(client, table)["status"] == "waiting_for_deal"
    console = client.get(f"/console/tables/{table.id}").get_data(as_text=True)
    assert "Record a physical deal" not in console
    sheet = client.get(f"/console/tables/{table.id}/deal").get_data(as_text=True)
    assert 'id="bot-deals"' in sheet and 'id="deal-form"' not in sheet
    people = post_table(client, table_body(seats=seats(3, 3)))
    theirs = client.get(f"/console/tables/{people.id}").get_data(as_text=True)
    assert "Record a physical deal" in theirs


def test_every_default_match_to_a_target_has_its_measured_length(client: FlaskClient) -> None:
    """The new-tournament form plays no match: a default match to a target reads its
    typical length from the committed figures, which cover every registered game."""
    for spec in SPECS.values():
        for variant in spec.variants:
            for players in spec.players[variant]:
                match = game(spec.id).default_match(players)
                if match.target_score is not None:
                    assert (spec.id, variant, players) in DEFAULT_DEALS
                assert default_deals(spec.id, variant, players), (spec.id, variant, players)
    log_in(client)
    form = visible(client.get("/console/tournaments/new?game=bottle-imp").get_data(as_text=True))
    assert "standard, 4 players: first to 200: about 9 deals" in form
