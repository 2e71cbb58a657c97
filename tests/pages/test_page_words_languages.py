"""The words the page modules produce, in the viewer's language: a rule's refusal worded
from its code (never the engine's English sentence on a Spanish page), plural forms by
each language's rule, and a problem's fixed ``detail`` by ``Accept-Language`` with its
code unchanged."""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_babel import force_locale, gettext, ngettext

from domain.errors import RuleViolation
from domain.games import Rules, game
from domain.match import MatchRules
from domain.table import SeatSpec, Table
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


def _title(page: str, card: Any) -> str:
    """A greyed card's title: the card and why it cannot be played, shown when tapped."""
    found = re.search(rf'data-card="{card}"[^>]*data-reason="[^"]*" title="([^"]*)"', page)
    assert found, card
    return html.unescape(found[1])


def _in(app: Flask, language: str, message: str, **values: Any) -> str:
    with app.test_request_context(), force_locale(language):
        return gettext(message, **values)


@pytest.mark.parametrize("language", ["es", "fi", "fr"])
def test_a_refusal_on_a_page_in_another_language_is_worded_from_its_code(
    client: FlaskClient, language: str
) -> None:
    table, now = table_reaching(client, "bottle-imp", _a_card_refused)
    seat, card = _refused_card(now)
    app = client.application
    english = open_page(client, table, seat).get_data(as_text=True)
    engine_said = _reason(english, card)
    assert engine_said.startswith("You hold") and "must follow" in engine_said

    mine = browser_of(client, table, seat)
    theirs_page = mine.get(f"/tables/{table.id}/view?lang={language}").get_data(as_text=True)
    yours = _in(app, language, "You hold a card of the suit led and must follow suit")
    assert f'<html lang="{language}"' in theirs_page
    assert _reason(theirs_page, card) == yours != engine_said
    assert yours != "You hold a card of the suit led and must follow suit"  # translated
    tapped = _title(theirs_page, card)  # what the page says when the greyed card is tapped
    colon = "\u00a0: " if language == "fr" else ": "  # French spaces its colon
    assert tapped.endswith(colon + yours) and not tapped.startswith(colon), tapped

    organiser = browser_of(client, table, "organiser")
    page = organiser.get(f"/tables/{table.id}/view?lang={language}").get_data(as_text=True)
    theirs = _in(app, language, "%(name)s holds a card of the suit led and must follow suit")
    assert _reason(page, card) == theirs % {"name": NAMES[seat]}
    assert NAMES[seat] in _reason(page, card)

    move = {"type": "play", "seat": seat, "card": card}
    refused = post_move(mine, table, move, str(table.tokens[seat]), now["version"])
    problem = assert_problem(refused, 422, "must_follow_suit")
    assert problem["detail"] == yours


def test_an_english_page_keeps_the_engines_sentence_with_names(app: Flask) -> None:
    message = "seat 2 holds red cards and must follow red; 7 is blue"
    refused = RuleViolation("must_follow_suit", message, seat=2, card=7, suit="red")
    with app.test_request_context(headers={"Accept-Language": "en"}):
        said = refusals.worded(refused, NAMES, you=2)
        assert (
            said
            == seats_in_words(message, NAMES, 2)
            == ("You hold red cards and must follow red; 7 is blue")
        )
    with app.test_request_context(headers={"Accept-Language": "fi"}):
        about_cy = refusals.worded(refused, NAMES, you=0)
        assert "Cy" in about_cy and "red" not in about_cy
        turn = RuleViolation(
            "not_your_turn", "it is seat 0's turn to play, not 3's", seat=3, turn=0
        )
        assert "Di" in (said := refusals.worded(turn, NAMES)) and "Ann" not in said
        unknown = RuleViolation("a_code_no_page_words", "seat 1 did something", seat=1)
        assert "a_code_no_page_words" in refusals.worded(unknown, NAMES)


def test_a_seats_refusal_is_worded_from_its_facts_never_its_english_sentence(
    app: Flask,
) -> None:
    """The seat comes from the refusal's facts: an English sentence naming another seat
    (or none) changes nothing on a page in another language."""
    for language in ("es", "fi", "fr"):
        with app.test_request_context(f"/?lang={language}"):
            for code, (yours, theirs) in refusals.ABOUT_A_SEAT.items():
                misleading = RuleViolation(code, "seat 0 and seat 3, in English", seat=1)
                assert refusals.worded(misleading, NAMES, you=1) == str(yours)
                assert refusals.worded(misleading, NAMES, you=2) == str(theirs) % {"name": "Bo"}
                assert str(yours) != str(yours._args[0]), (language, code)  # translated
                assert str(theirs) != str(theirs._args[0]), (language, code)
                # no seat in the facts: the move's seat, as the page passes it
                bare = RuleViolation(code, "seat 0 is named here")
                assert refusals.worded(bare, NAMES, you=3, seat=3) == str(yours)


def _seeded(game_id: str, variant: str, players: int) -> tuple[Rules, Any, Any]:
    """The game's rules, a fresh table's state, and the seeded deal it would start with."""
    rules = game(game_id)
    seats = tuple(SeatSpec(name=name) for name in NAMES[:players])
    table = Table(game_id, variant, seats, MatchRules(None, 1), "facts", 0)
    state = rules.initial_state(table)
    return rules, state, rules.decide(state, rules.parse({"type": "deal"}))[0]


def _recorded(game_id: str, variant: str, players: int, spoil: Callable[[Any], Json]) -> Any:
    """The refusal of a recorded deal: the seeded one, spoilt by ``spoil``."""
    rules, state, dealt = _seeded(game_id, variant, players)
    with pytest.raises(RuleViolation) as refused:
        rules.decide(state, rules.parse({"type": "deal", **spoil(dealt)}))
    assert refused.value.code == "invalid_deal", refused.value.message
    return refused.value


def _lists(piles: Any) -> list[Any]:
    return [
        list(p) if not isinstance(p, dict) else {k: list(v) for k, v in p.items()} for p in piles
    ]


#: A recorded deal spoilt the ways a scorer may get it wrong, per game: the refusal's fault,
#: and the catalogue's sentence (singular, plural, count) it must be said with, with the
#: names and cards it must name.
Sentence = tuple[str, str | None, int | None]
DEALS: list[tuple[str, str, int, Callable[[Any], Json], Sentence, Json]] = [
    ("bottle-imp", "standard", 3,
     lambda d: {"hands": [list(d.hands[0][:-1]), *_lists(d.hands[1:])]},
     ("%(name)s must get %(num)s card", "%(name)s must get %(num)s cards", 12),
     {"name": "Ann"}),
    ("bottle-imp", "bright-house", 2,
     lambda d: {"hands": [{"A": list(d.hands[0]["A"]), "B": list(d.hands[0]["B"][1:])},
                          *_lists(d.hands[1:])]},
     ("%(name)s's pile %(pile)s must get %(num)s card",
      "%(name)s's pile %(pile)s must get %(num)s cards", 9),
     {"name": "Ann", "pile": "B"}),
    ("bottle-imp", "lopaka", 2,
     lambda d: {"hands": _lists(d.hands), "devil": list(d.devil[1:])},
     ("The devil's trick must get %(num)s cards", None, None), {"num": 3}),
    ("bottle-imp", "standard", 3,
     lambda d: {"hands": [*_lists(d.hands[:2]), [*d.hands[2][:-1], d.hands[0][0]]]},
     ("%(card)s is dealt twice", None, None), {"card": "FIRST"}),
    ("bestia", "standard", 3,
     lambda d: {"hands": [list(d.hands[0]), list(d.hands[1][:-1]), list(d.hands[2])],
                "muestra": d.muestra},
     ("%(name)s must get %(num)s card", "%(name)s must get %(num)s cards", 5), {"name": "Bo"}),
    ("bestia", "standard", 3,
     lambda d: {"hands": _lists(d.hands), "muestra": d.hands[1][0]},
     ("The muestra %(card)s must be a card of %(name)s's hand (the dealer's)", None, None),
     {"card": "SECOND", "name": "Ann"}),
    ("bestia", "standard", 3,
     lambda d: {"hands": _lists(d.hands)},
     ("Name the muestra: a card of the dealer's hand", None, None), {}),
    ("oh-quay", "standard", 2,
     lambda d: {"quays": [list(d.quays[0]), list(d.quays[1][1:])], "canals": _lists(d.canals)},
     ("%(name)s's quay must hold %(num)s card", "%(name)s's quay must hold %(num)s cards", 9),
     {"name": "Bo"}),
    ("oh-quay", "standard", 2,
     lambda d: {"quays": _lists(d.quays), "canals": [list(d.canals[0][1:]), list(d.canals[1])]},
     ("%(name)s's canal must hold %(num)s card", "%(name)s's canal must hold %(num)s cards", 9),
     {"name": "Ann"}),
    ("oh-quay", "standard", 2,
     lambda d: {"quays": _lists(d.quays),
                "canals": [[*d.canals[0][:-1], d.quays[0][0]], list(d.canals[1])]},
     ("%(card)s is dealt twice", None, None), {"card": "QUAY"}),
]  # fmt: skip


def _card_named(key: str, game_id: str, variant: str, players: int) -> str:
    """A card a spoilt deal names (``FIRST``: seat 0's first, ``SECOND``: seat 1's first,
    ``QUAY``: seat 0's first on its quay), as the seeded deal holds it."""
    dealt = _seeded(game_id, variant, players)[2]
    if key == "QUAY":
        return str(dealt.quays[0][0])
    return str(dealt.hands[0 if key == "FIRST" else 1][0])


@pytest.mark.parametrize(
    ("game_id", "variant", "players", "spoil", "sentence", "values"),
    DEALS,
    ids=[f"{d[0]}-{d[1]}-{d[4][0][:24]}" for d in DEALS],
)
def test_a_recorded_deals_refusal_says_the_engines_facts_in_each_language(
    app: Flask,
    game_id: str,
    variant: str,
    players: int,
    spoil: Callable[[Any], Json],
    sentence: Sentence,
    values: Json,
) -> None:
    refused = _recorded(game_id, variant, players, spoil)
    values = {
        k: _card_named(v, game_id, variant, players) if v in ("FIRST", "SECOND", "QUAY") else v
        for k, v in values.items()
    }
    singular, plural, count = sentence
    for language in ("en", "es", "fi", "fr"):
        with app.test_request_context(f"/?lang={language}"):
            said = refusals.worded(refused, NAMES)
            if language == "en":  # the engine's sentence, with the seats' names
                assert said == seats_in_words(refused.message, NAMES)
                continue
            if plural is None:
                expected = gettext(singular, **values)
            else:
                expected = ngettext(singular, plural, count or 0, **values)
            english = (plural if plural and count != 1 else singular) % {"num": count, **values}
        assert said == expected != english, (language, said)
        assert said != str(refusals.PLAIN["invalid_deal"])
        assert all(str(v) in said for v in values.values()), (language, said)


def test_every_rule_raising_a_seats_refusal_names_the_seat_and_a_deals_its_fault() -> None:
    """Read from the engines' source: each ``RuleViolation`` of a code said about a seat
    passes its ``seat`` (or a mapping of facts that holds it), each ``invalid_deal`` its
    ``fault``, and every fault a page words is one an engine raises."""
    missing: list[str] = []
    faults: set[str] = set()
    for path in Path("domain").rglob("*.py"):
        for call in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", "") == "RuleViolation"):
                continue
            first = call.args[0] if call.args else None
            if not isinstance(first, ast.Constant):
                continue
            named = {k.arg for k in call.keywords}
            spread = any(k.arg is None for k in call.keywords)
            where = f"{path}:{call.lineno} {first.value}"
            if first.value in refusals.ABOUT_A_SEAT and "seat" not in named and not spread:
                missing.append(where)
            if first.value == "invalid_deal":
                fault = next((k.value for k in call.keywords if k.arg == "fault"), None)
                if fault is None:
                    missing.append(where)
                elif isinstance(fault, ast.Constant):
                    faults.add(fault.value)
                elif isinstance(fault, ast.IfExp):
                    faults |= {fault.body.value, fault.orelse.value}  # type: ignore[attr-defined]
    assert missing == []
    assert set(refusals.DEAL_FACTS) <= faults


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
