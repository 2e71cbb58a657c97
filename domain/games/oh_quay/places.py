"""Where every card of a game lies: the game contract checks that no event loses or
copies a card (``tests/contract/``)."""

from __future__ import annotations

from domain.games.oh_quay.cards import DECK
from domain.games.oh_quay.model import State


def whereabouts(state: State) -> list[str]:
    """Quays, canals, score piles and the cards of a launch not yet shared out (not the
    kept one, not the taken one): during a game, each of the 36 cards exactly once."""
    cards = [c for piles in (state.quays, state.canals, state.piles) for p in piles for c in p]
    return cards + [c for c in state.raft if c not in (state.kept, state.taken)]


def deck_of(state: State) -> tuple[str, ...]:
    return DECK
