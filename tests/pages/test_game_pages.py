"""Every registered game has its page-facing pieces (``service/web/pages/games.py``): a face
for every card of its deck and a scene for a fresh table of every variant."""

from __future__ import annotations

import pytest

from domain.events import TableOpened
from domain.games import SPECS, game
from domain.games.registry import GameSpec
from domain.table import SeatSpec, Table
from service.web.pages import games
from service.web.pages.scenes import seat_names

SPEC_LIST = list(SPECS.values())


def test_the_pages_registry_lists_exactly_the_registered_games() -> None:
    assert set(games.PAGES) == set(SPECS)


@pytest.mark.parametrize("s", SPEC_LIST, ids=lambda s: s.id)
def test_every_card_has_a_face(s: GameSpec) -> None:
    assert games.deck(s.id) == s.deck
    assert games.name(s.id) == s.name
    for card in s.deck:
        face = games.face(s.id, card)
        assert face.id == card and face.title and face.classes != "card"


@pytest.mark.parametrize(
    ("s", "variant"),
    [(s, v) for s in SPEC_LIST for v in s.variants],
    ids=lambda x: x.id if isinstance(x, GameSpec) else x,
)
def test_every_variant_draws_a_scene(s: GameSpec, variant: str) -> None:
    players = s.players[variant][0]
    seats = tuple(SeatSpec(f"p{i}") for i in range(players))
    table = Table(s.id, variant, seats, s.rules.default_match(players), seed="pages")
    rules = game(s.id)
    state = rules.initial_state(table)
    names = seat_names(TableOpened.of(table))
    assert games.scene(rules.view(state, None), names).json()
