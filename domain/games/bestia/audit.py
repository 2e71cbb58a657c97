"""Bestia's side of auditing and rulings: which action each event records, and a
director's ruling in chips, which moves chips between the seat and the pot so that the
balances and the pot still sum to 0."""

from __future__ import annotations

from typing import Any

from domain.errors import RuleViolation
from domain.games.bestia.model import (
    CardPlayed,
    CardsExchanged,
    Deal,
    DealStarted,
    Declare,
    Declared,
    Exchange,
    Play,
    State,
)


def action_of(event: Any, state: State) -> Any:
    """The action an event records, or None for one the engine causes."""
    kind = type(event)
    if kind is DealStarted:
        if event.seed is not None:
            return Deal()
        dealer_hand = event.hands[event.dealer]
        return Deal(hands=event.hands, muestra=event.muestra if dealer_hand else None)
    if kind is Declared:
        return Declare(event.seat, event.call)
    if kind is CardsExchanged:
        return Exchange(event.seat, event.discarded, None if state.seeded else event.drawn)
    if kind is CardPlayed:
        return Play(event.seat, event.card)
    return None


def totals(state: State) -> tuple[int, ...]:
    return state.balances


def check_adjust(state: State, seat: int, points: int) -> None:
    """A ruling in the seat's favour is paid from the pot, which cannot go below 0."""
    if points > state.pot:
        raise RuleViolation(
            "invalid_adjustment", f"the pot holds {state.pot} chips; it cannot pay {points}"
        )


def adjust(state: State, seat: int, points: int) -> State:
    balances = list(state.balances)
    balances[seat] += points
    return state._replace(balances=tuple(balances), pot=state.pot - points)
