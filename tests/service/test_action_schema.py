"""The action schema is built from each game's declared actions
(``service/web/schemas/actions.py``): still one operation, ``POST /tables/{id}/actions``,
whose body the spec describes per game, one kind by ``type``. Every legal action of a
random match of every game and variant is allowed by the spec (its game's schema, and the
``Action`` component) and loaded by the server; bodies a game does not take are refused by
its schema; and the server answers a malformed body with the messages it always gave."""

from __future__ import annotations

import random
from typing import Any

import jsonschema_rs
import pytest
import yaml
from flask import Flask
from marshmallow import ValidationError

from domain.games import SPECS, game
from domain.games.registry import GameSpec
from domain.match import MatchRules
from domain.table import SeatSpec, Table
from service.web.openapi import render_spec
from service.web.schemas.actions import ActionSchema, game_schema

CASES = [(s, v) for s in SPECS.values() for v in s.variants]
IDS = [f"{s.id}-{v}" for s, v in CASES]
LOADER = ActionSchema()


@pytest.fixture(scope="module")
def components(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from tests.helpers import make_test_app

    app: Flask = make_test_app(f"sqlite:///{tmp_path_factory.mktemp('spec') / 'spec.db'}")
    document = yaml.safe_load(render_spec(app))
    operations = document["paths"]["/tables/{table_id}/actions"]
    assert [m for m in operations if m != "parameters"] == ["post"], "one operation"
    body = operations["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/Action"}
    return dict(document["components"])


def allowed(components: dict[str, Any], schema: dict[str, Any], body: Any) -> bool:
    return bool(jsonschema_rs.validator_for({**schema, "components": components}).is_valid(body))


def legal_bodies(s: GameSpec, variant: str, seed: int) -> list[dict[str, Any]]:
    """Every body a random match of ``variant`` took, and each legal alternative offered."""
    rules = game(s.id)
    seats = tuple(SeatSpec(name=f"P{i}") for i in range(s.players[variant][-1]))
    table = Table(s.id, variant, seats, MatchRules(None, 1), seed=f"schema-{seed}")
    state, rng, bodies = rules.initial_state(table), random.Random(seed), []
    while state.phase != "finished":
        seat = rng.choice(rules.to_act(state))
        legal = rules.legal_actions(state, seat)
        bodies += [rules.body(a) for a in legal[:20]]
        for event in rules.decide(state, legal[rng.randrange(len(legal))]):
            state = rules.evolve(state, event)
    return bodies


@pytest.mark.parametrize(("s", "variant"), CASES, ids=IDS)
def test_every_legal_action_is_allowed_by_the_spec_and_loaded(
    components: dict[str, Any], s: GameSpec, variant: str
) -> None:
    action = {"$ref": "#/components/schemas/Action"}
    own = game_schema(s)
    ruling = {"type": "adjust", "seat": 0, "points": -10, "reason": "slow play"}
    for body in [*legal_bodies(s, variant, 1), ruling]:
        assert allowed(components, own, body), body
        assert allowed(components, action, body), body
        assert LOADER.load(body) == body


@pytest.mark.parametrize("s", SPECS.values(), ids=lambda s: s.id)
def test_a_body_the_game_does_not_take_is_refused_by_its_schema(
    components: dict[str, Any], s: GameSpec
) -> None:
    own = game_schema(s)
    kind = next(iter(s.actions))  # the deal, in every game
    foreign = next(k for o in SPECS.values() for k in o.actions if k not in s.actions)
    card = "7S" if all(type(c) is int for c in s.deck) else 7
    for body in (
        {"type": foreign, "seat": 0},
        {"type": kind, "seat": 0, "bogus": 1},
        {"seat": 0},
        {"type": "adjust", "seat": 0, "points": 5},  # a ruling gives its reason
        {"type": "play", "seat": 0, "card": card},  # another game's notation
    ):
        assert not allowed(components, own, body), body
    assert not allowed(components, {"$ref": "#/components/schemas/Action"}, {"type": "hop"})


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"type": "hop"}, {"type": ["Must be one of: deal, discard, pass, choose_open, play, "
                                    "declare, exchange, load, launch, take, adjust."]}),
        ({}, {"type": ["Missing data for required field."]}),
        ({"type": "play", "seat": "0"}, {"seat": ["Not a valid integer."]}),
        ({"type": "play", "seat": 0, "bogus": 1}, {"bogus": ["Unknown field."]}),
        ({"type": "load", "from": 5}, {"from": ["Not a valid string."]}),
        ({"type": "exchange", "discard": "2H"}, {"discard": ["Not a valid list."]}),
        ({"type": "adjust", "points": 2_000_000},
         {"points": ["Must be greater than or equal to -1000000 and less than or equal to "
                     "1000000."]}),
        ({"type": "adjust", "reason": ""}, {"reason": ["Length must be between 1 and 500."]}),
        ({"type": "play", "card": None}, {"card": ["Field may not be null."]}),
    ],
)  # fmt: skip
def test_the_server_refuses_a_malformed_body_as_it_always_did(
    body: dict[str, Any], errors: dict[str, list[str]]
) -> None:
    """One loader for every table: the fields every game declares, typed as declared; what
    is left (the kind at this table, its fields, the cards) is the engine's to refuse."""
    with pytest.raises(ValidationError) as refused:
        LOADER.load(body)
    assert refused.value.messages == errors
    assert LOADER.load({"type": "take", "card": 12, "left": "x"}) == {
        "type": "take", "card": 12, "left": "x"
    }  # fmt: skip
