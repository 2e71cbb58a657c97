"""Oh Quay's sight (``docs/rules/oh-quay.md``, Hidden information).

A seat sees its own canal (what was dealt into it and what it loaded) and the top of the
opponent's quay, which faces it, never the top of its own: so a card loaded from a seat's
own quay is known to its opponent, who saw it on top. Everyone sees each launched card and
where it went, and the score piles. A game's cards are all public once it is scored.
"""

from __future__ import annotations

from typing import Any

from domain.games.oh_quay.cards import DECK
from domain.games.oh_quay.model import DealScored, RaftCardTaken, RaftLaunched, RaftScored


def in_sight(state: Any, viewer: int | None) -> set[str]:
    """``viewer``'s canal and the opponent's quay top; for ``None``, the score piles and
    the raft being shared out."""
    if viewer is not None:
        return {*state.canals[viewer], *state.quays[1 - viewer][:1]}
    return {*(card for pile in state.piles for card in pile), *state.raft}


def revealed(event: Any, after: Any) -> set[str]:
    kind = type(event)
    if kind is RaftLaunched:
        return set(event.cards)
    if kind is RaftCardTaken:
        return {event.card}
    if kind is RaftScored:
        return set(event.cards)
    if kind is DealScored:
        return set(DECK)
    return set()
