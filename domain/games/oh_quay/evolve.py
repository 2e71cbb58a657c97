"""``evolve(state, event) -> state`` and the initial state of a table.

Replay is the single source of truth, so evolve is total over valid logs and never
decides anything the events do not say, except the phase changes they imply: whose turn
follows, and that a game is over (a canal emptied, or the ``max_turns`` cap reached).
"""

from __future__ import annotations

from typing import Any

from domain.games.common import evolve_by
from domain.games.oh_quay import layout
from domain.games.oh_quay.cards import BIT
from domain.games.oh_quay.model import (
    LAUNCHING,
    LOADING,
    OWN,
    SCORING_DEAL,
    SCORING_RAFT,
    TAKING,
    WAITING_FOR_DEAL,
    CargoLoaded,
    DealScored,
    DealStarted,
    RaftCardTaken,
    RaftLaunched,
    RaftScored,
    State,
)
from domain.table import Table


def initial_state(table: Table) -> State:
    """The table before the first game (checks variant, players and options)."""
    t: Any = table  # as the caller built it: checked here before it is trusted
    layout.check_variant(t.variant)
    layout.check_players(t.players)
    layout.check_options(t.options)
    starter = layout.first_starter(table)
    return State(
        table=table,
        max_turns=layout.max_turns(table),
        phase=WAITING_FOR_DEAL,
        deal=0,
        starter=starter,
        player=starter,
        turns=0,
        quays=((), ()),
        canals=((), ()),
        known=(0, 0),
        piles=((), ()),
        raft=(),
        kept=None,
        taken=None,
        totals=(0, 0),
        scores=None,
        emptied_by=None,
        ranking=None,
    )


def _pair(values: tuple, seat: int, value: Any) -> tuple:
    """``values`` (a per-seat pair) with ``value`` at ``seat``."""
    return (value, values[1]) if seat == 0 else (values[0], value)


def _deal_started(s: State, e: DealStarted) -> State:
    return s._replace(
        phase=LOADING,
        deal=e.deal,
        starter=e.starter,
        player=e.starter,
        turns=0,
        quays=tuple(tuple(q) for q in e.quays),
        canals=tuple(tuple(c) for c in e.canals),
        known=(0, 0),
        piles=((), ()),
        raft=(),
        kept=None,
        taken=None,
        scores=None,
        emptied_by=None,
    )


# The hot paths rebuild the state by slicing the tuple (``_replace`` costs several times
# as much); the field order they rely on is pinned here.
_new = tuple.__new__
assert State._fields[2:15] == (
    "phase",
    "deal",
    "starter",
    "player",
    "turns",
    "quays",
    "canals",
    "known",
    "piles",
    "raft",
    "kept",
    "taken",
    "totals",
)


def _cargo_loaded(s: State, e: CargoLoaded) -> State:
    """Load cargo: the quay's top card into the canal; from the loader's own quay, the
    opponent saw it on top, so they know it and where it went."""
    seat, c, pos = e.seat, e.card, e.position
    own = e.from_ == OWN
    q = seat if own else 1 - seat
    quays = _pair(s.quays, q, s.quays[q][1:])
    canal = s.canals[seat]
    canals = _pair(s.canals, seat, (*canal[:pos], c, *canal[pos:]))
    known = _pair(s.known, seat, s.known[seat] | BIT[c]) if own else s.known  # type: ignore[index]
    return _new(State, (*s[:2], LAUNCHING, *s[3:7], quays, canals, known, *s[10:]))


def _end_turn(
    s: State,
    launcher: int,
    quays: tuple,
    canals: tuple,
    known: tuple,
    piles: tuple,
) -> State:
    """The turn passes, unless the launcher's canal is empty (the game is over) or the
    ``max_turns`` cap is reached (**Decision**): then the game waits to be scored."""
    turns = s.turns + 1
    over = not canals[launcher] or turns >= s.max_turns
    return _new(
        State,
        (
            *s[:2],
            SCORING_DEAL if over else LOADING,
            s.deal,
            s.starter,
            launcher if over else 1 - launcher,
            turns,
            quays,
            canals,
            known,
            piles,
            (),
            None,
            None,
            *s[14:],
        ),
    )


def _raft_launched(s: State, e: RaftLaunched) -> State:
    """Launch: the cards leave the canal's front; the kept one (the only one of a one-card
    launch) goes to the bottom of the launcher's quay; the others await the opponent."""
    seat, cards = e.seat, e.cards
    quays = _pair(s.quays, seat, (*s.quays[seat], e.kept))
    canals = _pair(s.canals, seat, s.canals[seat][len(cards) :])
    known = s.known
    if known[seat]:
        gone = 0
        for c in cards:
            gone |= BIT[c]
        known = _pair(known, seat, known[seat] & ~gone)
    if len(cards) == 1:
        return _end_turn(s, seat, quays, canals, known, s.piles)
    return s._replace(
        phase=TAKING, quays=quays, canals=canals, known=known, raft=cards, kept=e.kept
    )


def _raft_card_taken(s: State, e: RaftCardTaken) -> State:
    """The opponent's card to the bottom of their quay; a two-card raft is then done."""
    quays = _pair(s.quays, e.seat, (*s.quays[e.seat], e.card))
    if len(s.raft) == 2:
        return _end_turn(s, s.player, quays, s.canals, s.known, s.piles)
    return s._replace(phase=SCORING_RAFT, quays=quays, taken=e.card)


def _raft_scored(s: State, e: RaftScored) -> State:
    piles = _pair(s.piles, e.seat, (*s.piles[e.seat], *e.cards))
    return _end_turn(s, e.seat, s.quays, s.canals, s.known, piles)


def _deal_scored(s: State, e: DealScored) -> State:
    """The game's layout stays (now public); the next game's starter is its loser."""
    starter = layout.next_starter(s.starter, e.scores)
    return s._replace(
        phase=WAITING_FOR_DEAL,
        totals=tuple(e.totals),
        scores=tuple(e.scores),
        emptied_by=e.emptied_by,
        starter=starter,
        player=starter,
    )


#: The state after an event (``MatchEnded`` too: ``domain.games.common``).
evolve = evolve_by(
    {
        DealStarted: _deal_started,
        CargoLoaded: _cargo_loaded,
        RaftLaunched: _raft_launched,
        RaftCardTaken: _raft_card_taken,
        RaftScored: _raft_scored,
        DealScored: _deal_scored,
    }
)
