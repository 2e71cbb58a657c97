"""The words the page modules produce, in the viewer's language: a rule's refusal worded
from its code (never the engine's English sentence on a Spanish page), plural forms by
each language's rule, and a problem's fixed ``detail`` by ``Accept-Language`` with its
code unchanged."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_babel import force_locale, gettext

from service.web.pages import refusals
from service.web.pages.console_forms import DefaultMatch
from service.web.pages.words import seats_in_words
from tests.helpers import assert_problem
from tests.pages.tables import ORGANISER, browser_of, open_page, table_reaching
from tests.pages.test_play_endpoints import post_move

Json = dict[str, Any]
NAMES = ["Ann", "Bo", "Cy", "Di"]


def _a_card_refused(s: Json) -> bool:
    """A seat to act holds a card it may not play now (it must follow the suit led)."""
    if s["status"] != "in_deal" or s["phase"] != "playing" or len(s["trick"]["cards"]) != 1:
        return False
    (seat,) = s["to_act"]
    legal = {a["card"] for a in s["legal_actions"]}
    return any(c not in legal for c in s["hands"][seat])


def _refused_card(s: Json) -> tuple[int, Any]:
    (seat,) = s["to_act"]
    legal = {a["card"] for a in s["legal_actions"]}
    return seat, next(c for c in s["hands"][seat] if c not in legal)


def _reason(page: str, card: Any) -> str:
    found = re.search(rf'data-card="{card}"[^>]*data-reason="([^"]*)"', page)
    assert found, card
    return html.unescape(found[1])


def _in(app: Flask, language: str, message: str, **values: Any) -> str:
    with app.test_request_context(), force_locale(language):
        return gettext(message, **values)


def test_a_refusal_on_a_spanish_page_is_worded_from_its_code(client: FlaskClient) -> None:
    table, now = table_reaching(client, "bottle-imp", _a_card_refused)
    seat, card = _refused_card(now)
    app = client.application
    english = open_page(client, table, seat).get_data(as_text=True)
    engine_said = _reason(english, card)
    assert engine_said.startswith("You hold") and "must follow" in engine_said

    mine = browser_of(client, table, seat)
    spanish = mine.get(f"/tables/{table.id}/view?lang=es").get_data(as_text=True)
    yours = _in(app, "es", "You hold a card of the suit led and must follow suit")
    assert '<html lang="es"' in spanish
    assert _reason(spanish, card) == yours != engine_said
    assert yours != "You hold a card of the suit led and must follow suit"  # translated

    organiser = browser_of(client, table, "organiser")
    page = organiser.get(f"/tables/{table.id}/view?lang=es").get_data(as_text=True)
    theirs = _in(app, "es", "%(name)s holds a card of the suit led and must follow suit")
    assert _reason(page, card) == theirs % {"name": NAMES[seat]}
    assert NAMES[seat] in _reason(page, card)

    move = {"type": "play", "seat": seat, "card": card}
    refused = post_move(mine, table, move, str(table.tokens[seat]), now["version"])
    problem = assert_problem(refused, 422, "must_follow_suit")
    assert problem["detail"] == yours


def test_an_english_page_keeps_the_engines_sentence_with_names(app: Flask) -> None:
    message = "seat 2 holds red cards and must follow red; 7 is blue"
    with app.test_request_context(headers={"Accept-Language": "en"}):
        said = refusals.worded("must_follow_suit", message, NAMES, you=2)
        assert (
            said
            == seats_in_words(message, NAMES, 2)
            == ("You hold red cards and must follow red; 7 is blue")
        )
    with app.test_request_context(headers={"Accept-Language": "fi"}):
        about_cy = refusals.worded("must_follow_suit", message, NAMES, you=0)
        assert "Cy" in about_cy and "red" not in about_cy
        turn = refusals.worded("not_your_turn", "it is seat 0's turn to play, not 3's", NAMES)
        assert "Di" in turn and "Ann" not in turn
        code_only = refusals.worded("a_code_no_page_words", "seat 1 did something", NAMES)
        assert "a_code_no_page_words" in code_only


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("seat 1 must get 5 cards", {"Bo", "5"}),
        ("seat 0's pile B must get 9 cards", {"Ann", "B", "9"}),
        ("seat 1's quay must hold 9 cards", {"Bo", "9"}),
        ("the devil's trick must get 3 cards", {"3"}),
        ("card 10H is dealt twice", {"10H"}),
        ("ace-moons is dealt twice", {"ace-moons"}),
        ("the muestra KS must be a card of the dealer's (seat 2) hand", {"KS", "Cy"}),
    ],
)
def test_a_recorded_deals_refusal_keeps_the_facts_to_mend_it(
    app: Flask, message: str, facts: set[str]
) -> None:
    for language in ("es", "fi", "fr"):
        with app.test_request_context(f"/?lang={language}"):
            said = refusals.worded("invalid_deal", message, NAMES)
            generic = str(refusals.PLAIN["invalid_deal"])
        assert said != generic and said != message, (language, said)
        assert all(fact in said for fact in facts), (language, said)


def test_every_refusal_code_the_engines_raise_has_page_words() -> None:
    raised: set[str] = set()
    for path in Path("domain").rglob("*.py"):
        raised |= set(
            re.findall(r'(?:RuleViolation|NameRefused)\(\s*"([a-z_]+)"', path.read_text())
        )
    worded = set(refusals.ABOUT_A_SEAT) | set(refusals.PLAIN)
    assert raised - worded == set()


def _length(app: Flask, language: str, deals: int) -> str:
    """A default match of ``deals`` deals, as the console's form says it."""
    with app.test_request_context(f"/?lang={language}"):
        return DefaultMatch("standard", 2, None, deals, None).text


def test_counts_take_each_languages_plural_form(app: Flask) -> None:
    def form(language: str, n: int) -> str:
        return _length(app, language, n).replace(str(n), "N", 1)

    assert form("en", 1) == "N deal" and form("en", 0) == form("en", 2) == "N deals"
    for language in ("es", "fi"):  # only 1 takes the singular
        assert form(language, 0) == form(language, 2) != form(language, 1), language
    assert form("fr", 0) == form("fr", 1) != form("fr", 2)  # French: 0 takes the singular too
    assert len({form(language, 2) for language in ("en", "es", "fi", "fr")}) == 4


def test_a_problem_detail_follows_accept_language_and_keeps_its_code(
    client: FlaskClient,
) -> None:
    french_client = {**ORGANISER, "Accept-Language": "fr"}
    asked = client.post("/tables", json={"game": 7}, headers=french_client)
    french = assert_problem(asked, 422, "validation_error")
    plain = client.post("/tables", json={"game": 7}, headers=ORGANISER)
    plain = assert_problem(plain, 422, "validation_error")
    assert plain["detail"] == "The request is well-formed but some fields are invalid."
    with client.application.test_request_context(), force_locale("fr"):
        assert french["detail"] == gettext(plain["detail"]) != plain["detail"]
    assert french["errors"] == plain["errors"]
    lost = client.get("/no-such-route", headers={"Accept-Language": "fr-CA,fr;q=0.9"})
    assert (
        assert_problem(lost, 404, "not_found")["detail"]
        != assert_problem(client.get("/no-such-route"), 404, "not_found")["detail"]
    )
