"""No event shape can crash a page, and no page shows a card its viewer may not see.

Hypothesis opens tables of every registered game and variant through the JSON API (read
from ``domain.games.SPECS``: a new game is checked with no edit here), choosing the seats,
the seed, the match, the game's declared options and a seed for the play. The play takes
at each step one of the organiser's legal actions; in Bestia's own test the deal is mostly
recorded and often stacked so a seat holds five of a suit (random deals almost never make
a mosca); now and then the organiser rules. Play is drawn from ``random.Random`` rather
than step by step from Hypothesis because every table deals from its own secret salt
(``docs/rules/common.md``): the same draws would meet other cards on a rerun. After every
action (its events are appended together) every page is fetched for every viewer: the
public, each seat's token, the organiser's token.

- ``GET /`` answers 200 and draws no card;
- ``GET /tables/{id}/view`` answers 200 and shows exactly its viewer's ``GET /state``
  (no card beyond it, one face-down back per card it hides);
- ``GET /tables/{id}/deals/{k}/replay`` for each deal so far: 200 to the organiser, to
  the others 200 once the deal is scored and 403 (with no card) before; its steps are the
  deal's events, every card it draws is a card of that deal as the viewer's own
  ``GET /tables/{id}/deals/{k}`` shows it, and each card play frames its card in the
  hand as played and as a legal choice.

A replay is the only page not fetched after every action. Its step for an event is built
from that event and the states around it alone, so a replay fetched later holds every
earlier step unchanged: a deal's replay is fetched for each viewer when the deal starts,
when it is scored, when the next deal starts and when the match ends, and for the
organiser also after every action that brings a new kind of event to the deal (so each
kind is once the newest step of a live replay). Fetching the organiser's growing replay
after every action would cost more than half the test's time for nothing new.

The deterministic tests build moscas from recorded deals: the replay page answered 500 for
every deal won by a mosca (``MoscaWon.cards`` is a list of hands).
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from domain.games import SPECS
from domain.games.bestia.cards import NAMES
from domain.games.bestia.cards import deck as bestia_deck
from domain.games.bottle_imp.cards import START_CARD
from domain.games.options import Option
from domain.games.registry import GameSpec
from service.storage.db import get_database
from tests.factories import table_body
from tests.helpers import make_test_app, post_table
from tests.pages.tables import (
    ORGANISER,
    STYLE,
    Json,
    Table,
    backs,
    browser_of,
    cards_in_view,
    embedded,
    hidden_in_view,
    last_trick_cards,
    leaves,
    page_cards,
    state,
)

Viewer = int | str | None
FACES = re.compile(r'<template id="faces">.*?</template>', re.S)
NAMES_AT_TABLE = ("Ann", "Bo", "Cy", "Di", "Eve <b>&amp;</b>", "Fay", "Gus", "Hal")


@pytest.fixture(scope="module")
def pages_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """One app for every example: each example opens its own tables."""
    path = tmp_path_factory.mktemp("pages-property") / "cardledger.db"
    app = make_test_app(f"sqlite:///{path}")
    yield app
    get_database(app).engine.dispose()


@pytest.fixture(scope="module")
def pages(pages_app: Flask) -> FlaskClient:
    return pages_app.test_client()


# --- the tables Hypothesis opens ------------------------------------------------------------


def _seats(players: int) -> list[Json]:
    return [{"name": NAMES_AT_TABLE[s]} for s in range(players)]


def option_values(option: Option) -> st.SearchStrategy[Any]:
    """Values the option takes; numbers kept small, from their minimum (a long game's length
    is a number: Oh Quay's ``max_turns``)."""
    if option.type == "bool":
        return st.booleans()
    if option.choices:
        return st.sampled_from(option.choices)
    low = option.minimum or 0
    return st.integers(low, option.maximum if option.maximum is not None else low + 3)


@st.composite
def tables_of(draw: st.DrawFn, spec: GameSpec, variant: str) -> Json:
    """A table of the game's variant: any table size it seats, any first dealer, each
    declared option left out or given (a number always: a long default is a slow example);
    more seats, longer deals: a match of more than five seats is one deal."""
    players = draw(st.sampled_from(spec.players[variant]))
    numbers = {n: option_values(o) for n, o in spec.options.items() if o.type == "int"}
    others = {n: option_values(o) for n, o in spec.options.items() if n not in numbers}
    seat_options = {n for n, o in spec.options.items() if o.type == "seat"}
    options = draw(st.fixed_dictionaries(numbers, optional=others))
    options = {n: v for n, v in options.items() if n not in seat_options or v < players}
    return table_body(
        game=spec.id,
        variant=variant,
        seats=_seats(players),
        max_deals=draw(st.integers(1, 2 if players <= 5 else 1)),
        target_score=draw(st.sampled_from([None, 3, 10, 200])),
        seed=draw(st.text("abcdef0123", min_size=1, max_size=8)),
        rules={"first_dealer": draw(st.integers(0, players - 1)), **options},
    )


EVERY_VARIANT = [
    pytest.param(spec, variant, id=f"{spec.id}-{variant}")
    for spec in SPECS.values()
    for variant in spec.variants
]


# --- the play ------------------------------------------------------------------------------


def recorded_bestia_deal(rng: random.Random, now: Json) -> Json:
    """A physical deal of the table's deck, often stacked: one or two seats dealt five of
    a suit (two of them the same ranks, so equal moscas can share the pot)."""
    players, dealer = len(now["totals"]), now["dealer"]
    cards = [NAMES[c] for c in bestia_deck(players, now["rules"]["deck"])]
    rng.shuffle(cards)
    moscas = rng.choice([0, 1, 1, 1, 2])
    seats, suits = rng.sample(range(players), moscas), rng.sample("CDHS", moscas)
    hands: list[list[str]] = [[] for _ in range(players)]
    ranks = [c[:-1] for c in cards if c[-1] == suits[0]][:5] if moscas else []
    for seat, suit in zip(seats, suits, strict=True):
        hands[seat] = [rank + suit for rank in ranks]
    rest = iter(c for c in cards if c not in {c for hand in hands for c in hand})
    for hand in hands:
        while len(hand) < 5:
            hand.append(next(rest))
    return {"type": "deal", "hands": hands, "muestra": rng.choice(hands[dealer])}


def choose(rng: random.Random, now: Json, may_rule: bool, record: bool = False) -> Json:
    """One of the organiser's legal actions, or (``record``, Bestia) mostly a recorded deal,
    or now and then a director's ruling."""
    legal = now["legal_actions"]
    if may_rule and rng.randrange(25) == 0:
        seat = rng.randrange(len(now["totals"]))
        points = rng.choice([-3, -1, 1, 2])
        return {"type": "adjust", "seat": seat, "points": points, "reason": "a slow play"}
    if record and legal == [{"type": "deal"}] and rng.random() < 0.75:
        return recorded_bestia_deal(rng, now)
    return rng.choice(legal)


def take(client: FlaskClient, table: Table, action: Json) -> list[str]:
    """Record the action: the kinds of event it appended. A ruling the rules refuse
    (Bestia's ``check_adjust``) is a 422 and appends nothing."""
    response = client.post(f"/tables/{table.id}/actions", json=action, headers=ORGANISER)
    if action["type"] == "adjust" and response.status_code == 422:
        return []
    assert response.status_code == 201, (action, response.get_json())
    return [e["type"] for e in response.get_json()["events"]]


# --- every page, for every viewer -----------------------------------------------------------


def viewers(table: Table) -> list[Viewer]:
    return [None, "organiser", *(seat for seat, token in enumerate(table.tokens) if token)]


def get_page(
    client: FlaskClient, url: str, table: Table | None = None, viewer: Viewer = None
) -> tuple[int, str]:
    """A page as ``viewer``'s own browser gets it: its token link was exchanged once for a
    cookie (``tests.pages.tables.browser_of``); without a table, as the public."""
    browser = client if table is None else browser_of(client, table, viewer)
    response = browser.get(url)
    assert response.mimetype == "text/html", (url, response.status_code)
    return response.status_code, response.get_data(as_text=True)


def assert_home_page(client: FlaskClient) -> None:
    status, page = get_page(client, "/")
    assert status == 200
    assert page_cards(page) == []


def deal_cards(history: Json) -> set[str]:
    """Every card a deal's history names (its dealt cards, events and alternatives),
    and the Bottle Imp's start card, the bottle's price before anyone buys it."""
    parts = [history["dealt"], [[e["data"], e.get("legal")] for e in history["events"]]]
    return {str(c) for c in leaves(parts)} | {str(START_CARD)}


def step_cards(steps: list[Json]) -> set[str]:
    """Every card the replay's steps draw: the scenes' slots and the words' card parts."""
    out: set[str] = set()
    for step in steps:
        scene = step["scene"]
        piles = scene["centre"] + [p for seat in scene["seats"] for p in seat["piles"]]
        for pile in piles:
            for slot in pile["slots"]:
                card = slot["c"] if isinstance(slot, dict) else slot
                if card is not None:
                    out.add(str(card))
        out |= {str(part["c"]) for part in step["text"] if isinstance(part, dict)}
    return out


def deal_history(client: FlaskClient, table: Table, deal: int, viewer: Viewer) -> Json:
    response = client.get(f"/tables/{table.id}/deals/{deal}", headers=table.headers(viewer))
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def assert_replay_page(
    client: FlaskClient, table: Table, deal: int, viewer: Viewer, history: Json
) -> None:
    """200 with the deal's steps and only its cards (``history`` as the viewer's own
    ``GET /deals/{k}``), or 403 with no card while the deal is played."""
    status, page = get_page(client, f"/tables/{table.id}/deals/{deal}/replay", table, viewer)
    who = f"deal {deal} replay for {viewer!r}"
    if not history["scored"] and viewer != "organiser":
        assert status == 403, who
        assert page_cards(page) == [], who
        return
    assert status == 200, (who, page[:300])
    steps = embedded(page)["steps"]
    assert [s["v"] for s in steps] == [e["version"] for e in history["events"]], who
    allowed = deal_cards(history)
    drawn = step_cards(steps) | set(page_cards(FACES.sub("", page)))
    assert drawn <= allowed, f"{who} draws {drawn - allowed}, not in the deal's history"
    for step, entry in zip(steps, history["events"], strict=True):
        if entry["type"] == "CardPlayed" and entry.get("legal"):  # a legal choice, made
            card, seat = entry["data"]["card"], entry["seat"]
            assert card in hand_marks(step, seat, "played"), (who, step["v"])
            assert card in hand_marks(step, seat, "legal"), (who, step["v"])


def hand_marks(step: Json, seat: int, mark: str) -> list[Any]:
    """The cards of ``seat``'s hand piles in a replay step that carry ``mark``."""
    piles = [p for p in step["scene"]["seats"][seat]["piles"] if "hand" in p["kind"]]
    slots = [s for p in piles for s in p["slots"] if isinstance(s, dict)]
    return [s["c"] for s in slots if mark in s.get("m", "").split()]


@dataclass
class Fetched:
    """What each deal's replay was last fetched at, per viewer, and the kinds of event
    each deal has had so far."""

    at: dict[tuple[int, Viewer], Any] = field(default_factory=dict)
    kinds: dict[int, set[str]] = field(default_factory=dict)


def assert_replay_pages(client: FlaskClient, table: Table, now: Json, fetched: Fetched) -> None:
    """Each deal's replay for each viewer, when it may show something new: a new kind of
    event as its last step (organiser), the deal scored, closed (the next deal started)
    or the match over."""
    scoring = SPECS[now["game"]].landmarks.deal_scored.__name__
    for deal in range(1, now["deal"] + 1):
        kinds = fetched.kinds.get(deal, set())
        closed, scored = deal < now["deal"], scoring in kinds
        keys = {v: (scored, closed, now["status"]) for v in viewers(table)}
        keys["organiser"] = (frozenset(kinds), closed, now["status"])
        due = [v for v, key in keys.items() if fetched.at.get((deal, v)) != key]
        if not due:
            continue
        history = deal_history(client, table, deal, "organiser")
        for viewer in due:
            fetched.at[deal, viewer] = keys[viewer]
            own = history  # the organiser's; only "not scored" matters while refused
            if viewer != "organiser" and scored:
                own = deal_history(client, table, deal, viewer)
            assert_replay_page(client, table, deal, viewer, own)


def assert_table_page(client: FlaskClient, table: Table, viewer: Viewer, everything: Json) -> None:
    """The page shows its viewer's ``GET /state``, no card beyond it and one back per card
    it hides, given the organiser's state."""
    seen = everything if viewer == "organiser" else state(client, table, viewer)
    played = last_trick_cards(client, table, viewer)  # face up in the last trick
    shown = cards_in_view(seen) | played
    hidden = cards_in_view(everything) - shown
    status, page = get_page(client, f"/tables/{table.id}/view", table, viewer)
    who = f"the table page for {viewer!r} at version {seen['version']}"
    assert status == 200, (who, page[:300])
    drawn = set(page_cards(page))
    assert not drawn & hidden, f"{who} shows {drawn & hidden}"
    assert drawn <= shown, f"{who} shows cards its view lacks"
    assert backs(page) == hidden_in_view(seen), f"{who}: one back per hidden card"
    if hidden and all(isinstance(c, str) for c in SPECS[everything["game"]].deck):
        # a card named in words ("author", "10H") is unambiguous; a number (19) is not
        names = "|".join(re.escape(c) for c in sorted(hidden, key=len, reverse=True))
        found = re.search(rf"(?<![\w-])(?:{names})(?![\w-])", STYLE.sub("", page))
        assert found is None, f"{who} has hidden {found.group()!r} at {found.start()}"


def assert_every_page(
    client: FlaskClient, table: Table, fetched: Fetched, appended: Iterable[str] = ()
) -> None:
    """Every page for every viewer after an action that ``appended`` those kinds of event."""
    everything = state(client, table)
    fetched.kinds.setdefault(everything["deal"], set()).update(appended)
    assert_home_page(client)
    for viewer in viewers(table):
        assert_table_page(client, table, viewer, everything)
    assert_replay_pages(client, table, everything, fetched)


def event_types(client: FlaskClient, table: Table) -> set[str]:
    response = client.get(f"/tables/{table.id}/events?limit=1000", headers=ORGANISER)
    return {e["type"] for e in response.get_json()["events"]}


def play_checking_every_page(
    client: FlaskClient, body: Json, seed: int, record: bool = False
) -> tuple[Table, Json]:
    """Open a table of ``body``, play it to the end with choices from ``seed`` (Bestia's
    deals mostly recorded, with ``record``), checking every page after every action; the
    table and its final state."""
    table = post_table(client, body)
    rng = random.Random(seed)
    fetched = Fetched()
    assert_every_page(client, table, fetched)
    rulings = 0
    while (now := state(client, table))["status"] != "finished":
        action = choose(rng, now, may_rule=rulings < 2, record=record)
        rulings += action["type"] == "adjust"
        assert_every_page(client, table, fetched, take(client, table, action))
    return table, now


def check_random_match(client: FlaskClient, body: Json, seed: int, record: bool = False) -> None:
    table, now = play_checking_every_page(client, body, seed, record)
    event(f"{body['game']} {body['variant']}, {now['deal']} deal(s)")
    if "MoscaWon" in event_types(client, table):
        event("a mosca")


@pytest.mark.parametrize(("spec", "variant"), EVERY_VARIANT)
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_every_page_answers_every_viewer_after_every_event(
    pages: FlaskClient, spec: GameSpec, variant: str, data: st.DataObject, seed: int
) -> None:
    check_random_match(pages, data.draw(tables_of(spec, variant), label="table"), seed)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=tables_of(SPECS["bestia"], "standard"), seed=st.integers(0, 2**32 - 1))
def test_every_bestia_page_answers_every_viewer_after_every_event(
    pages: FlaskClient, body: Json, seed: int
) -> None:
    """Bestia has the most options and seat counts, and recorded deals make moscas: more
    matches (beside the two above), shorter ones, mostly recorded."""
    check_random_match(pages, body, seed, record=True)


def test_every_page_of_a_match_whose_first_deal_a_mosca_wins(pages: FlaskClient) -> None:
    """The property's play, pinned: seed 2 records a stacked first deal that a mosca wins
    (recorded deals do not depend on the salt); a second deal follows."""
    body = table_body(game="bestia", seats=_seats(3), max_deals=2, target_score=None,
                      seed="mosca", rules={"first_dealer": 0})  # fmt: skip
    table, now = play_checking_every_page(pages, body, seed=2, record=True)
    assert now["deal"] == 2
    assert "MoscaWon" in event_types(pages, table)
    history = deal_history(pages, table, 1, None)
    assert history["score"]["outcome"] == "mosca"


# --- the mosca, deterministically -----------------------------------------------------------

ONE_MOSCA = [["10H", "JC", "KC", "AD", "KD"], ["AS", "KS", "QS", "JS", "10S"],
             ["AH", "KH", "QH", "7C", "8C"]]  # fmt: skip
EQUAL_MOSCAS = [["QH", "AC", "KC", "7H", "8H"], ["AS", "KS", "QS", "JS", "10S"],
                ["AD", "KD", "QD", "JD", "10D"]]  # fmt: skip


def mosca_table(client: FlaskClient, hands: list[list[str]], muestra: str) -> Table:
    """Deal 1 of two won by a mosca: everyone plays, nobody exchanges."""
    body = table_body(game="bestia", seats=_seats(3), target_score=None, max_deals=2,
                      rules={"first_dealer": 0, "ante": 1})  # fmt: skip
    table = post_table(client, body)
    take(client, table, {"type": "deal", "hands": hands, "muestra": muestra})
    while (now := state(client, table))["deal"] == 1 and now["phase"] != "waiting_for_deal":
        (choice,) = [a for a in now["legal_actions"] if a.get("call") != "pass"]
        take(client, table, choice)
    return table


def mosca_words(winners: list[int], hands: list[list[str]]) -> list[Any]:
    """The step's words: each winner's name and hand, cards as card parts."""
    words: list[Any] = ["Mosca: "]
    for i, (seat, hand) in enumerate(zip(winners, hands, strict=True)):
        words += [f"{' and ' if i else ''}{NAMES_AT_TABLE[seat]} with ", *({"c": c} for c in hand)]
    return [*words, " takes the pot" if len(winners) == 1 else " share the pot"]


@pytest.mark.parametrize(
    ("hands", "muestra", "winners"),
    [(ONE_MOSCA, "10H", [1]), (EQUAL_MOSCAS, "QH", [2, 1])],
    ids=["one-mosca", "equal-moscas"],
)
def test_a_deal_won_by_a_mosca_replays_with_the_winning_hands(
    client: FlaskClient, hands: list[list[str]], muestra: str, winners: list[int]
) -> None:
    table = mosca_table(client, hands, muestra)
    events = client.get(f"/tables/{table.id}/deals/1", headers=ORGANISER).get_json()["events"]
    (won,) = [e for e in events if e["type"] == "MoscaWon"]
    assert won["data"]["seats"] == winners
    assert [sorted(hand) for hand in won["data"]["cards"]] == [sorted(hands[s]) for s in winners]
    for viewer in viewers(table):
        status, page = get_page(client, f"/tables/{table.id}/deals/1/replay", table, viewer)
        assert status == 200, (viewer, page[:300])
        step = next(s for s in embedded(page)["steps"] if s["v"] == won["version"])
        assert step["text"] == mosca_words(winners, won["data"]["cards"])
        for seat in winners:
            marked = hand_marks(step, seat, "winner")
            assert sorted(marked) == sorted(hands[seat]), "the mosca's cards are framed"
        assert html.escape(f"{NAMES_AT_TABLE[winners[0]]} with ") in page
    everything = state(client, table)
    for viewer in viewers(table):
        assert_table_page(client, table, viewer, everything)
