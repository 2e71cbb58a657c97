"""The sight ``docs/rules/common.md`` gives every game (Hidden information), for a game
whose rules text adds nothing to it: a seat sees its own hand, everyone sees the cards
played to tricks, and a scored deal is public whole.

Where each hand lies is read from the organiser's view, which shows everything (every state
has ``hands`` and ``trick``, ``docs/api.md``); the deal's end and its tricks from the game's
landmarks. A game that shows more (a card turned face up, an open hand) fails the contract
with this sight: it needs a sight of its own.
"""

from __future__ import annotations

from typing import Any

from domain.games import SPECS, game
from domain.table import ORGANISER
from tests.contract.cards import Card, cards_in


def in_sight(state: Any, viewer: int | None) -> set[Card]:
    """The hand ``viewer`` holds; for ``None``, the trick on the table."""
    spec, whole = SPECS[state.table.game], game(state.table.game).view(state, ORGANISER)
    if viewer is None:
        return cards_in(spec, {"cards": whole["trick"]["cards"]})
    return cards_in(spec, {"hands": whole["hands"][viewer]})


def revealed(event: Any, after: Any) -> set[Card]:
    """A completed trick's cards; every card of a scored deal."""
    landmarks = SPECS[after.table.game].landmarks
    if type(event) is landmarks.trick_completed:
        return set(event.cards)
    if type(event) is landmarks.deal_scored:
        return set(game(after.table.game).deck_of(after))
    return set()
