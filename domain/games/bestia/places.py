"""Where every card of a deal lies: the game contract checks that no event loses or
copies a card (``tests/contract/``)."""

from __future__ import annotations

from domain.games.bestia.cards import names_of
from domain.games.bestia.model import State


def whereabouts(state: State) -> list[str]:
    """Hands, the stock, the cards laid aside, the completed tricks and the trick on the
    table: during a deal, each card of the table's deck exactly once."""
    masks = (*state.hands, state.laid_aside, state.taken, sum(1 << c for c in state.trick))
    return [*(c for mask in masks for c in names_of(mask)), *state.stock]


def deck_of(state: State) -> list[str]:
    """The deck the table's options and players imply (``docs/rules/bestia.md``, Cards)."""
    return names_of(state.rules.deck_mask)
