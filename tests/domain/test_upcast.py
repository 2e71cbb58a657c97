"""Event schema evolution (``domain/upcast.py``): stored events keep the shape they were
written in and are read in the current one. The one real step: ``CardsPassed`` schema 1
``{"seat", "cards": [...]}`` (left then right; or the one card) became schema 2, which
names the cards as the actions do. The hash chain covers the stored (old) shape."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.events import TableOpened, to_data
from domain.games import game
from domain.games.bottle_imp.model import CardPlayed, CardsPassed
from domain.match import MatchRules
from domain.replay import event_from_json, replay
from domain.table import SeatSpec, Table
from domain.upcast import current_schema, upcast
from service.core.signing import keyring
from service.storage.db import get_database
from service.storage.eventstore import GENESIS, EventStore, StoredEvent, canonical_event, chain_hash
from service.storage.exports import verify_file
from tests.helpers import ADMIN_TOKEN

Json = dict[str, Any]
ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def old_shape(data: Json) -> Json:
    """A schema-2 ``CardsPassed`` as schema 1 wrote it."""
    if "left" in data:
        cards = [data["left"], data["right"]]
    else:
        cards = [data["opponent"] if "opponent" in data else data["card"]]
    kept = {k: v for k, v in data.items() if k not in ("left", "right", "opponent", "card")}
    return {**kept, "cards": cards}


# --- reading one event -----------------------------------------------------------------------


def test_a_schema_1_pass_reads_as_left_and_right() -> None:
    event = event_from_json("bottle-imp", "CardsPassed", {"seat": 0, "cards": [7, 30]}, 1)
    assert event == CardsPassed(seat=0, left=7, right=30)


def test_a_schema_1_lopaka_pass_reads_as_the_card_for_the_opponent() -> None:
    event = event_from_json("bottle-imp", "CardsPassed", {"seat": 1, "cards": [7]}, 1)
    assert event == CardsPassed(seat=1, opponent=7)


def test_a_schema_1_bright_house_pass_reads_as_the_piles_card() -> None:
    event = event_from_json("bottle-imp", "CardsPassed", {"seat": 0, "hand": "B", "cards": [12]}, 1)
    assert event == CardsPassed(seat=0, hand="B", card=12)


def test_a_step_rewrites_only_its_own_games_events() -> None:
    """Two games may name an event alike: the Bottle Imp's CardsPassed step must not touch
    another game's event of that name, nor events every game shares."""
    stored = {"seat": 0, "cards": [7, 30]}
    assert upcast("bestia", "CardsPassed", 1, stored) == stored
    assert current_schema("bestia", "CardsPassed") == 1
    assert current_schema("", "TableOpened") == 1 and current_schema("oh-quay", "Adjusted") == 1


def test_a_current_pass_and_other_events_read_as_they_are() -> None:
    assert current_schema("bottle-imp", "CardsPassed") == 2
    assert current_schema("bottle-imp", "CardPlayed") == 1
    current = {"seat": 2, "left": 7, "right": 30}
    assert event_from_json("bottle-imp", "CardsPassed", current, 2) == CardsPassed(2, 7, 30)
    assert event_from_json("bottle-imp", "CardsPassed", current, None) == CardsPassed(2, 7, 30)
    assert event_from_json("bottle-imp", "CardPlayed", {"seat": 1, "card": 9}, 1) == CardPlayed(
        1, 9
    )


def test_upcasting_leaves_the_stored_data_untouched() -> None:
    stored = {"seat": 0, "cards": [7, 30]}
    assert upcast("bottle-imp", "CardsPassed", 1, stored) == {"seat": 0, "left": 7, "right": 30}
    assert stored == {"seat": 0, "cards": [7, 30]}


# --- replaying a log -------------------------------------------------------------------------

VARIANTS = [("standard", 3), ("standard", 4), ("lopaka", 2), ("bright-house", 2)]


@pytest.mark.parametrize(("variant", "players"), VARIANTS, ids=[f"{v}-{n}" for v, n in VARIANTS])
def test_a_log_written_with_old_passes_replays_to_the_same_state(
    variant: str, players: int
) -> None:
    seats = tuple(SeatSpec(name=f"P{s}") for s in range(players))
    t = Table("bottle-imp", variant, seats, MatchRules(None, 2), f"upcast-{variant}")
    rules = game("bottle-imp")
    state, log = rules.initial_state(t), []
    rng = random.Random(variant)
    while state.phase != "finished":
        choices = [a for s in rules.to_act(state) for a in rules.legal_actions(state, s)]
        for event in rules.decide(state, rng.choice(choices)):
            log.append(event)
            state = rules.evolve(state, event)

    stored = [
        (event_type, old_shape(data), 1)
        if event_type == "CardsPassed"
        else (event_type, data, None)
        for event_type, data in ((type(e).__name__, to_data(e)) for e in log)
    ]
    passes_per_deal = 4 if variant == "bright-house" else 2 if variant == "lopaka" else players
    assert sum(schema == 1 for _, _, schema in stored) == 2 * passes_per_deal
    read = [event_from_json("bottle-imp", kind, data, schema) for kind, data, schema in stored]
    assert read == log
    assert replay(TableOpened.of(t), read) == state


# --- through the store and the API -----------------------------------------------------------


def open_and_play(client: FlaskClient, variant: str, players: int) -> str:
    body = {"game": "bottle-imp", "variant": variant, "target_score": None, "max_deals": 1,
            "seats": [{"name": f"P{s}"} for s in range(players)], "seed": "old-shapes"}  # fmt: skip
    response = client.post("/tables", json=body, headers=ORGANISER)
    assert response.status_code == 201, response.get_json()
    table_id: str = response.get_json()["id"]
    rng = random.Random(variant)
    while True:
        state = client.get(f"/tables/{table_id}/state", headers=ORGANISER).get_json()
        if state["phase"] == "playing" and state["tricks_played"] >= 1:
            return table_id
        action = rng.choice(state["legal_actions"])
        answer = client.post(f"/tables/{table_id}/actions", json=action, headers=ORGANISER)
        assert answer.status_code == 201, answer.get_json()


def restore_with_an_old_pass(app: Flask, table_id: str) -> tuple[str, int]:
    """The table's events under a new id, its first ``CardsPassed`` stored as schema 1
    would have written it, the chain computed over what is stored."""
    copy = uuid.uuid4().hex
    with get_database(app).reading() as connection:
        rows = EventStore(connection).read(table_id)
    old = next(r.version for r in rows if r.type == "CardsPassed")
    previous, stored = GENESIS, []
    for r in rows:
        assert r.type != "CardsPassed" or r.schema == 2, "new passes are written as schema 2"
        data, schema = (old_shape(r.data), 1) if r.version == old else (r.data, r.schema)
        canonical = canonical_event(copy, r.version, r.type, schema, data, r.recorded_at, r.actor)
        previous = chain_hash(previous, canonical)
        stored.append(
            StoredEvent(copy, r.version, r.type, schema, data, r.recorded_at, previous, r.actor)
        )
    last = stored[-1]  # the head, signed as the server signs the heads it appends
    signed = keyring(app).signer.sign_head(copy, last.version, last.hash)
    stored[-1] = last._replace(signature=signed.signature, key_id=signed.key_id)
    with get_database(app).writing() as connection:
        EventStore(connection).restore(copy, "table", stored)
    return copy, old


@pytest.mark.parametrize(("variant", "players"), [("standard", 4), ("lopaka", 2)])
def test_a_stored_old_pass_replays_like_the_current_one(
    app: Flask, client: FlaskClient, variant: str, players: int
) -> None:
    original = open_and_play(client, variant, players)
    copy, old = restore_with_an_old_pass(app, original)

    def get(table_id: str, route: str) -> Any:
        response = client.get(f"/tables/{table_id}{route}", headers=ORGANISER)
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.get_json() if response.is_json else response.get_data(as_text=True)

    assert get(copy, "/state") == get(original, "/state")
    assert get(copy, "/deals/1")["events"] == get(original, "/deals/1")["events"]
    report = get(copy, "/verify")
    assert (report["ok"], report["problems"]) == (True, [])

    exported = get(copy, "/export?reveal=true")
    line = json.loads(exported.splitlines()[old])
    assert (line["version"], line["schema"]) == (old, 1) and "cards" in line["data"]
    header, offline = verify_file(exported)
    assert header is not None and offline.ok, offline.problems
