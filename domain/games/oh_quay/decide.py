"""``decide(state, action) -> events``: the rules of Oh Quay (``docs/rules/oh-quay.md``).
A refused action raises ``RuleViolation`` and changes nothing.

The events returned include those the engine causes (the automatic take of a two-card
raft, ``RaftScored``, ``DealScored``, ``MatchEnded``), so the service appends the whole
list in one transaction. The common moves build their events directly; only a move that
ends a game folds them through ``evolve`` to score it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from domain.deciding import check_seat, dispatch, expect_phase, with_consequences
from domain.errors import RuleViolation
from domain.events import MatchEnded
from domain.games.oh_quay import layout
from domain.games.oh_quay.cards import DECK, card, raft_fault
from domain.games.oh_quay.evolve import evolve
from domain.games.oh_quay.model import (
    LAUNCHING,
    LOADING,
    OPPONENT,
    OWN,
    SCORING_DEAL,
    SCORING_RAFT,
    TAKING,
    WAITING_FOR_DEAL,
    CargoLoaded,
    Deal,
    DealScored,
    DealStarted,
    Launch,
    Load,
    RaftCardTaken,
    RaftLaunched,
    RaftScored,
    State,
    Take,
)
from domain.match import ranking
from domain.shuffle import shuffle

# --- shared checks ---------------------------------------------------------------------


def _check_seat(seat: object) -> int:
    return check_seat(seat, len(layout.SEATS))


def _in_turn(seat: object, acting: int) -> int:
    """``seat`` is a seat and the one expected to act."""
    seat = _check_seat(seat)
    if seat != acting:
        raise RuleViolation(
            "not_your_turn",
            f"it is seat {acting}'s turn, not seat {seat}'s",
            seat=seat,
            turn=acting,
        )
    return seat


# --- the deal (Setup) -----------------------------------------------------------------------


def _recorded(raw: object, what: str) -> tuple[tuple[str, ...], ...]:
    if not isinstance(raw, list | tuple) or len(raw) != layout.PLAYERS:
        raise RuleViolation(
            "invalid_deal",
            f"a recorded deal lists 2 {what}s, one per seat",
            fault="hands",
            count=layout.PLAYERS,
            pile=what,
        )
    piles = []
    for seat, pile in enumerate(raw):
        if not isinstance(pile, list | tuple) or len(pile) != layout.PILE:
            raise RuleViolation(
                "invalid_deal",
                f"seat {seat}'s {what} must hold {layout.PILE} cards",
                fault="count",
                seat=seat,
                pile=what,
                count=layout.PILE,
            )
        piles.append(tuple(card(c) for c in pile))
    return tuple(piles)


def _deal(s: State, action: Any) -> list:
    """Setup: four piles of nine, from a seeded shuffle or as recorded at a physical table."""
    expect_phase(s.phase, WAITING_FOR_DEAL)
    k = s.deal + 1
    if action.quays is None and action.canals is None:
        table: Any = s.table  # its seed as given: an integer seed deals as its decimal string
        if table.seed is None:
            raise RuleViolation("no_seed", "this table has no seed; record the deal instead")
        dseed = table.deal_seed(k)  # "{salt}:{seed}/{k}": docs/rules/common.md, shuffling rule 1
        quays, canals = layout.seeded_piles(shuffle(DECK, dseed), s.starter)
        return [DealStarted(k, s.starter, quays, canals, dseed)]
    if action.quays is None or action.canals is None:
        raise RuleViolation(
            "invalid_deal",
            "a recorded deal gives both the quays and the canals",
            fault="quays_and_canals",
        )
    quays, canals = _recorded(action.quays, "quay"), _recorded(action.canals, "canal")
    seen: set[str] = set()
    for pile in (*quays, *canals):
        for c in pile:
            if c in seen:
                raise RuleViolation(
                    "invalid_deal", f"{c} is dealt twice", fault="dealt_twice", card=c
                )
            seen.add(c)
    # 36 distinct cards of the deck were dealt, so the deck is complete.
    return [DealStarted(k, s.starter, quays, canals)]


# --- a turn ---------------------------------------------------------------------------------


def _load(s: State, action: Any) -> list:
    """Turn, step 1: the top card of either quay (the other if one is empty) into the
    canal at any position from 0 (front) to its length (back)."""
    if s.phase != LOADING:
        expect_phase(s.phase, LOADING)
    seat = action.seat
    if type(seat) is not int or seat != s.player:
        seat = _in_turn(seat, s.player)
    source = action.from_
    if source == OWN:
        quay = s.quays[seat]
    elif source == OPPONENT:
        quay = s.quays[1 - seat]
    else:
        raise RuleViolation(
            "unknown_quay", f"load from 'own' or 'opponent' (the quay), not {source!r}"
        )
    if not quay:
        whose = f"seat {seat}'s" if source == OWN else f"seat {1 - seat}'s"
        raise RuleViolation("empty_quay", f"{whose} quay is empty; load from the other one")
    pos = action.position
    size = len(s.canals[seat])
    if type(pos) is not int or not 0 <= pos <= size:
        raise RuleViolation(
            "invalid_position",
            f"a card goes into the canal at a position from 0 (front) to {size} (back), "
            f"not {pos!r}",
        )
    return [CargoLoaded(seat, source, quay[0], pos)]


def _launch(s: State, action: Any) -> list:
    """Turn, step 2: one card, or a raft (a common suit, ranks rising from the front).
    One card goes to the bottom of the launcher's quay; of a raft the launcher keeps one,
    the opponent takes one (automatically the last of a two-card raft), the rest score."""
    if s.phase != LAUNCHING:
        expect_phase(s.phase, LAUNCHING)
    seat = action.seat
    if type(seat) is not int or seat != s.player:
        seat = _in_turn(seat, s.player)
    canal = s.canals[seat]
    count, keep = action.count_, action.keep
    if type(count) is not int or not 1 <= count <= len(canal):
        raise RuleViolation(
            "invalid_count",
            f"launch from 1 to {len(canal)} cards (the canal's length), not {count!r}",
        )
    cards = canal[:count]
    # Does this turn end the game (End and scoring; the max_turns Decision)?
    ends = count == len(canal) or s.turns + 1 >= s.max_turns
    if count == 1:
        if keep is not None:
            raise RuleViolation(
                "invalid_keep", "a single card goes to your quay; name a keep only for a raft"
            )
        launched = RaftLaunched(seat, cards, cards[0])
        return _with_consequences(s, [launched]) if ends else [launched]
    fault = raft_fault(cards)
    if fault is not None:
        raise RuleViolation("not_a_raft", f"the front {count} cards are not a raft: {fault}")
    if keep is None:
        raise RuleViolation(
            "keep_required", "launching a raft, name the card you keep for your quay"
        )
    if keep not in cards:
        keep = card(keep)
        raise RuleViolation("card_not_in_raft", f"{keep} is not among the launched {count} cards")
    launched = RaftLaunched(seat, cards, keep)
    if count > 2:
        return [launched]
    events = [launched, RaftCardTaken(1 - seat, cards[cards[0] == keep])]
    return _with_consequences(s, events) if ends else events


def _take(s: State, action: Any) -> list:
    """The launcher's opponent takes one card of the raft (not the kept one); the rest
    go to the launcher's score pile."""
    if s.phase != TAKING:
        expect_phase(s.phase, TAKING)
    if len(s.raft) == 2:  # only between the events of one decision
        raise RuleViolation("wrong_phase", "the last card of a two-card raft goes by itself")
    launcher = s.player
    seat = action.seat
    if type(seat) is not int or seat != 1 - launcher:
        seat = _in_turn(seat, 1 - launcher)
    c = action.card
    raft = s.raft
    if c == s.kept or c not in raft:
        c = card(c)
        if c == s.kept:
            raise RuleViolation("card_not_in_raft", f"seat {launcher} kept {c} for its quay")
        raise RuleViolation("card_not_in_raft", f"{c} is not in the raft")
    kept = s.kept
    events: list[Any] = [
        RaftCardTaken(seat, c),
        RaftScored(launcher, tuple(x for x in raft if x != kept and x != c)),
    ]
    if not s.canals[launcher] or s.turns + 1 >= s.max_turns:
        return _with_consequences(s, events)
    return events


# --- what the engine does by itself -----------------------------------------------------------


def _deal_scored(s: State) -> DealScored:
    """End and scoring: a point per card in the score pile; who emptied the canal also a
    point per card left in the opponent's canal. After the ``max_turns`` cap
    (**Decision**), score piles only."""
    emptied = None
    for seat in layout.SEATS:
        if not s.canals[seat]:
            emptied = seat
    scores = tuple(
        len(s.piles[seat]) + (len(s.canals[1 - seat]) if seat == emptied else 0)
        for seat in layout.SEATS
    )
    totals = tuple(t + d for t, d in zip(s.totals, scores, strict=True))
    return DealScored(s.deal, scores, totals, emptied)


def _automatic(s: State) -> Any:
    """The next event the engine causes by itself in ``s``, or None."""
    phase = s.phase
    if phase == TAKING and len(s.raft) == 2:
        return RaftCardTaken(1 - s.player, s.raft[s.raft[0] == s.kept])
    if phase == SCORING_RAFT:
        return RaftScored(s.player, tuple(x for x in s.raft if x not in (s.kept, s.taken)))
    if phase == SCORING_DEAL:
        return _deal_scored(s)
    if phase == WAITING_FOR_DEAL and s.scores is not None and s.ranking is None:
        ranked = layout.SEATS
        if s.table.match.is_over(s.totals, s.deal, ranked):
            return MatchEnded(s.totals, ranking(s.totals, ranked))
    return None


def _with_consequences(s: State, events: Sequence[Any]) -> list:
    return with_consequences(s, events, evolve, _automatic)


_DECIDE: dict[type, Callable[[State, Any], list]] = {
    Deal: _deal,
    Load: _load,
    Launch: _launch,
    Take: _take,
}


def decide(state: State, action: Any) -> list[Any]:
    """The events ``action`` causes in ``state``, or ``RuleViolation``."""
    return dispatch("Oh Quay", _DECIDE, state, action)
