"""Bestia's sight (``docs/rules/bestia.md``, Hidden information).

A seat sees its own hand (what it was dealt and drew; its discards came from it).
Everyone sees the muestra, turned face up in the dealer's hand (rule 2), the cards played
and the tricks, and a winning mosca (rule 5: it is shown to take the pot). The stock,
the cards laid aside and the other hands stay hidden until the deal is settled, when
everything of it is public.
"""

from __future__ import annotations

from typing import Any

from domain.games.bestia.cards import NAMES, names_of
from domain.games.bestia.model import CardPlayed, DealSettled, MoscaWon, TrickCompleted
from domain.games.bestia.places import deck_of


def in_sight(state: Any, viewer: int | None) -> set[str]:
    """The hand ``viewer`` holds; for ``None``, the muestra and the trick on the table."""
    if viewer is not None:
        return set(names_of(state.hands[viewer])) if state.deal else set()
    shown = {NAMES[card] for card in state.trick}
    if state.deal and state.muestra >= 0:
        shown.add(NAMES[state.muestra])
    return shown


def revealed(event: Any, after: Any) -> set[str]:
    kind = type(event)
    if kind is CardPlayed:
        return {event.card}
    if kind is TrickCompleted:
        return set(event.cards)
    if kind is MoscaWon:
        return {card for cards in event.cards for card in cards}
    if kind is DealSettled:
        return set(deck_of(after))
    return set()
