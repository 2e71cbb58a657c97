"""Audit (``docs/api.md``, Audit): a club official answers "Who had the 3?", "Was that a revoke?"
and "Were the cards stacked?" from the record alone.

- Deal history ``GET /tables/{id}/deals/{k}`` (JSON and ``?format=text``) as each viewer may
  see it, with the legal alternatives of every recorded choice.
- Verification ``GET /tables/{id}/verify`` after one stored row is changed directly with SQL
  (tests may; the code never does), on SQLite and PostgreSQL; the other routes of a corrupted
  table answer 503 ``unreadable_log`` or still work, never 500.
- Provable fairness, for every registered game: the revealed seed matches
  ``seed_commitment``, and with the revealed salt the rules re-decide the public log from
  it, every deal dealt from that key; and for the games whose deal is written out here from
  their rules texts (not taken from the engine), every seeded deal re-dealt by the
  documented shuffle.
- Export/import round trips for every game and variant, forged files refused with the first
  bad line, and the offline ``cardledger verify``.
- Directors' rulings (``adjust``) in totals, history, verification and the final ranking.
  (Tournament standings have no routes yet, so no standings test here.)
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import delete, select, update
from werkzeug.test import TestResponse

from domain.audit import recheck
from domain.games import GAMES, SPECS
from domain.replay import event_from_json
from domain.shuffle import shuffle
from service.core.signing import new_private_key
from service.running.cli import main as cardledger
from service.storage.db import get_database
from service.storage.eventstore import GENESIS, canonical_event, canonical_json, chain_hash
from service.storage.guard import Guard
from service.storage.models import events, streams
from tests.contract.cards import cards_in
from tests.helpers import (
    NDJSON,
    ORGANISER,
    Headers,
    Json,
    OpenTable,
    assert_problem,
    export_of,
    import_file,
    make_test_app,
    open_table,
    setups_of,
)
from tests.service.log_damage import tampering

# --- helpers ---------------------------------------------------------------------------------

PUBLIC: Headers = {}

EVERY_SETUP = [
    pytest.param(g, v, n, id=f"{g}-{v}-{n}") for g in sorted(GAMES) for v, n in setups_of(g)
]
ONE_SETUP_PER_GAME = [pytest.param(g, *setups_of(g)[0], id=g) for g in sorted(GAMES)]
#: The Bottle Imp table these tests open unless they say otherwise: three players, played
#: to its number of deals (no target).
AUDIT_TABLE: Json = {"players": 3, "target_score": None}


def ok_json(response: TestResponse) -> Any:
    assert response.status_code == 200, (response.status_code, response.get_data(as_text=True))
    return response.get_json()


def get_state(
    client: FlaskClient, table: OpenTable, headers: Headers = ORGANISER, version: int | None = None
) -> Json:
    query = "" if version is None else f"?version={version}"
    return ok_json(client.get(f"/tables/{table.id}/state{query}", headers=headers))


def summary(client: FlaskClient, table: OpenTable) -> Json:
    return ok_json(client.get(f"/tables/{table.id}"))


def post_action(
    client: FlaskClient, table: OpenTable, action: Json, headers: Headers = ORGANISER
) -> TestResponse:
    return client.post(f"/tables/{table.id}/actions", json=action, headers=headers)


def act(client: FlaskClient, table: OpenTable, action: Json, headers: Headers = ORGANISER) -> Json:
    response = post_action(client, table, action, headers)
    assert response.status_code == 201, (action, response.get_json())
    return response.get_json()


def play_until(
    client: FlaskClient,
    table: OpenTable,
    rng: random.Random,
    done: Callable[[Json], bool],
    *,
    by_seats: bool = False,
    answers: list[Json] | None = None,
) -> Json:
    """Send legal actions (chosen among all the organiser is offered) until the organiser's
    state satisfies ``done``; with ``by_seats``, about half the seats' actions go with
    the seat's own token. Each accepted answer is appended to ``answers`` with ``by``."""
    while not done(current := get_state(client, table)):
        assert current["status"] != "finished", "the match ended first"
        action = rng.choice(current["legal_actions"])
        seat = action.get("seat")
        use_seat = by_seats and isinstance(seat, int) and seat < len(table.tokens)
        use_seat = use_seat and rng.random() < 0.5
        headers = table.seat(seat) if use_seat else ORGANISER
        answer = act(client, table, action, headers)
        if answers is not None:
            answers.append({**answer, "by": f"seat {seat}" if use_seat else "organiser"})
    return current


def finished(table_state: Json) -> bool:
    return bool(table_state["status"] == "finished")


def all_events(client: FlaskClient, table: OpenTable, headers: Headers = ORGANISER) -> list[Json]:
    found: list[Json] = []
    after: int | None = 0
    while after is not None:
        page = ok_json(client.get(f"/tables/{table.id}/events?after={after}", headers=headers))
        found += page["events"]
        after = page["next"]
    return found


def history(client: FlaskClient, table: OpenTable, deal: int, headers: Headers = ORGANISER) -> Json:
    return ok_json(client.get(f"/tables/{table.id}/deals/{deal}", headers=headers))


def but_import(table_summary: Json) -> Json:
    """A summary without ``import``: how the table came to this server."""
    return {k: v for k, v in table_summary.items() if k != "import"}


def verify(client: FlaskClient, table_id: str) -> Json:
    return ok_json(client.get(f"/tables/{table_id}/verify", headers=ORGANISER))


def without_seeds(value: Any) -> Any:
    """``value`` with every ``seed`` field dropped (they stay secret until the match ends)."""
    if isinstance(value, dict):
        return {k: without_seeds(v) for k, v in value.items() if k != "seed"}
    if isinstance(value, list):
        return [without_seeds(v) for v in value]
    return value


# Tables have random ids, so the tests of this module share their servers (building one
# per test would double the module's run time).


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """The server the tables are played on (``client`` of ``tests/conftest.py`` uses it)."""
    app = make_test_app(f"sqlite:///{tmp_path_factory.mktemp('audit') / 'ledger.db'}")
    yield app
    get_database(app).engine.dispose()


@pytest.fixture(scope="module")
def second_client(app: Flask, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    """Another server on another database, with its own signing key: where exports are
    imported. It trusts the first server's key (``CARDLEDGER_TRUSTED_KEYS``)."""
    first = ok_json(app.test_client().get("/signing-key"))["public_key"]
    second = make_test_app(
        f"sqlite:///{tmp_path_factory.mktemp('import') / 'second.db'}", trusted_keys=(first,)
    )
    yield second.test_client()
    get_database(second).engine.dispose()


# --- the games' deals, written out from the rules texts ---------------------------------------

BOTTLE_IMP_DECK = [c for c in range(1, 38) if c != 19]
BOTTLE_IMP_SUITS = {  # docs/rules/bottle-imp.md, The deck
    "yellow": (1, 2, 3, 5, 7, 9, 12, 15, 18, 22, 25, 28),
    "blue": (4, 6, 8, 10, 13, 17, 20, 24, 27, 30, 32, 34),
    "red": (11, 14, 16, 21, 23, 26, 29, 31, 33, 35, 36, 37),
}
SUIT_OF = {card: suit for suit, cards in BOTTLE_IMP_SUITS.items() for card in cards}
OH_QUAY_DECK = [  # docs/rules/oh-quay.md, canonical order: rank by rank
    *("ace-moons", "ace-suns", "ace-waves", "ace-leaves", "ace-wyrms", "ace-knots"),
    *("author", "desert", "origin", "journey", "painter", "savage"),
    *("mountain", "sailor", "battle", "forest", "discovery", "soldier"),
    *("lunatic", "penitent", "market", "chance-meeting", "castle", "cave"),
    *("diplomat", "mill", "betrayal", "pact", "darkness", "merchant"),
    *("huntress", "bard", "sea", "end", "calamity", "windfall"),
]
BESTIA_RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def bottle_imp_deal(variant: str, players: int, seed: str, deal: int, dealer: int) -> Json:
    deck = shuffle(BOTTLE_IMP_DECK, f"{seed}/{deal}")
    expected: Json = {"deal": deal, "dealer": dealer, "seed": f"{seed}/{deal}"}
    if variant == "bright-house":  # 0–8 non-dealer A, 9–17 dealer A, 18–26 / 27–35 the Bs
        piles = [sorted(deck[i : i + 9]) for i in range(0, 36, 9)]
        hands: list[Any] = [None, None]
        hands[1 - dealer] = {"A": piles[0], "B": piles[2]}
        hands[dealer] = {"A": piles[1], "B": piles[3]}
        return expected | {"hands": hands}
    if variant == "lopaka":  # 0–32 to non-dealer, Lopaka (seat 2), dealer; 33–35 the devil's
        order = [1 - dealer, 2, dealer]
        dealt = [sorted(deck[i] for i in range(33) if order[i % 3] == s) for s in range(3)]
        return expected | {"hands": dealt, "devil": sorted(deck[33:])}
    dealt = [  # card i to seat (dealer + 1 + i) % n
        sorted(c for i, c in enumerate(deck) if (dealer + 1 + i) % players == s)
        for s in range(players)
    ]
    return expected | {"hands": dealt}


def oh_quay_deal(seed: str, deal: int, starter: int) -> Json:
    deck = shuffle(OH_QUAY_DECK, f"{seed}/{deal}")
    piles = [deck[i : i + 9] for i in range(0, 36, 9)]
    quays: list[Any] = [None, None]
    canals: list[Any] = [None, None]
    quays[starter], canals[starter] = piles[0], piles[1]
    quays[1 - starter], canals[1 - starter] = piles[2], piles[3]
    seeded = f"{seed}/{deal}"
    return {"deal": deal, "starter": starter, "quays": quays, "canals": canals, "seed": seeded}


def bestia_deal(players: int, seed: str, deal: int, dealer: int) -> Json:
    lowest = max(0, BESTIA_RANKS.index("7") - (players - 3))  # the short deck
    deck = shuffle(
        [rank + suit for suit in "CDHS" for rank in BESTIA_RANKS[lowest:]], f"{seed}/{deal}"
    )
    canonical = {card: i for i, card in enumerate(sorted(deck, key=bestia_order))}
    ring = [(dealer - 1 - j) % players for j in range(players)]  # from the dealer's right
    hands: list[Any] = [None] * players
    for j, seat in enumerate(ring):
        hands[seat] = sorted(deck[j : 5 * players : players], key=canonical.__getitem__)
    muestra = deck[5 * players - 1]
    return {
        "deal": deal,
        "dealer": dealer,
        "trump": muestra[-1],
        "muestra": muestra,
        "hands": hands,
        "stock": deck[5 * players :],
        "seed": f"{seed}/{deal}",
    }


def bestia_order(card: str) -> tuple[int, int]:
    return "CDHS".index(card[-1]), BESTIA_RANKS.index(card[:-1])


def _bottle_imp_redeal(variant: str, players: int, key: str, recorded: Json) -> Json:
    k = recorded["deal"]
    return bottle_imp_deal(variant, players, key, k, (k - 1) % players)


def _oh_quay_redeal(variant: str, players: int, key: str, recorded: Json) -> Json:
    # who starts depends on the scores: the rules decide, we re-deal
    return oh_quay_deal(key, recorded["deal"], recorded["starter"])


def _bestia_redeal(variant: str, players: int, key: str, recorded: Json) -> Json:
    k = recorded["deal"]
    dealt = bestia_deal(players, key, k, (-(k - 1)) % players)  # the deal goes right
    return dealt | {"ante": recorded["ante"]}


#: The ``DealStarted`` data deal ``recorded["deal"]`` must have, from the deal key ``key``
#: (``"{salt}:{seed}"`` at a salted table; tables here open with ``first_dealer`` 0), as
#: each game's rules text deals (``docs/rules/<game>.md``, The deal), written out here.
REDEALS: dict[str, Callable[[str, int, str, Json], Json]] = {
    "bottle-imp": _bottle_imp_redeal,
    "oh-quay": _oh_quay_redeal,
    "bestia": _bestia_redeal,
}
WRITTEN_OUT = [p for p in EVERY_SETUP if p.values[0] in REDEALS]


def redeal(game: str, variant: str, players: int, key: str, recorded: Json) -> Json:
    return REDEALS[game](variant, players, key, recorded)


# --- provable fairness -----------------------------------------------------------------------


def revealed_key(client: FlaskClient, table: OpenTable, seed: str) -> str:
    """Play the table's match to its end; the deal key its revealed seed and salt make,
    once checked against the commitment given at creation (``docs/rules/common.md``,
    "Deterministic shuffling", rule 1)."""
    before = summary(client, table)
    assert (before["seed"], before["salt"]) == (None, None), "revealed before the match ends"
    play_until(client, table, random.Random(f"fair-{table.body['game']}"), finished)
    revealed = summary(client, table)
    assert revealed["seed"] == seed
    key = f"{revealed['salt']}:{revealed['seed']}"
    commitment = hashlib.sha256(key.encode()).hexdigest()
    assert commitment == table.created["seed_commitment"] == revealed["seed_commitment"]
    return key


@pytest.mark.parametrize(("game", "variant", "players"), EVERY_SETUP)
def test_the_revealed_seed_matches_its_commitment_and_the_rules_re_deal_the_log_from_it(
    client: FlaskClient, game: str, variant: str, players: int
) -> None:
    """Every registered game: the public log, opened with the revealed seed and salt, is
    what the rules decide action by action, every deal dealt from the key."""
    seed = f"fair-{variant}"
    table = open_table(
        client, game, variant=variant, players=players, target_score=None, max_deals=2, seed=seed
    )
    key = revealed_key(client, table, seed)
    log = all_events(client, table, PUBLIC)
    opened = event_from_json(game, "TableOpened", log[0]["data"])
    opened = opened._replace(seed=seed, salt=key.partition(":")[0])
    assert recheck(opened, [event_from_json(game, e["type"], e["data"]) for e in log[1:]]) == []
    started = SPECS[game].landmarks.deal_started.__name__
    deals = [e["data"] for e in log if e["type"] == started]
    assert [(d["deal"], d["seed"]) for d in deals] == [(1, f"{key}/1"), (2, f"{key}/2")]


@pytest.mark.parametrize(("game", "variant", "players"), WRITTEN_OUT)
def test_the_revealed_seed_matches_its_commitment_and_re_deals_every_recorded_deal(
    client: FlaskClient, game: str, variant: str, players: int
) -> None:
    """The games' deals as their rules texts say, written out here, not taken from the
    engine."""
    seed = f"fair-{variant}"
    table = open_table(
        client, game, variant=variant, players=players, target_score=None, max_deals=2, seed=seed
    )
    key = revealed_key(client, table, seed)
    deals = [e["data"] for e in all_events(client, table, PUBLIC) if e["type"] == "DealStarted"]
    assert [d["deal"] for d in deals] == [1, 2]
    for recorded in deals:
        assert recorded == redeal(game, variant, players, key, recorded), recorded["deal"]


def test_a_server_chosen_seed_is_committed_at_creation_and_re_deals_once_revealed(
    client: FlaskClient,
) -> None:
    table = open_table(client, **AUDIT_TABLE, seed=None, max_deals=2)
    commitment = table.created["seed_commitment"]
    assert len(commitment) == 64
    play_until(client, table, random.Random(5), finished)
    revealed = summary(client, table)
    key = f"{revealed['salt']}:{revealed['seed']}"
    assert hashlib.sha256(key.encode()).hexdigest() == commitment
    for e in all_events(client, table, PUBLIC):
        if e["type"] == "DealStarted":
            assert e["data"] == redeal("bottle-imp", "standard", 3, key, e["data"])


# --- deal history ----------------------------------------------------------------------------

BOTTLE_IMP = SPECS["bottle-imp"]


def seeds_in(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "seed":
                yield inner
            else:
                yield from seeds_in(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from seeds_in(inner)


def bottle_imp_in_play(
    client: FlaskClient, plays: int = 5, *, rng_seed: int = 11, **play: Any
) -> tuple[OpenTable, Json]:
    """A Bottle Imp table of three (two deals) with ``plays`` cards played in deal 1."""
    table = open_table(client, **AUDIT_TABLE, max_deals=2)

    def enough(s: Json) -> bool:
        return (
            s["phase"] == "playing" and 3 * s["tricks_played"] + len(s["trick"]["cards"]) >= plays
        )

    return table, play_until(client, table, random.Random(rng_seed), enough, **play)


def recorded_body(entry: Json) -> Json:
    """The action body a recorded Bottle Imp event stands for."""
    kind = {"CardPlayed": "play", "CardDiscarded": "discard", "CardsPassed": "pass"}
    return {"type": kind[entry["type"]], **entry["data"]}


def test_the_organiser_sees_a_deal_in_progress_whole(client: FlaskClient) -> None:
    table, now = bottle_imp_in_play(client, plays=5)
    told = history(client, table, 1)
    assert (told["table"], told["deal"], told["dealer"]) == (table.id, 1, 0)
    assert told["scored"] is False and told["score"] is None
    assert [len(hand) for hand in told["dealt"]["hands"]] == [12, 12, 12]
    log = all_events(client, table)
    assert told["dealt"]["seed"] == f"{log[0]['data']['salt']}:{table.body['seed']}/1"
    assert [e["version"] for e in told["events"]] == list(range(2, now["version"] + 1))
    assert [(e["type"], e["data"]) for e in told["events"]] == [
        (e["type"], e["data"]) for e in log[1:]
    ]
    choices = [e for e in told["events"] if e["by"] != "engine" and e["seat"] is not None]
    assert len(choices) == 3 + 3 + 5  # discards, passes, plays
    for e in choices:
        assert recorded_body(e) in e["legal"], e
    assert told["tricks"] == [e["data"] for e in told["events"] if e["type"] == "TrickCompleted"]
    assert len(told["tricks"]) == 1


def test_a_seat_sees_its_own_hand_and_choices_but_nothing_hidden_of_the_others(
    client: FlaskClient,
) -> None:
    table, now = bottle_imp_in_play(client, plays=4)
    whole = history(client, table, 1)
    seat = 1
    mine = history(client, table, 1, table.seat(seat))
    assert mine["dealt"]["hands"] == [None, whole["dealt"]["hands"][seat], None]
    assert list(seeds_in(mine)) == [None, None]  # dealt, and the DealStarted event
    assert [(e["version"], e["type"], e["by"]) for e in mine["events"]] == [
        (e["version"], e["type"], e["by"]) for e in whole["events"]
    ]
    for seen, real in zip(mine["events"], whole["events"], strict=True):
        if "legal" in real:
            expected = real["legal"] if real["seat"] == seat else None
            assert seen["legal"] == expected, (seen, real)
    played = {e["data"]["card"] for e in whole["events"] if e["type"] == "CardPlayed"}
    known = set(whole["dealt"]["hands"][seat]) | set(now["received"][seat]) | played | {19}
    leaked = cards_in(BOTTLE_IMP, mine) - known
    assert not leaked, f"seat {seat}'s history shows cards it may not know: {sorted(leaked)}"


def test_the_public_sees_no_hidden_card_of_a_deal_in_progress(client: FlaskClient) -> None:
    table, _ = bottle_imp_in_play(client, plays=4)
    whole = history(client, table, 1)
    public = history(client, table, 1, PUBLIC)
    assert public["dealt"]["hands"] == [None, None, None]
    assert all(e.get("legal") is None for e in public["events"])
    played = {e["data"]["card"] for e in whole["events"] if e["type"] == "CardPlayed"}
    leaked = cards_in(BOTTLE_IMP, public) - played - {19}
    assert not leaked, f"the public history shows hidden cards {sorted(leaked)}"


def test_a_scored_deal_is_public_whole_and_its_seed_once_the_match_ends(
    client: FlaskClient,
) -> None:
    table = open_table(client, **AUDIT_TABLE, max_deals=2)
    rng = random.Random(3)
    play_until(client, table, rng, lambda s: s["deal"] == 2)
    whole = history(client, table, 1)
    assert whole["scored"] is True
    for viewer in (PUBLIC, table.seat(0), table.seat(2)):
        seen = history(client, table, 1, viewer)
        assert without_seeds(seen) == without_seeds(whole)
        assert set(seeds_in(seen)) == {None}, "the seed is shown before the match ends"
    assert history(client, table, 2, PUBLIC)["dealt"]["hands"] == [None, None, None]

    play_until(client, table, rng, finished)
    for deal in (1, 2):
        assert history(client, table, deal, PUBLIC) == history(client, table, deal)
    salt = summary(client, table)["salt"]
    assert history(client, table, 2, PUBLIC)["dealt"]["seed"] == f"{salt}:{table.body['seed']}/2"


def test_every_recorded_choice_lists_the_alternatives_the_engine_offered_then(
    client: FlaskClient,
) -> None:
    table = open_table(client, **AUDIT_TABLE, max_deals=2)
    play_until(client, table, random.Random(8), lambda s: s["deal"] == 2)
    checked = 0
    for e in history(client, table, 1, PUBLIC)["events"]:
        if "legal" not in e:
            continue
        body = recorded_body(e)
        before = get_state(client, table, version=e["version"] - 1)
        offered = [
            a
            for a in before["legal_actions"]
            if a.get("seat") == e["seat"] and a["type"] == body["type"]
        ]
        assert e["legal"] == offered, e["version"]
        assert body in e["legal"]
        checked += 1
    assert checked == 3 + 3 + 33  # three discards, three passes, every card played


def test_a_suspected_revoke_is_judged_from_the_alternatives_the_seat_had(
    client: FlaskClient,
) -> None:
    table = open_table(client, **AUDIT_TABLE, max_deals=1)
    play_until(client, table, random.Random(8), finished)
    told = history(client, table, 1, PUBLIC)
    off_suit: list[tuple[Json, str]] = []
    trick: list[int] = []
    for e in told["events"]:
        if e["type"] == "TrickCompleted":
            trick = []
        if e["type"] != "CardPlayed":
            continue
        card = e["data"]["card"]
        if trick:
            led = SUIT_OF[trick[0]]
            hand = get_state(client, table, version=e["version"] - 1)["hands"][e["seat"]]
            could = sorted(a["card"] for a in e["legal"])
            followers = [c for c in hand if SUIT_OF[c] == led]
            assert could == sorted(followers or hand), (e, hand)  # follow suit if able
            if SUIT_OF[card] != led:
                off_suit.append((e, led))
        trick.append(card)
    assert off_suit, "nobody failed to follow suit in this deal: pick another seed"
    suspect, led = off_suit[0]
    # "Was that a revoke?" No: the seat could only play cards of other suits.
    assert suspect["legal"], suspect
    assert all(SUIT_OF[a["card"]] != led for a in suspect["legal"]), suspect


def test_the_history_shows_each_trick_with_its_cards_winner_and_bottle_and_the_score_line(
    client: FlaskClient,
) -> None:
    table = open_table(client, **AUDIT_TABLE, max_deals=1)
    play_until(client, table, random.Random(4), finished)
    told = history(client, table, 1, PUBLIC)
    plays = [e["data"] for e in told["events"] if e["type"] == "CardPlayed"]
    assert len(told["tricks"]) == 11
    assert [c for t in told["tricks"] for c in t["cards"]] == [p["card"] for p in plays]
    assert [s for t in told["tricks"] for s in t["seats"]] == [p["seat"] for p in plays]
    price, owner = 19, None
    for number, trick in enumerate(told["tricks"], start=1):  # rule 4, recomputed here
        assert trick["trick"] == number
        below = [c for c in trick["cards"] if c < price]
        winning = max(below) if below else max(trick["cards"])
        assert trick["winner"] == trick["seats"][trick["cards"].index(winning)]
        if below:
            price, owner = winning, trick["winner"]
        assert (trick["price"], trick.get("owner")) == (price, owner), trick
    score = told["score"]
    assert score == next(e["data"] for e in told["events"] if e["type"] == "DealScored")
    assert (score["price"], score["owner"]) == (price, owner)
    assert score["totals"] == summary(client, table)["totals"]
    discarded = [e["data"]["card"] for e in told["events"] if e["type"] == "CardDiscarded"]
    assert sorted(score["devil_trick"]) == sorted(discarded)


def test_the_history_says_who_did_each_thing(client: FlaskClient) -> None:
    answers: list[Json] = []
    table, _ = bottle_imp_in_play(client, plays=7, by_seats=True, answers=answers)
    ruling = {"type": "adjust", "seat": 2, "points": 3, "reason": "slow play"}
    answers.append({**act(client, table, ruling), "by": "organiser"})
    expected: dict[int, str] = {}
    for answer in answers:
        for i, e in enumerate(answer["events"]):
            expected[e["version"]] = answer["by"] if i == 0 else "engine"
    told = history(client, table, 1)
    assert {e["version"]: e["by"] for e in told["events"]} == expected
    kinds = {by if not by.startswith("seat ") else "seat" for by in expected.values()}
    assert kinds == {"organiser", "seat", "engine"}
    adjusted = [e for e in told["events"] if e["type"] == "Adjusted"]
    assert [(e["by"], e["data"]) for e in adjusted] == [
        ("organiser", {"seat": 2, "points": 3, "reason": "slow play"})
    ]


@pytest.mark.parametrize("deal", [0, 2, 3])
def test_a_deal_not_played_has_no_history(client: FlaskClient, deal: int) -> None:
    table, _ = bottle_imp_in_play(client, plays=1)
    response = client.get(f"/tables/{table.id}/deals/{deal}", headers=ORGANISER)
    assert_problem(response, 404, "not_found")


def test_a_table_that_does_not_exist_has_no_deal_history(client: FlaskClient) -> None:
    response = client.get(f"/tables/{'0' * 32}/deals/1", headers=ORGANISER)
    assert_problem(response, 404, "not_found")


def test_a_deal_history_comes_as_json_or_text_only(client: FlaskClient) -> None:
    table, _ = bottle_imp_in_play(client, plays=1)
    body = assert_problem(
        client.get(f"/tables/{table.id}/deals/1?format=xml", headers=ORGANISER),
        422,
        "validation_error",
    )
    assert "format" in body["errors"]
    assert history(client, table, 1) == ok_json(
        client.get(f"/tables/{table.id}/deals/1?format=json", headers=ORGANISER)
    )


def text_record(client: FlaskClient, table: OpenTable, deal: int, headers: Headers) -> str:
    response = client.get(f"/tables/{table.id}/deals/{deal}?format=text", headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/plain"
    return response.get_data(as_text=True)


def line_of(text: str, version: int) -> str:
    found = [line for line in text.splitlines() if line.split()[:1] == [f"v{version}"]]
    assert len(found) == 1, (version, text)
    return found[0]


def test_the_plain_text_hand_record_names_every_event_and_who_did_it(
    client: FlaskClient,
) -> None:
    table = open_table(client, **AUDIT_TABLE, max_deals=1)
    play_until(client, table, random.Random(6), finished)
    text = text_record(client, table, 1, PUBLIC)
    assert table.id in text.splitlines()[0] and "deal 1" in text.splitlines()[0]
    told = history(client, table, 1, PUBLIC)
    for e in told["events"]:
        line = line_of(text, e["version"])
        assert e["type"] in line and e["by"] in line, line
    assert any(line.startswith("Score:") for line in text.splitlines())


def test_a_seats_plain_text_record_hides_the_other_seats_cards(client: FlaskClient) -> None:
    table, _ = bottle_imp_in_play(client, plays=2)
    text = text_record(client, table, 1, table.seat(0))
    told = history(client, table, 1)
    for e in told["events"]:
        if e["type"] == "CardDiscarded":
            line = line_of(text, e["version"])
            shown = f"card={e['data']['card']}"
            assert (shown in line) == (e["seat"] == 0), line
            if e["seat"] != 0:
                assert "card=?" in line and "could:" not in line, line


@pytest.mark.parametrize(("game", "variant", "players"), EVERY_SETUP)
def test_every_game_tells_each_deal_event_by_event(
    client: FlaskClient, game: str, variant: str, players: int
) -> None:
    table = open_table(
        client, game, variant=variant, players=players, target_score=None, max_deals=2, seed="story"
    )
    final = play_until(client, table, random.Random(f"story-{game}"), finished)
    log = all_events(client, table)
    first = next(e["version"] for e in log if e["type"] == "DealStarted")
    told: list[Json] = []
    for deal in (1, 2):
        story = history(client, table, deal, PUBLIC)
        assert story == history(client, table, deal), "the match is over: all is public"
        assert (story["deal"], story["scored"]) == (deal, True)
        assert story["score"] is not None
        assert story["events"][0]["type"] == "DealStarted"
        assert story["dealt"] == story["events"][0]["data"]
        for e in story["events"]:
            if e["by"] != "engine" and isinstance(e["seat"], int):
                assert e["legal"], e
        text = text_record(client, table, deal, PUBLIC)
        for e in story["events"]:
            assert e["type"] in line_of(text, e["version"])
        told += story["events"]
    assert [e["version"] for e in told] == list(range(first, final["version"] + 1))
    assert [(e["type"], e["data"]) for e in told] == [
        (e["type"], e["data"]) for e in log[first - 1 :]
    ]
    assert_problem(client.get(f"/tables/{table.id}/deals/3"), 404, "not_found")


# --- verification: rows changed behind the service's back -------------------------------------


@pytest.fixture(
    scope="module",
    params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)],
)
def backend_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('tamper') / 'tampered.db'}"
    url: str = request.getfixturevalue("damage_postgres_url")
    return url


#: The tampering tests' server key: a restarted process is the same server.
BACKEND_KEY = new_private_key()


@pytest.fixture(scope="module")
def backend_app(backend_url: str) -> Iterator[Flask]:
    app = make_test_app(backend_url, signing_key=BACKEND_KEY)
    yield app
    get_database(app).engine.dispose()


def stored_rows(app: Flask, table_id: str) -> list[Any]:
    query = select(events).where(events.c.stream == table_id).order_by(events.c.version)
    with get_database(app).engine.connect() as connection:
        return list(connection.execute(query))


def change_row(app: Flask, table_id: str, version: int, **values: Any) -> None:
    where = (events.c.stream == table_id) & (events.c.version == version)
    with tampering(get_database(app).engine) as connection:
        assert connection.execute(update(events).where(where).values(**values)).rowcount == 1


def delete_row(app: Flask, table_id: str, version: int) -> None:
    where = (events.c.stream == table_id) & (events.c.version == version)
    with tampering(get_database(app).engine) as connection:
        assert connection.execute(delete(events).where(where)).rowcount == 1


def forge(app: Flask, table_id: str, version: int, change: Callable[[Json], Json]) -> int:
    """A consistent forgery: rewrite one event's data, then re-hash it and every later row
    with the documented chain, and move the stream's head, as an insider with database
    access could. The first version from ``version`` on whose stored signature it breaks."""
    rows = stored_rows(app, table_id)
    previous = rows[version - 2].hash if version > 1 else GENESIS
    with tampering(get_database(app).engine) as connection:
        for row in rows[version - 1 :]:
            data = json.loads(row.data)
            if row.version == version:
                data = change(data)
            canonical = canonical_event(
                table_id, row.version, row.type, row.schema, data, row.recorded_at, row.actor
            )
            previous = chain_hash(previous, canonical)
            connection.execute(
                update(events)
                .where(events.c.id == row.id)
                .values(data=canonical_json(data), hash=previous)
            )
        connection.execute(update(streams).where(streams.c.id == table_id).values(head=previous))
    return int(next(r.version for r in rows[version - 1 :] if r.signature is not None))


def stack_the_deal(data: Json) -> Json:
    """Swap seat 0's lowest card with seat 1's highest: a stacked deck."""
    hands = data["hands"]
    low, high = hands[0][0], hands[1][-1]
    hands[0] = sorted([high, *hands[0][1:]])
    hands[1] = sorted([*hands[1][:-1], low])
    return data


def first_of(rows: list[Any], kind: str) -> Any:
    return next(r for r in rows if r.type == kind)


def tamper_card(app: Flask, table_id: str, rows: list[Any]) -> tuple[int, set[str]]:
    row = first_of(rows, "CardPlayed")
    data = json.loads(row.data)
    other = next(c for c in BOTTLE_IMP_DECK if c != data["card"])
    change_row(app, table_id, row.version, data=canonical_json({**data, "card": other}))
    return row.version, {"broken_chain"}


def tamper_time(app: Flask, table_id: str, rows: list[Any]) -> tuple[int, set[str]]:
    row = first_of(rows, "CardPlayed")
    change_row(app, table_id, row.version, recorded_at="2020-01-01T00:00:00.000000Z")
    return row.version, {"broken_chain"}


def tamper_actor(app: Flask, table_id: str, rows: list[Any]) -> tuple[int, set[str]]:
    row = first_of(rows, "CardPlayed")
    assert row.actor == "organiser"
    change_row(app, table_id, row.version, actor="seat 2")
    return row.version, {"broken_chain"}


def tamper_json(app: Flask, table_id: str, rows: list[Any]) -> tuple[int, set[str]]:
    row = first_of(rows, "CardPlayed")
    change_row(app, table_id, row.version, data='{"seat": 0, "card": ')
    return row.version, {"unreadable_event"}


def tamper_gap(app: Flask, table_id: str, rows: list[Any]) -> tuple[int, set[str]]:
    row = first_of(rows, "CardPlayed")
    delete_row(app, table_id, row.version)
    return row.version, {"missing_event"}


def tamper_engine_gap(app: Flask, table_id: str, rows: list[Any]) -> tuple[int, set[str]]:
    row = first_of(rows, "TrickCompleted")
    delete_row(app, table_id, row.version)
    return row.version, {"missing_event"}


def tamper_tail(app: Flask, table_id: str, rows: list[Any]) -> tuple[int, set[str]]:
    """The last row (a card led to a new trick) deleted: what is left is a chained log the
    engine accepts, but the stream's head (``streams.version``, ``streams.head``) names a
    row that is gone."""
    assert rows[-1].type == "CardPlayed"
    delete_row(app, table_id, rows[-1].version)
    return rows[-1].version, {"missing_event", "broken_chain", "mismatch"}


def tamper_deal(app: Flask, table_id: str, rows: list[Any]) -> tuple[int, set[str]]:
    row = first_of(rows, "DealStarted")
    forge(app, table_id, row.version, stack_the_deal)
    return row.version, {"mismatch", "rejected", "bad_signature"}


def tamper_salt(app: Flask, table_id: str, rows: list[Any]) -> tuple[int, set[str]]:
    """The salt dropped from ``TableOpened`` and every hash recomputed: the log now claims
    deals from the bare seed, which the re-deal refutes at the first deal; and the head
    signed when the table opened no longer matches."""
    assert "salt" in json.loads(rows[0].data)
    signed = forge(app, table_id, 1, lambda data: {k: v for k, v in data.items() if k != "salt"})
    return signed, {"bad_signature"}


TAMPERING = {
    "a-card-played-changed": tamper_card,
    "recorded-at-changed": tamper_time,
    "actor-changed": tamper_actor,
    "data-not-json": tamper_json,
    "a-card-played-deleted": tamper_gap,
    "a-trick-completed-deleted": tamper_engine_gap,
    "the-last-row-deleted": tamper_tail,
    "seeded-deal-stacked-and-rehashed": tamper_deal,
    "salt-dropped-and-rehashed": tamper_salt,
}


def played_table(client: FlaskClient) -> OpenTable:
    table = open_table(client, **AUDIT_TABLE, max_deals=2, seed="tamper")
    play_until(  # ends with a card led to the third trick
        client,
        table,
        random.Random(2),
        lambda s: (
            s["phase"] == "playing" and (s["tricks_played"], len(s["trick"]["cards"])) == (2, 1)
        ),
    )
    return table


@pytest.mark.parametrize("tamper", TAMPERING.values(), ids=TAMPERING.keys())
def test_verify_reports_a_stored_row_changed_in_the_database(
    backend_app: Flask, tamper: Callable[..., tuple[int, set[str]]]
) -> None:
    client = backend_app.test_client()
    table = played_table(client)
    rows = stored_rows(backend_app, table.id)
    assert verify(client, table.id) == {
        "ok": True,
        "events": len(rows),
        "head": rows[-1].hash,
        "problems": [],
    }

    version, codes = tamper(backend_app, table.id, rows)

    report = verify(client, table.id)
    assert report["ok"] is False, report
    first = report["problems"][0]
    assert first["version"] == version and first["code"] in codes, report["problems"]
    assert all(p["version"] >= version for p in report["problems"]), report["problems"]
    if tamper in (tamper_deal, tamper_salt):  # a consistent forgery: the engine objects,
        codes = {p["code"] for p in report["problems"]}  # and the stored signatures
        assert "broken_chain" not in codes and {"mismatch", "bad_signature"} <= codes


def survey(client: FlaskClient, table_id: str) -> list[tuple[str, int, str | None]]:
    """Every route of the table, as the organiser: (route, status, problem code)."""
    answers = []
    for route in ("", "/state", "/events", "/deals/1", "/deals/1?format=text", "/export"):
        response = client.get(f"/tables/{table_id}{route}", headers=ORGANISER)
        answers.append((f"GET {route or '/'}", response))
    for route in ("/state", "/deals/1"):
        answers.append((f"GET {route} as public", client.get(f"/tables/{table_id}{route}")))
    ruling = {"type": "adjust", "seat": 0, "points": 1, "reason": "probe"}
    response = client.post(f"/tables/{table_id}/actions", json=ruling, headers=ORGANISER)
    answers.append(("POST /actions", response))
    answers.append(("GET /verify", client.get(f"/tables/{table_id}/verify", headers=ORGANISER)))
    out = []
    for name, response in answers:
        code = response.get_json().get("code") if response.is_json else None
        out.append((name, response.status_code, code))
    return out


def assert_damage_shown(client: FlaskClient, table_id: str, version: int) -> None:
    """What docs/api.md ("Signatures") promises of a damaged stream, in one process: every
    write is 409 ``log_damaged`` naming the first bad version, and reads say ``damaged``
    there (or, the table's opening itself damaged, answer 409 ``log_damaged`` too)."""
    ruling = {"type": "adjust", "seat": 0, "points": 1, "reason": "probe"}
    refused = client.post(f"/tables/{table_id}/actions", json=ruling, headers=ORGANISER)
    assert_problem(refused, 409, "log_damaged")
    assert refused.get_json()["version"] == version
    for route, headers in [("", ORGANISER), ("/state", ORGANISER), ("/state", {})]:
        response = client.get(f"/tables/{table_id}{route}", headers=headers)
        if version == 1:
            assert_problem(response, 409, "log_damaged")
            continue
        read = ok_json(response)
        assert read["damaged"]["version"] == version, (route, read["damaged"])
        assert read["version"] == version - 1, route
    report = verify(client, table_id)
    assert report["ok"] is False and report["problems"][0]["version"] == version, report


@pytest.mark.parametrize("tamper", TAMPERING.values(), ids=TAMPERING.keys())
def test_a_corrupted_table_is_refused_by_the_running_process_and_a_restarted_one(
    backend_app: Flask, backend_url: str, tamper: Callable[..., tuple[int, set[str]]]
) -> None:
    """The process that played the table has it cached at its head (warm); a restarted one
    has nothing cached (cold). Both refuse every write and show the damage, nothing is
    appended, and no route answers a 5xx other than 503 ``unreadable_log``."""
    client = backend_app.test_client()
    table = played_table(client)
    assert ok_json(client.get(f"/tables/{table.id}", headers=ORGANISER))["damaged"] is None
    version, _ = tamper(backend_app, table.id, stored_rows(backend_app, table.id))
    rows = len(stored_rows(backend_app, table.id))

    restarted = make_test_app(backend_url, migrate=False, signing_key=BACKEND_KEY)  # uncached
    try:
        for process in (client, restarted.test_client()):
            assert_damage_shown(process, table.id, version)
        seen = [("restarted", *a) for a in survey(restarted.test_client(), table.id)]
    finally:
        get_database(restarted).engine.dispose()
    seen += [("running", *a) for a in survey(client, table.id)]
    wrong = [s for s in seen if s[2] >= 500 and (s[2], s[3]) != (503, "unreadable_log")]
    assert not wrong, f"5xx other than 503 unreadable_log: {wrong}"
    assert len(stored_rows(backend_app, table.id)) == rows  # nothing built on the damage


def test_the_guard_catches_a_running_process_that_trusts_its_cache(
    backend_app: Flask, backend_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mutation check: a warm process that trusts its cached log over the database (the
    guard's stamp ignored) takes a write on the damage, and the test above catches it."""
    monkeypatch.setattr(Guard, "trusts", lambda self, connection, stamp: True)
    with pytest.raises(AssertionError, match="Adjusted"):  # the probe's ruling, accepted
        test_a_corrupted_table_is_refused_by_the_running_process_and_a_restarted_one(
            backend_app, backend_url, tamper_card
        )


def test_verify_is_for_the_organiser_only(client: FlaskClient) -> None:
    table = open_table(client, **AUDIT_TABLE)
    assert_problem(client.get(f"/tables/{table.id}/verify"), 401, "unauthorized")
    response = client.get(f"/tables/{table.id}/verify", headers=table.seat(0))
    assert_problem(response, 403, "forbidden")
    response = client.get(f"/tables/{'0' * 32}/verify", headers=ORGANISER)
    assert_problem(response, 404, "not_found")


def test_a_new_table_verifies_with_one_event(client: FlaskClient) -> None:
    table = open_table(client, **AUDIT_TABLE)
    report = verify(client, table.id)
    assert (report["ok"], report["events"], report["problems"]) == (True, 1, [])
    assert report["head"] == json.loads(export_of(client, table.id).splitlines()[0])["head"]


# --- export and import -----------------------------------------------------------------------


def test_an_export_is_a_header_then_each_event_with_its_chained_hash(client: FlaskClient) -> None:
    table, now = bottle_imp_in_play(client, plays=4)
    response = client.get(f"/tables/{table.id}/export?reveal=true", headers=ORGANISER)
    assert response.status_code == 200 and response.mimetype == NDJSON
    assert f"table-{table.id}.jsonl" in response.headers["Content-Disposition"]
    header, *lines = [json.loads(line) for line in response.get_data(as_text=True).splitlines()]
    opened = all_events(client, table)[0]["data"]
    assert header == {
        "format": "cardledger-table",
        "format_version": 1,
        "id": table.id,
        "game": "bottle-imp",
        "variant": "standard",
        "events": now["version"],
        "head": lines[-1]["hash"],
        "signature": header["signature"],  # checked in test_signatures.py
        "key_id": ok_json(client.get("/signing-key"))["key_id"],
    }
    assert lines[0]["type"] == "TableOpened" and lines[0]["data"] == opened
    previous = GENESIS
    for version, line in enumerate(lines, start=1):
        assert set(line) == {"version", "type", "schema", "recorded_at", "by", "data", "hash"}
        assert line["version"] == version
        canonical = canonical_event(
            table.id,
            version,
            line["type"],
            line["schema"],
            line["data"],
            line["recorded_at"],
            line["by"],
        )
        previous = chain_hash(previous, canonical)
        assert line["hash"] == previous, version
    assert verify(client, table.id)["head"] == previous


def test_a_running_tables_export_leaves_out_the_seed_and_salt_unless_asked(
    client: FlaskClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file travels: with the seed and salt in it anyone holding it could deal every hand
    still to come. The rest of the record is as revealed, line for line."""
    table, _ = bottle_imp_in_play(client, plays=4)
    revealed = export_of(client, table.id, reveal=True).splitlines()
    kept = export_of(client, table.id).splitlines()
    header, opened = json.loads(kept[0]), json.loads(kept[1])
    assert header == {**json.loads(revealed[0]), "redacted": ["seed", "salt"]}
    assert (opened["data"]["seed"], opened["data"]["salt"], opened["redacted"]) == (
        None, None, ["seed", "salt"]
    )  # fmt: skip
    for mine, whole in zip(kept[1:], revealed[1:], strict=True):
        line, full = json.loads(mine), json.loads(whole)
        assert line["hash"] == full["hash"]  # every stored hash, as given
        if "redacted" in line:  # the opening, and each deal (its seed is made of both)
            assert all(line["data"][k] is None for k in line["redacted"]), line
            assert {**full["data"], **dict.fromkeys(line["redacted"])} == line["data"]
        else:
            assert line == full
    assert [json.loads(line)["type"] for line in kept[1:] if "redacted" in line] == [
        "TableOpened", "DealStarted"
    ]  # fmt: skip
    salt = json.loads(revealed[1])["data"]["salt"]
    assert table.body["seed"] not in "".join(kept) and salt not in "".join(kept)
    path = tmp_path / "running.jsonl"
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    assert cardledger(["verify", str(path)]) == 1
    assert "redacted" in capsys.readouterr().out  # checked as far as it can be, and says so
    response = client.post(
        "/tables/import", data="\n".join(kept) + "\n", headers=ORGANISER, content_type=NDJSON
    )
    assert_problem(response, 422, "import_rejected")


def test_only_the_organiser_exports_a_match_in_progress(client: FlaskClient) -> None:
    table, _ = bottle_imp_in_play(client, plays=1)
    assert export_of(client, table.id)
    for headers in (PUBLIC, table.seat(0), table.seat(2)):
        response = client.get(f"/tables/{table.id}/export", headers=headers)
        assert_problem(response, 403, "forbidden")
    response = client.get(f"/tables/{'0' * 32}/export", headers=ORGANISER)
    assert_problem(response, 404, "not_found")


def test_anyone_exports_a_finished_match(client: FlaskClient) -> None:
    table = open_table(client, **AUDIT_TABLE)
    play_until(client, table, random.Random(1), finished)
    whole = export_of(client, table.id)
    for headers in (PUBLIC, table.seat(1)):
        assert export_of(client, table.id, headers) == whole


@pytest.mark.parametrize("finish", [True, False], ids=["finished", "unfinished"])
@pytest.mark.parametrize(("game", "variant", "players"), EVERY_SETUP)
def test_an_exported_table_imports_elsewhere_with_the_same_state_and_totals(
    client: FlaskClient,
    second_client: FlaskClient,
    game: str,
    variant: str,
    players: int,
    finish: bool,
) -> None:
    table = open_table(
        client,
        game,
        variant=variant,
        players=players,
        target_score=None,
        max_deals=1 if finish else 5,  # unfinished: a deal all pass in must not end the match
        seed=f"trip-{game}-{variant}",
    )
    rng = random.Random(f"trip-{game}-{variant}-{players}")
    if finish:
        play_until(client, table, rng, finished)
    else:
        play_until(client, table, rng, lambda s: s["version"] >= 8)
        act(client, table, {"type": "adjust", "seat": 1, "points": -5, "reason": "late"})
        play_until(client, table, rng, lambda s: s["version"] >= 14)
    original = export_of(client, table.id, reveal=not finish)

    response = import_file(second_client, original)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    assert (created["id"], created["game"], created["variant"]) == (table.id, game, variant)
    assert created["seed_commitment"] == table.created["seed_commitment"]
    assert [(s["seat"], s["name"]) for s in created["seats"]] == [
        (s["seat"], s["name"]) for s in table.created["seats"]
    ]
    copy = OpenTable(table.id, [s["token"] for s in created["seats"]], table.body, created)
    assert all(copy.tokens) and not set(copy.tokens) & set(table.tokens)

    here = summary(second_client, copy)
    assert but_import(here) == but_import(summary(client, table))
    first_key = ok_json(client.get("/signing-key"))["key_id"]
    assert (here["import"]["signed"], here["import"]["key_id"]) == (True, first_key)
    assert summary(client, table)["import"] is None
    assert get_state(second_client, copy) == get_state(client, table)
    assert all_events(second_client, copy) == all_events(client, table)
    assert created["version"] == get_state(client, table)["version"]
    for seat in range(players):
        assert get_state(second_client, copy, copy.seat(seat)) == get_state(
            client, table, table.seat(seat)
        )
    old_token = second_client.get(f"/tables/{table.id}/state", headers=table.seat(0))
    assert_problem(old_token, 401, "unauthorized")
    report = verify(second_client, table.id)
    assert report["ok"] is True and report["head"] == verify(client, table.id)["head"]
    # The copy exports as it came, under its origin's signature, never its importer's.
    assert export_of(second_client, table.id, reveal=True) == original

    assert_problem(import_file(second_client, original), 409, "table_exists")
    assert_problem(import_file(client, original), 409, "table_exists")

    # A record of play elsewhere, never a table to play on here (a mid-match export must
    # not be played on differently under the same id).
    if not finish:
        action = get_state(client, table)["legal_actions"][0]
        assert_problem(post_action(second_client, copy, action), 409, "imported_read_only")
    ruling = {"type": "adjust", "seat": 0, "points": 1, "reason": "probe"}
    assert_problem(post_action(second_client, copy, ruling), 409, "imported_read_only")
    assert get_state(second_client, copy)["version"] == created["version"]


def test_only_the_organiser_imports(client: FlaskClient, second_client: FlaskClient) -> None:
    table = open_table(client, **AUDIT_TABLE)
    exported = export_of(client, table.id)
    assert_problem(import_file(second_client, exported, headers=PUBLIC), 401, "unauthorized")
    other = open_table(second_client, **AUDIT_TABLE)
    response = import_file(second_client, exported, headers=other.seat(0))
    assert_problem(response, 403, "forbidden")
    assert second_client.get(f"/tables/{table.id}").status_code == 404


# Forged files: each case changes a good export (a finished three-player match, lines
# numbered from 1, the header first) and names the first bad line.


def with_line(lines: list[str], number: int, change: Callable[[Json], Json]) -> list[str]:
    out = list(lines)
    out[number - 1] = canonical_json(change(json.loads(out[number - 1])))
    return out


def first_line_of(lines: list[str], kind: str) -> int:
    return next(i for i, line in enumerate(lines, start=1) if json.loads(line)["type"] == kind)


def other_card(item: Json) -> Json:
    card = item["data"]["card"]
    return {**item, "data": {**item["data"], "card": 37 if card != 37 else 36}}


def forged_card(lines: list[str]) -> tuple[list[str], int]:
    number = first_line_of(lines[1:], "CardPlayed") + 1
    return with_line(lines, number, other_card), number


def forged_hash(lines: list[str]) -> tuple[list[str], int]:
    bad = hashlib.sha256(b"forged").hexdigest()
    return with_line(lines, 6, lambda item: {**item, "hash": bad}), 6


def swapped_lines(lines: list[str]) -> tuple[list[str], int]:
    out = list(lines)
    out[6], out[7] = out[7], out[6]
    return out, 7


def truncated(lines: list[str]) -> tuple[list[str], int]:
    return lines[:12], 13  # line 13 and after are missing


def cut_mid_line(lines: list[str]) -> tuple[list[str], int]:
    return [*lines[:9], lines[9][: len(lines[9]) // 2]], 10


def header_of(change: Callable[[Json], Json]) -> Callable[[list[str]], tuple[list[str], int]]:
    def forged(lines: list[str]) -> tuple[list[str], int]:
        return [json.dumps(change(json.loads(lines[0]))), *lines[1:]], 1

    return forged


def not_json(lines: list[str]) -> tuple[list[str], int]:
    return ["this is not an export", *lines[1:]], 1


def event_not_json(lines: list[str]) -> tuple[list[str], int]:
    out = list(lines)
    out[4] = out[4][:-1]
    return out, 5


def appended(lines: list[str]) -> tuple[list[str], int]:
    """One more event after the last, its hash chained on, the header left alone."""
    last = json.loads(lines[-1])
    header = json.loads(lines[0])
    item = {**last, "version": last["version"] + 1, "type": "Adjusted", "by": "organiser"}
    item["data"] = {"seat": 0, "points": 50, "reason": "forged"}
    canonical = canonical_event(
        header["id"],
        item["version"],
        item["type"],
        item["schema"],
        item["data"],
        item["recorded_at"],
        item["by"],
    )
    item["hash"] = chain_hash(last["hash"], canonical)
    return [*lines, canonical_json(item)], len(lines) + 1


def stacked_and_rehashed(lines: list[str]) -> tuple[list[str], int]:
    """A consistent forgery: deal 1 stacked, every hash recomputed, the header's head too."""
    header = json.loads(lines[0])
    items = [json.loads(line) for line in lines[1:]]
    previous = GENESIS
    for item in items:
        if item["type"] == "DealStarted":
            item["data"] = stack_the_deal(item["data"])
        canonical = canonical_event(
            header["id"],
            item["version"],
            item["type"],
            item["schema"],
            item["data"],
            item["recorded_at"],
            item["by"],
        )
        item["hash"] = previous = chain_hash(previous, canonical)
    header["head"] = previous
    return [json.dumps(header), *map(canonical_json, items)], 3  # DealStarted is version 2


def empty(lines: list[str]) -> tuple[list[str], int]:
    return [], 1


FORGERIES = {
    "a-card-changed": forged_card,
    "a-hash-changed": forged_hash,
    "two-lines-swapped": swapped_lines,
    "truncated": truncated,
    "cut-mid-line": cut_mid_line,
    "another-format": header_of(lambda h: {**h, "format": "someone-elses"}),
    "a-newer-format-version": header_of(lambda h: {**h, "format_version": 2}),
    "no-table-id": header_of(lambda h: {k: v for k, v in h.items() if k != "id"}),
    "header-not-json": not_json,
    "an-event-not-json": event_not_json,
    "an-event-appended": appended,
    "stacked-deal-rehashed": stacked_and_rehashed,
    "empty": empty,
}


@pytest.fixture(scope="module")
def good_export(app: Flask) -> list[str]:
    client = app.test_client()
    table = open_table(client, **AUDIT_TABLE, seed="forgery")
    play_until(client, table, random.Random(9), finished)
    return export_of(client, table.id).splitlines()


@pytest.mark.parametrize("forgery", FORGERIES.values(), ids=FORGERIES.keys())
def test_a_forged_export_is_refused_naming_the_first_bad_line(
    second_client: FlaskClient,
    good_export: list[str],
    forgery: Callable[[list[str]], tuple[list[str], int]],
) -> None:
    lines, bad_line = forgery(good_export)
    response = import_file(second_client, "".join(line + "\n" for line in lines))
    body = assert_problem(response, 422, "import_rejected")
    assert body["line"] == bad_line, body
    table_id = json.loads(good_export[0])["id"]
    assert second_client.get(f"/tables/{table_id}").status_code == 404


def test_an_export_whose_header_names_another_table_is_refused(
    second_client: FlaskClient, good_export: list[str]
) -> None:
    header = json.loads(good_export[0]) | {"id": "f" * 32}
    text = "".join(line + "\n" for line in [json.dumps(header), *good_export[1:]])
    body = assert_problem(import_file(second_client, text), 422, "import_rejected")
    assert body["line"] in (1, 2), body  # the header, or the first event hashed for it
    assert second_client.get(f"/tables/{'f' * 32}").status_code == 404


def test_a_file_that_is_not_utf8_is_refused(second_client: FlaskClient) -> None:
    body = assert_problem(
        import_file(second_client, b"\xff\xfe\x00garbage"), 422, "import_rejected"
    )
    assert body["line"] == 1


def test_the_offline_verify_accepts_a_good_export(
    good_export: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.jsonl"
    path.write_text("".join(line + "\n" for line in good_export), encoding="utf-8")
    assert cardledger(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    header = json.loads(good_export[0])
    assert "OK" in out and header["id"] in out and header["head"] in out


@pytest.mark.parametrize("forgery", FORGERIES.values(), ids=FORGERIES.keys())
def test_the_offline_verify_refuses_a_forged_export_naming_the_line(
    good_export: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    forgery: Callable[[list[str]], tuple[list[str], int]],
) -> None:
    lines, bad_line = forgery(good_export)
    path = tmp_path / "table.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    assert cardledger(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"line {bad_line} " in out, out


def test_the_offline_verify_refuses_a_file_that_is_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage\n")
    assert cardledger(["verify", str(path)]) == 1
    assert "line 1 " in capsys.readouterr().out


# --- salted deal keys (docs/rules/common.md, "Deterministic shuffling", rule 1) ------------------


def rehashed(lines: list[str], change: Callable[[Json], Json]) -> list[str]:
    """An export with ``change`` applied to every event line and every hash recomputed, the
    header's head too: a consistent forgery."""
    header = json.loads(lines[0])
    previous = GENESIS
    out = [json.dumps(header)]
    for line in lines[1:]:
        item = change(json.loads(line))
        canonical = canonical_event(
            header["id"],
            item["version"],
            item["type"],
            item["schema"],
            item["data"],
            item["recorded_at"],
            item["by"],
        )
        item["hash"] = previous = chain_hash(previous, canonical)
        out.append(canonical_json(item))
    header["head"] = previous
    out[0] = json.dumps(header)
    return out


def opened_with(change: Callable[[Json], Json]) -> Callable[[Json], Json]:
    def changed(item: Json) -> Json:
        return {**item, "data": change(item["data"])} if item["type"] == "TableOpened" else item

    return changed


def test_a_salted_table_exports_imports_and_verifies_with_its_salt(
    client: FlaskClient,
    second_client: FlaskClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = open_table(client, "bestia", max_deals=2, seed="salted-trip")
    play_until(client, table, random.Random("salted-trip"), finished)
    revealed = summary(client, table)
    salt = revealed["salt"]
    assert re.fullmatch("[0-9a-f]{32}", salt), salt
    original = export_of(client, table.id)
    items = [json.loads(line) for line in original.splitlines()[1:]]
    assert items[0]["type"] == "TableOpened" and items[0]["data"]["salt"] == salt
    deals = [i["data"] for i in items if i["type"] == "DealStarted"]
    assert [d["seed"] for d in deals] == [f"{salt}:salted-trip/{k}" for k in (1, 2)]
    assert verify(client, table.id)["ok"] is True

    response = import_file(second_client, original)
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["seed_commitment"] == table.created["seed_commitment"]
    copy = summary(second_client, table)
    assert (copy["seed"], copy["salt"]) == ("salted-trip", salt)
    assert but_import(copy) == but_import(revealed)
    assert verify(second_client, table.id)["ok"] is True
    assert export_of(second_client, table.id) == original

    path = tmp_path / "salted.jsonl"
    path.write_text(original, encoding="utf-8")
    assert cardledger(["verify", str(path)]) == 0
    assert "OK" in capsys.readouterr().out


FORGED_SALTS: dict[str, Callable[[Json], Json]] = {
    "salt-dropped": lambda data: {k: v for k, v in data.items() if k != "salt"},
    "salt-replaced": lambda data: {**data, "salt": "f" * 32},
    "salt-malformed": lambda data: {**data, "salt": "not-a-salt"},
}


@pytest.mark.parametrize("change", FORGED_SALTS.values(), ids=FORGED_SALTS.keys())
def test_a_salted_export_re_deals_only_with_its_own_salt(
    second_client: FlaskClient,
    good_export: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: Callable[[Json], Json],
) -> None:
    """A consistent forgery of the salt (dropped: the log passed off as one of the bare seed;
    replaced; malformed) is refused, at the first deal or at the salt itself."""
    assert "salt" in json.loads(good_export[1])["data"]
    lines = rehashed(good_export, opened_with(change))
    bad_line = 2 if change is FORGED_SALTS["salt-malformed"] else 3  # TableOpened / deal 1
    body = assert_problem(
        import_file(second_client, "".join(line + "\n" for line in lines)), 422, "import_rejected"
    )
    assert body["line"] == bad_line, body
    path = tmp_path / "forged.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    assert cardledger(["verify", str(path)]) == 1
    assert f"line {bad_line} " in capsys.readouterr().out


def test_a_stacked_deck_at_a_salted_table_is_still_refused(
    second_client: FlaskClient,
    good_export: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert "salt" in json.loads(good_export[1])["data"]

    def stacked(item: Json) -> Json:  # deal 1 stacked; TableOpened, salt and all, unchanged
        if item["type"] == "DealStarted" and item["data"]["deal"] == 1:
            return {**item, "data": stack_the_deal(item["data"])}
        return item

    lines = rehashed(good_export, stacked)
    text = "".join(line + "\n" for line in lines)
    body = assert_problem(import_file(second_client, text), 422, "import_rejected")
    assert body["line"] == 3, body
    path = tmp_path / "stacked.jsonl"
    path.write_text(text, encoding="utf-8")
    assert cardledger(["verify", str(path)]) == 1
    assert "line 3 " in capsys.readouterr().out


# --- directors' rulings ----------------------------------------------------------------------

RULING = {"type": "adjust", "seat": 1, "points": -10, "reason": "revoke in deal 2"}


@pytest.mark.parametrize(("game", "variant", "players"), ONE_SETUP_PER_GAME)
def test_a_ruling_changes_the_totals_and_shows_in_the_deal_history(
    client: FlaskClient, game: str, variant: str, players: int
) -> None:
    table = open_table(
        client, game, variant=variant, players=players, target_score=None, max_deals=2
    )
    rng = random.Random(f"ruling-{game}")
    before = play_until(client, table, rng, lambda s: s["deal"] == 1 and s["version"] >= 4)
    answer = act(client, table, RULING)
    assert [(e["type"], e["data"]) for e in answer["events"]] == [
        ("Adjusted", {k: v for k, v in RULING.items() if k != "type"})
    ]
    expected = list(before["totals"])
    expected[1] -= 10
    assert summary(client, table)["totals"] == expected
    assert get_state(client, table)["totals"] == expected
    entries = [e for e in history(client, table, 1)["events"] if e["type"] == "Adjusted"]
    assert [(e["version"], e["by"], e["data"]) for e in entries] == [
        (answer["version"], "organiser", {"seat": 1, "points": -10, "reason": "revoke in deal 2"})
    ]
    assert verify(client, table.id)["ok"] is True


def test_a_ruling_counts_in_the_final_totals_and_ranking(client: FlaskClient) -> None:
    table = open_table(client, **AUDIT_TABLE, max_deals=2)
    rng = random.Random(12)
    play_until(client, table, rng, lambda s: s["deal"] == 2)
    act(client, table, {"type": "adjust", "seat": 0, "points": 200, "reason": "bonus"})
    play_until(client, table, rng, finished)
    log = all_events(client, table)
    scores = [e["data"]["scores"] for e in log if e["type"] == "DealScored"]
    final = summary(client, table)
    expected = [sum(deal[s] for deal in scores) + (200 if s == 0 else 0) for s in range(3)]
    assert final["totals"] == expected
    assert final["ranking"][0] == 1
    assert log[-1]["type"] == "MatchEnded"
    assert log[-1]["data"] == {"totals": final["totals"], "ranking": final["ranking"]}
    assert verify(client, table.id)["ok"] is True


def test_only_the_organiser_makes_a_ruling(client: FlaskClient) -> None:
    table, now = bottle_imp_in_play(client, plays=1)
    for seat in range(3):
        assert_problem(post_action(client, table, RULING, table.seat(seat)), 403, "forbidden")
    assert_problem(post_action(client, table, RULING, PUBLIC), 401, "unauthorized")
    assert get_state(client, table)["version"] == now["version"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({**RULING, "points": 0}, "invalid_adjustment"),
        ({k: v for k, v in RULING.items() if k != "reason"}, "invalid_adjustment"),
        ({**RULING, "reason": "   "}, "invalid_adjustment"),
        ({**RULING, "seat": 3}, "unknown_seat"),
        ({**RULING, "seat": -1}, "unknown_seat"),
        ({**RULING, "points": 2.5}, "validation_error"),
    ],
    ids=["no-points", "no-reason", "blank-reason", "seat-3-of-3", "seat-minus-1", "half-a-point"],
)
def test_a_malformed_ruling_is_refused(client: FlaskClient, body: Json, code: str) -> None:
    table, now = bottle_imp_in_play(client, plays=1)
    assert_problem(post_action(client, table, body), 422, code)
    assert get_state(client, table)["version"] == now["version"]


def test_no_ruling_after_the_match_ends(client: FlaskClient) -> None:
    table = open_table(client, **AUDIT_TABLE)
    final = play_until(client, table, random.Random(1), finished)
    assert_problem(post_action(client, table, RULING), 409, "match_finished")
    assert summary(client, table)["totals"] == final["totals"]


def test_a_ruling_changed_in_the_database_is_caught_by_the_next_score_line(
    app: Flask, client: FlaskClient
) -> None:
    table = open_table(client, **AUDIT_TABLE, max_deals=2)
    rng = random.Random(7)
    play_until(client, table, rng, lambda s: s["phase"] == "playing")
    ruling = act(client, table, RULING)["version"]
    play_until(client, table, rng, lambda s: s["deal"] == 2)
    assert verify(client, table.id)["ok"] is True
    scored = next(e["version"] for e in all_events(client, table) if e["type"] == "DealScored")

    forge(app, table.id, ruling, lambda data: {**data, "points": -50})

    report = verify(client, table.id)
    assert report["ok"] is False
    found = [(p["version"], p["code"]) for p in report["problems"]]
    assert found[0] == (ruling, "bad_signature")  # the head signed when it was recorded
    assert (scored, "mismatch") in found  # and the engine, which needs no key


def test_a_ruling_flows_into_the_tournament_standings(client: FlaskClient) -> None:
    body = {"name": "Audit night", "game": "bottle-imp", "table_size": 3, "target_score": None,
            "max_deals": 1, "rounds": 1, "pairing": "random", "seed": "standings"}  # fmt: skip
    response = client.post("/tournaments", json=body, headers=ORGANISER)
    assert response.status_code == 201, response.get_json()
    tournament = response.get_json()["id"]
    for name in ("Ann", "Bo", "Cy"):
        entry = client.post(
            f"/tournaments/{tournament}/entries", json={"name": name}, headers=ORGANISER
        )
        assert entry.status_code == 201, entry.get_json()
    seated = client.post(f"/tournaments/{tournament}/rounds", headers=ORGANISER)
    assert seated.status_code == 201, seated.get_json()
    (played,) = seated.get_json()["tables"]
    table = OpenTable(played["id"], [s["token"] for s in played["seats"]], {}, played)
    entry_at = {s["seat"]: s["entry"] for s in played["seats"]}

    rng = random.Random(13)
    play_until(client, table, rng, lambda s: s["phase"] == "playing")
    act(client, table, {"type": "adjust", "seat": 2, "points": 40, "reason": "opponent's revoke"})
    play_until(client, table, rng, finished)

    scored = next(e["data"] for e in all_events(client, table) if e["type"] == "DealScored")
    rows = ok_json(client.get(f"/tournaments/{tournament}/standings"))["rows"]
    score_of = {row["entry"]: row["score"] for row in rows}
    expected = {entry_at[s]: scored["scores"][s] + (40 if s == 2 else 0) for s in range(3)}
    assert score_of == expected
