"""Bestia's actions, events and state (``docs/rules/bestia.md``).

All three are immutable ``NamedTuple``s (see ``domain.events`` for why tuples). Actions
and events name cards in the common notation (``"10H"``); the state holds card ids and
bitmasks (``cards.py``). Per-seat values are tuples indexed by seat.

Chips. Balances start at 0 and the pot is a separate account, so balances plus pot
is 0 after every event. Decision: ``DealStarted.ante`` is applied when the deal starts
(each seat pays it into the pot, so the pot a table sees during the deal holds it);
``DealSettled.payments`` lists *every* chip movement of the deal, the antes first, as
``{"from": seat | "pot", "to": seat | "pot", "chips": n, "reason": …}`` (reasons
``ante``, ``bestia``, ``trick``, ``capot``, ``mosca``, ``panfilo``, ``uncontested``;
lines of 0 chips are left out). So a deal's payment lines sum, per seat, to its balance
change from before ``DealStarted`` to ``DealSettled.balances``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from domain.games.bestia.cards import Trumps
from domain.games.bestia.options import Rules
from domain.table import ORGANISER, Table, Viewer

__all__ = ["ORGANISER", "Viewer"]

# --- actions (imperative) ----------------------------------------------------------------


class Deal(NamedTuple):
    """Deal the next hand: seeded shuffle when ``hands`` is None, else a recorded deal
    (``hands`` per seat and the ``muestra``, a card of the dealer's hand)."""

    hands: Any = None
    muestra: Any = None


class Declare(NamedTuple):
    """Rule 3: ``call`` is ``"play"`` or ``"pass"``."""

    seat: int
    call: str


class Exchange(NamedTuple):
    """Rule 4: lay ``discard`` aside and draw as many; ``drawn`` only in a recorded deal."""

    seat: int
    discard: Any
    drawn: Any = None


class Play(NamedTuple):
    """Rule 6: play a card to the current trick."""

    seat: int
    card: str


Action = Deal | Declare | Exchange | Play

# --- events (past tense) -------------------------------------------------------------------


class DealStarted(NamedTuple):
    """Rules 1–2. ``hands`` per seat (canonical order); ``trump`` the muestra's suit
    letter; ``ante`` the chips each seat paid into the pot; ``stock`` the undealt cards in
    drawing order (seeded deals; ``None`` in a recorded deal, whose stock order nobody
    knows); ``seed`` the deal seed of a seeded deal."""

    deal: int
    dealer: int
    trump: str
    muestra: str
    hands: tuple
    ante: int
    stock: tuple | None = None
    seed: str | None = None


class Declared(NamedTuple):
    seat: int
    call: str


class CardsExchanged(NamedTuple):
    """Rule 4. ``restock``: when the stock ran out during this exchange (seeded deals),
    the new stock formed from the laid-aside cards, in drawing order, before drawing."""

    seat: int
    discarded: tuple
    drawn: tuple
    restock: tuple | None = None


class MoscaWon(NamedTuple):
    """Rule 5: the best mosca (several ``seats`` when exactly equal) and their hands."""

    seats: tuple[int, ...]
    cards: tuple


class CardPlayed(NamedTuple):
    seat: int
    card: str


class TrickCompleted(NamedTuple):
    """``seats`` and ``cards`` in play order; ``trick`` counts from 1."""

    trick: int
    seats: tuple[int, ...]
    cards: tuple[str, ...]
    winner: int


class DealSettled(NamedTuple):
    """Rule 7: every chip movement of the deal (antes included) and the balances and
    pot after it. ``outcome``: ``void``, ``uncontested``, ``mosca`` or ``played``."""

    deal: int
    payments: tuple[Mapping[str, Any], ...]
    balances: tuple[int, ...]
    pot: int
    outcome: str


Event = (
    DealStarted | Declared | CardsExchanged | MoscaWon | CardPlayed | TrickCompleted | DealSettled
)

EVENT_TYPES: Mapping[str, type] = {
    cls.__name__: cls
    for cls in (
        DealStarted,
        Declared,
        CardsExchanged,
        MoscaWon,
        CardPlayed,
        TrickCompleted,
        DealSettled,
    )
}

# --- state ----------------------------------------------------------------------------------

PHASES = ("waiting_for_deal", "declaring", "exchanging", "playing", "settling", "finished")
"""``settling`` lasts only between the event that ends a deal's play (last declaration,
exchange or trick, or ``MoscaWon``) and ``DealSettled``, inside one batch of events."""


class State(NamedTuple):
    """Everything the rules need, folded from the events (``evolve``).

    ``trumps``: the rules of play under the deal's trump suit (``trumps.suit``), fixed
    by the muestra and the ``panfilo`` option. ``active``: the seats still in the deal,
    anticlockwise from the dealer's right (the order of declaring, exchanging and the
    first lead); ``queue``: the seats still to declare or exchange, in turn. ``stock``:
    card names in drawing order (as the events give them); ``laid_aside``: the passers'
    hands and the discards not yet drawn or restocked (a mask); ``restocks``: how many
    times the stock was renewed this deal. ``exchanges[seat]``: (discarded, drawn)
    names. ``order``: the seats of the current trick in play order, ``trick`` its card
    ids, ``best`` the card winning it so far; ``winners``: the winner of each completed
    trick. ``payments``/``outcome``: of the last settled deal. ``taken``: the cards of the
    deal's completed tricks (a mask), so every card of the deck has a place in the state.
    """

    table: Table
    rules: Rules
    phase: str
    deal: int
    dealer: int
    balances: tuple[int, ...]
    pot: int
    ante: int
    trumps: Trumps | None
    muestra: int
    seeded: bool
    calls: tuple[str | None, ...]
    active: tuple[int, ...]
    queue: tuple[int, ...]
    stock: tuple[str, ...]
    laid_aside: int
    restocks: int
    exchanges: tuple[tuple[tuple[str, ...], tuple[str, ...]] | None, ...]
    panfilo_holder: int | None
    hands: tuple[int, ...]
    order: tuple[int, ...]
    trick: tuple[int, ...]
    best: int
    winners: tuple[int, ...]
    payments: tuple[Mapping[str, Any], ...] | None
    outcome: str | None
    ranking: tuple[int | None, ...] | None
    taken: int = 0
