"""Lopaka, the passive third player of the two-player variant (docs/rules/bottle-imp.md).

Lopaka looks only at its own hand and the cards already in the current trick.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.games.bottle_imp.cards import SUIT, cards_of, suit_cards


def trick_winner(cards: Sequence[int], price: int) -> int:
    """Rule 4: the highest card below the price if any, else the highest card."""
    below, highest = 0, 0
    for c in cards:
        if below < c < price:
            below = c
        if c > highest:
            highest = c
    return below or highest


def choose(hand: int, trick: Sequence[int], price: int) -> int:
    """Lopaka's card.

    - Leading (only after winning the previous trick): its highest card.
    - Else, among its legal cards, the highest that would win the trick; if none would
      win, its lowest legal card.
    """
    if not trick:
        return max(cards_of(hand))
    legal = suit_cards(hand, SUIT[trick[0]]) or cards_of(hand)
    winners = [c for c in legal if trick_winner((*trick, c), price) == c]
    return max(winners) if winners else min(legal)
