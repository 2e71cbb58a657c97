"""The game registry (``domain/games/registry.py``): every game registers one ``GameSpec``
and what differs per game elsewhere in the domain is derived from it."""

from __future__ import annotations

import dataclasses

import pytest

from domain.bots import BOTS
from domain.errors import RuleViolation
from domain.games import GAMES, SPECS, game, spec
from domain.games.registry import GameSpec
from domain.table import SeatSpec, Table
from domain.upcast import current_schema

SPEC_LIST = list(SPECS.values())


def test_games_are_the_registered_specs_rules() -> None:
    assert list(GAMES) == list(SPECS)
    assert all(GAMES[s.id] is s.rules for s in SPEC_LIST)


@pytest.mark.parametrize("s", SPEC_LIST, ids=lambda s: s.id)
def test_a_spec_is_sound(s: GameSpec) -> None:
    assert spec(s.id) is s
    assert s.name and s.deck and len(set(s.deck)) == len(s.deck)
    assert s.default_variant == s.rules.DEFAULT_VARIANT
    for kind, version in s.schemas.items():
        assert current_schema(s.id, kind) == version


@pytest.mark.parametrize("s", SPEC_LIST, ids=lambda s: s.id)
def test_every_bot_plays_every_registered_game(s: GameSpec) -> None:
    for b in BOTS.values():
        assert callable(b.chooser(s.id))


@pytest.mark.parametrize(
    ("s", "variant"),
    [(s, v) for s in SPEC_LIST for v in s.variants],
    ids=lambda x: x.id if isinstance(x, GameSpec) else x,
)
def test_every_variant_opens_with_each_player_count_it_lists(s: GameSpec, variant: str) -> None:
    for players in s.players[variant]:
        seats = tuple(SeatSpec(f"p{i}") for i in range(players))
        table = Table(s.id, variant, seats, s.rules.default_match(players), seed="registry")
        game(s.id).check_options(table)
        assert game(s.id).initial_state(table) is not None


def test_an_unknown_game_is_refused() -> None:
    with pytest.raises(RuleViolation):
        spec("chess")


def test_a_spec_that_disagrees_with_its_rules_fails_at_registration() -> None:
    s = SPECS["bottle-imp"]
    with pytest.raises(ValueError, match="default variant"):
        dataclasses.replace(s, default_variant="nope")
    with pytest.raises(ValueError, match="no upcaster"):
        dataclasses.replace(s, schemas={"CardPlayed": 2})
