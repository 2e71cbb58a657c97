"""The service adds nothing to the rules: a random legal game played through the API records
exactly the events the engine alone produces for the same actions, and ends in the same state.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.events import TableOpened, event_type, to_data
from domain.games import bottle_imp as engine
from domain.match import MatchRules
from domain.table import ORGANISER, SeatSpec, Table
from service.storage.db import get_database
from service.storage.tablelog import LOGS_KEY
from tests.factories import table_body
from tests.helpers import ADMIN_TOKEN, make_test_app

# --- helpers ---------------------------------------------------------------------------------

Json = dict[str, Any]

ORGANISER_HEADERS = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
TABLES = [("standard", 3), ("standard", 4), ("lopaka", 2), ("bright-house", 2)]


@dataclass(frozen=True)
class Setup:
    """One random match: the table's configuration and the seed of the players' choices."""

    variant: str
    players: int
    seed: str
    first_dealer: int
    target_score: int | None
    max_deals: int
    choices: int

    def body(self) -> Json:
        return table_body(
            variant=self.variant,
            players=self.players,
            seed=self.seed,
            rules={"first_dealer": self.first_dealer},
            target_score=self.target_score,
            max_deals=self.max_deals,
        )


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    variant, players = draw(st.sampled_from(TABLES))
    return Setup(
        variant=variant,
        players=players,
        seed=draw(st.text(st.characters(codec="utf-8"), min_size=1, max_size=20)),
        first_dealer=draw(st.integers(0, players - 1)),
        target_score=draw(st.sampled_from([None, 25, 200])),
        max_deals=draw(st.integers(1, 2)),
        choices=draw(st.integers(0, 2**32)),
    )


def engine_table(setup: Setup, body: Json, salt: str) -> Table:
    """The same table in the engine, with the salt the server drew (``docs/rules/common.md``)."""
    return Table(
        game="bottle-imp",
        variant=setup.variant,
        seats=tuple(SeatSpec(**seat) for seat in body["seats"]),
        match=MatchRules(setup.target_score, setup.max_deals),
        seed=setup.seed,
        first_dealer=setup.first_dealer,
        salt=salt,
    )


def as_json(value: Any) -> Any:
    """What a value looks like after a trip through JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


def organiser_state(client: FlaskClient, table_id: str) -> Json:
    response = client.get(f"/tables/{table_id}/state", headers=ORGANISER_HEADERS)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def organiser_log(client: FlaskClient, table_id: str) -> list[Json]:
    events: list[Json] = []
    after: int | None = 0
    while after is not None:
        url = f"/tables/{table_id}/events?after={after}&limit=1000"
        page = client.get(url, headers=ORGANISER_HEADERS).get_json()
        events += page["events"]
        after = page["next"]
    return events


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)])
def app(request: pytest.FixtureRequest, sqlite_url: str) -> Iterator[Flask]:
    """The service on SQLite, and on PostgreSQL (skipped locally when it is absent)."""
    url = sqlite_url if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    app = make_test_app(url)
    yield app
    get_database(app).engine.dispose()


# --- the property ----------------------------------------------------------------------------


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(setup=setups())
def test_a_random_legal_game_through_the_api_matches_the_engine_alone(
    app: Flask, client: FlaskClient, setup: Setup
) -> None:
    body = setup.body()
    response = client.post("/tables", json=body, headers=ORGANISER_HEADERS)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    table_id, tokens = created["id"], [s["token"] for s in created["seats"]]

    salt = organiser_log(client, table_id)[0]["data"]["salt"]
    table = engine_table(setup, body, salt)
    state = engine.initial_state(table)
    events: list[Any] = [TableOpened.of(table)]
    rng = random.Random(setup.choices)

    while (shown := organiser_state(client, table_id))["status"] != "finished":
        seat = rng.choice(shown["to_act"])
        action = rng.choice([a for a in shown["legal_actions"] if a.get("seat", seat) == seat])
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        response = client.post(f"/tables/{table_id}/actions", json=action, headers=headers)
        assert response.status_code == 201, (action, response.get_json())

        caused = engine.decide(state, engine.parse(action))
        for event in caused:
            state = engine.evolve(state, event)
        events += caused
        assert response.get_json()["version"] == len(events)

    recorded = [(e["type"], e["data"]) for e in organiser_log(client, table_id)]
    assert recorded == [(event_type(e), as_json(to_data(e))) for e in events]

    app.extensions.pop(LOGS_KEY, None)  # the final read replays the stored JSON log
    assert organiser_state(client, table_id) == as_json(
        {"version": len(events), **engine.view(state, ORGANISER), "damaged": None}
    )
