"""The Bottle Imp's sight (``docs/rules/bottle-imp.md``, Hidden information).

A seat sees its own hand or hands: what it was dealt and received (its discard and passes
came from them). Everyone sees the cards played to tricks, the won piles and the price
card (the start card 19 until the bottle is first bought), Lopaka's hand once the exchange
is done (``lopaka``, rule 2) and a Bright House pile once chosen open (``bright-house``,
rule 3). The devil's trick stays hidden until the deal is scored (rule 6), when everything
of the deal is public.
"""

from __future__ import annotations

from typing import Any

from domain.games.bottle_imp import layout
from domain.games.bottle_imp.cards import DECK, cards_of
from domain.games.bottle_imp.model import CardPlayed, DealScored


def _face_up(state: Any, slot: int) -> bool:
    variant, seat = state.table.variant, layout.owner(state.table.variant, slot)
    if variant == layout.LOPAKA:
        return seat == layout.LOPAKA_SEAT and state.phase == "playing"
    if variant == layout.BRIGHT_HOUSE:
        return state.open_hands[seat] == layout.hand_name(variant, slot)
    return False


def in_sight(state: Any, viewer: int | None) -> set[int]:
    """The hands ``viewer`` holds; for ``None``, what lies face up for everyone."""
    variant = state.table.variant
    if viewer is not None:
        return {
            card
            for slot, hand in enumerate(state.hands)
            if layout.owner(variant, slot) == viewer
            for card in cards_of(hand)
        }
    shown = {state.price, *state.trick}
    shown.update(card for won in state.won for card in cards_of(won))
    for slot, hand in enumerate(state.hands):
        if _face_up(state, slot):
            shown.update(cards_of(hand))
    return shown


def revealed(event: Any, after: Any) -> set[int]:
    """A card played is public; a scored deal is public whole (rule 6)."""
    if type(event) is CardPlayed:
        return {event.card}
    if type(event) is DealScored:
        return set(DECK)
    return set()
