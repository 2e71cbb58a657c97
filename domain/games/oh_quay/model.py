"""Oh Quay's actions, events and state (``docs/rules/oh-quay.md``).

All three are immutable ``NamedTuple``s (see ``domain.events`` for why tuples). Per-seat
values are pairs indexed by seat. A quay is a tuple of card ids, top first; a canal a
tuple of card ids, front first; both change only by the moves of the rules.

The rules name a field ``from`` (a load's quay), a Python keyword, and ``count`` (a
launch's size), a tuple method: the tuples call them ``from_`` and ``count_``; ``parse``
and ``body`` use the rules' names, and ``CargoLoaded._fields`` spells ``from`` so the
event's JSON form (and ``from_data``) use it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from domain.table import ORGANISER, Table, Viewer

__all__ = ["ORGANISER", "Viewer"]

OWN, OPPONENT = "own", "opponent"
SOURCES = (OWN, OPPONENT)

# --- actions (imperative: what a seat or the organiser asks for) -------------------------


class Deal(NamedTuple):
    """Deal the next game: seeded when ``quays``/``canals`` are None, else recorded
    (per seat; each quay top first, each canal front first)."""

    quays: tuple | None = None
    canals: tuple | None = None


class Load(NamedTuple):
    """Turn, step 1: the top card of a quay (``own`` or ``opponent``) into the canal
    at ``position`` (0 = front, ``len(canal)`` = back)."""

    seat: int
    from_: str
    position: int


class Launch(NamedTuple):
    """Turn, step 2: ``count_`` cards off the front of the canal; ``keep`` names the
    card for the launcher's own quay when there are two or more."""

    seat: int
    count_: int
    keep: str | None = None


class Take(NamedTuple):
    """The launcher's opponent takes one card of a raft for their own quay."""

    seat: int
    card: str


Action = Deal | Load | Launch | Take

# --- events (past tense: what happened) ---------------------------------------------------


class DealStarted(NamedTuple):
    """A game was dealt. ``seed`` is the deal seed of a seeded deal (secret until the
    match ends); a recorded deal has none. Redacted copies hold ``None`` for hidden cards."""

    deal: int
    starter: int
    quays: tuple  # per seat, tuples of card ids (None where redacted)
    canals: tuple
    seed: str | None = None


class _CargoLoaded(NamedTuple):
    seat: int
    from_: str
    card: str | None
    position: int


class CargoLoaded(_CargoLoaded):
    """``seat`` loaded ``card`` from its ``own`` or its ``opponent``'s quay into its canal
    at ``position``. ``card`` is ``None`` in a copy redacted for whoever never saw it."""

    __slots__ = ()
    _fields = ("seat", "from", "card", "position")


class RaftLaunched(NamedTuple):
    """``cards`` left the front of ``seat``'s canal, shown to all; ``kept`` (the single
    card of a one-card launch) went to the bottom of the launcher's quay."""

    seat: int
    cards: tuple[str, ...]
    kept: str


class RaftCardTaken(NamedTuple):
    """The launcher's opponent ``seat`` put ``card`` of the raft at the bottom of its quay."""

    seat: int
    card: str


class RaftScored(NamedTuple):
    """The rest of a raft of three or more went to the launcher's score pile."""

    seat: int
    cards: tuple[str, ...]


class DealScored(NamedTuple):
    """A game ended: its ``scores``, the match ``totals``, and who emptied their canal
    (``None`` when the ``max_turns`` cap ended it)."""

    deal: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    emptied_by: int | None


# --- state ----------------------------------------------------------------------------------

WAITING_FOR_DEAL = "waiting_for_deal"
LOADING = "loading"
LAUNCHING = "launching"
TAKING = "taking"
SCORING_RAFT = "scoring_raft"  # the engine's step: a raft's rest to the score pile
SCORING_DEAL = "scoring_deal"  # the engine's step: the game is over, to be scored
FINISHED = "finished"
PHASES = (WAITING_FOR_DEAL, LOADING, LAUNCHING, TAKING, SCORING_RAFT, SCORING_DEAL, FINISHED)


class State(NamedTuple):
    """Everything the rules need, folded from the events (``evolve``).

    ``player`` is the seat whose turn it is (in ``taking`` the launcher, while the other
    seat takes); ``turns`` counts the turns completed in this game. ``known[s]`` is the
    bitmask (``cards.BIT``) of the cards in seat ``s``'s canal that the opponent knows:
    those ``s`` loaded from its own quay, whose top faced the opponent. ``raft`` holds the
    cards of a launch still being shared out, ``kept`` and ``taken`` where two of them
    went. After ``DealScored`` the last game's quays and canals stay, now public.
    """

    table: Table
    max_turns: int
    phase: str
    deal: int
    starter: int
    player: int
    turns: int
    quays: tuple[tuple[str, ...], ...]
    canals: tuple[tuple[str, ...], ...]
    known: tuple[int, ...]
    piles: tuple[tuple[str, ...], ...]
    raft: tuple[str, ...]
    kept: str | None
    taken: str | None
    totals: tuple[int, ...]
    scores: tuple[int, ...] | None
    emptied_by: int | None
    ranking: tuple[int | None, ...] | None


Event = DealStarted | CargoLoaded | RaftLaunched | RaftCardTaken | RaftScored | DealScored

EVENT_TYPES: Mapping[str, type] = {
    cls.__name__: cls
    for cls in (DealStarted, CargoLoaded, RaftLaunched, RaftCardTaken, RaftScored, DealScored)
}
