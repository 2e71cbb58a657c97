"""The Bottle Imp's actions, events and state (``docs/rules/bottle-imp.md``).

All three are immutable ``NamedTuple``s (see ``domain.events`` for why tuples).
Per-seat values are tuples indexed by seat; per-*hand* values are indexed by hand
slot: the seat itself, except in ``bright-house`` where seat ``s`` plays slots
``2s`` (pile A) and ``2s+1`` (pile B).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from domain.table import ORGANISER, Table, Viewer

__all__ = ["ORGANISER", "Viewer"]

# --- actions (imperative: what a seat or the organiser asks for) -------------------------


class Deal(NamedTuple):
    """Deal the next hand: seeded shuffle when ``hands`` is None, else a recorded deal."""

    hands: tuple | None = None
    devil: tuple[int, ...] | None = None


class Discard(NamedTuple):
    """Lay a dealt card face down in the devil's trick (rule 2)."""

    seat: int
    card: int
    hand: str | None = None


class Pass(NamedTuple):
    """Pass dealt cards: ``left``/``right`` (standard), ``opponent`` (lopaka),
    or ``hand`` + ``card`` (bright-house)."""

    seat: int
    left: int | None = None
    right: int | None = None
    opponent: int | None = None
    hand: str | None = None
    card: int | None = None


class ChooseOpen(NamedTuple):
    """Bright House: which of the seat's piles plays face up."""

    seat: int
    hand: str


class Play(NamedTuple):
    """Play a card to the current trick."""

    seat: int
    card: int
    hand: str | None = None


Action = Deal | Discard | Pass | ChooseOpen | Play

# --- events (past tense: what happened) ---------------------------------------------------


class DealStarted(NamedTuple):
    """Hands per seat (bright-house: ``{"A": …, "B": …}`` per seat); Lopaka's devil's trick."""

    deal: int
    dealer: int
    seed: str | None
    hands: tuple
    devil: tuple[int, ...] | None = None


class CardDiscarded(NamedTuple):
    seat: int
    card: int
    hand: str | None = None


class CardsPassed(NamedTuple):
    seat: int
    left: int | None = None
    right: int | None = None
    opponent: int | None = None
    hand: str | None = None
    card: int | None = None


class PassesDelivered(NamedTuple):
    """Passed cards reach their receivers; ``received`` per seat. Bright House: one pile."""

    received: tuple[tuple[int, ...], ...]
    hand: str | None = None


class OpenHandChosen(NamedTuple):
    seat: int
    hand: str


class CardPlayed(NamedTuple):
    seat: int
    card: int
    hand: str | None = None


class TrickCompleted(NamedTuple):
    """``seats`` and ``cards`` in play order; ``price``/``owner``: the bottle after the trick."""

    trick: int
    seats: tuple[int, ...]
    cards: tuple[int, ...]
    winner: int
    price: int
    owner: int | None


class DealScored(NamedTuple):
    deal: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    owner: int
    devil_trick: tuple[int, ...]
    price: int


# --- state ----------------------------------------------------------------------------------

PHASES = ("waiting_for_deal", "preparing", "choosing", "playing", "finished")


class State(NamedTuple):
    """Everything the rules need, folded from the events (``evolve``).

    ``hands``, ``received``, ``discards`` and ``passes`` are per hand slot; ``won``
    holds the cards each seat won (bitmasks), without the price card under the bottle.
    ``order`` lists the hand slots of the current trick in play order and ``turn`` their
    seats; ``trick`` the cards played so far.
    """

    table: Table
    phase: str
    deal: int
    dealer: int
    totals: tuple[int, ...]
    hands: tuple[int, ...]
    received: tuple[int, ...]
    discards: tuple[int | None, ...]
    passes: tuple[tuple[int, ...] | None, ...]
    devil: tuple[int, ...]
    open_hands: tuple[str | None, ...]
    leader: int
    order: tuple[int, ...]
    turn: tuple[int, ...]
    trick: tuple[int, ...]
    tricks: int
    price: int
    owner: int | None
    won: tuple[int, ...]
    scores: tuple[int, ...] | None
    ranking: tuple[int | None, ...] | None


Event = (
    DealStarted
    | CardDiscarded
    | CardsPassed
    | PassesDelivered
    | OpenHandChosen
    | CardPlayed
    | TrickCompleted
    | DealScored
)

EVENT_TYPES: Mapping[str, type] = {
    cls.__name__: cls
    for cls in (
        DealStarted,
        CardDiscarded,
        CardsPassed,
        PassesDelivered,
        OpenHandChosen,
        CardPlayed,
        TrickCompleted,
        DealScored,
    )
}
