"""Where every card of a deal lies: the game contract checks that no event loses or
copies a card (``tests/contract/``)."""

from __future__ import annotations

from domain.games.bottle_imp.cards import DECK, START_CARD, cards_of
from domain.games.bottle_imp.model import State


def undelivered(state: State, slot: int) -> tuple[int, ...]:
    """Cards a hand slot passed that have not reached their receiver (rule 2): passes are
    delivered once all are made (standard, lopaka) or, in bright-house, pile by pile."""
    passed = state.passes[slot]
    if state.phase != "preparing" or passed is None:
        return ()
    if state.table.variant == "bright-house" and state.received[slot % 2]:
        return ()
    return passed


def whereabouts(state: State) -> list[int]:
    """Hands, won piles, the devil's trick, the price card, passes on their way and the
    trick on the table: during a deal, each card of :data:`DECK` exactly once."""
    cards = [c for mask in (*state.hands, *state.won) for c in cards_of(mask)]
    cards += [*state.devil, *state.trick]
    cards += [c for slot in range(len(state.hands)) for c in undelivered(state, slot)]
    if state.price != START_CARD:
        cards.append(state.price)
    return cards


def deck_of(state: State) -> tuple[int, ...]:
    return DECK
