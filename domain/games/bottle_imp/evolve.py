"""``evolve(state, event) -> state`` and ``initial_state``: fold the log into a state.

Replay is the single source of truth, so evolve is total over valid logs and never
decides anything the events do not say, except the phase changes they imply.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final

from domain.errors import RuleViolation
from domain.games.bottle_imp import layout
from domain.games.bottle_imp.cards import BIT, START_CARD, mask_of
from domain.games.bottle_imp.model import (
    CardDiscarded,
    CardPlayed,
    CardsPassed,
    DealScored,
    DealStarted,
    OpenHandChosen,
    PassesDelivered,
    State,
    TrickCompleted,
)
from domain.games.common import evolve_by
from domain.table import Table


def initial_state(table: Table) -> State:
    """The table before the first deal (checks the variant and the number of players)."""
    t: Any = table  # as the caller built it: checked here before it is trusted
    variant, players = t.variant, t.players
    layout.check_players(variant, players)
    if not 0 <= t.first_dealer < players:
        raise RuleViolation("invalid_rules", f"first_dealer must be a seat from 0 to {players - 1}")
    seats = layout.seats(variant, players)
    slots = layout.slots(variant, players)
    return State(
        table=table,
        phase="waiting_for_deal",
        deal=0,
        dealer=t.first_dealer,
        totals=(0,) * seats,
        hands=(0,) * slots,
        received=(0,) * slots,
        discards=(None,) * slots,
        passes=(None,) * slots,
        devil=(),
        open_hands=(None,) * players,
        leader=layout.first_leader(variant, players, t.first_dealer),
        order=(),
        turn=(),
        trick=(),
        tricks=0,
        price=START_CARD,
        owner=None,
        won=(0,) * seats,
        scores=None,
        ranking=None,
    )


_FIELD = {name: i for i, name in enumerate(State._fields)}
_new: Final = tuple.__new__  # a named tuple from its fields, without its __new__
_HANDS: Final = State._fields.index("hands")
_RECEIVED: Final = State._fields.index("received")
_DISCARDS: Final = State._fields.index("discards")
_PASSES: Final = State._fields.index("passes")
_DEVIL: Final = State._fields.index("devil")


def _set(s: State, **changes: Any) -> State:
    """``s._replace(**changes)`` at two thirds of the cost (evolve runs millions of times)."""
    values = list(s)
    for name, value in changes.items():
        values[_FIELD[name]] = value
    return tuple.__new__(State, values)


def _replace_at(values: tuple, index: int, value: Any) -> tuple:
    return (*values[:index], value, *values[index + 1 :])


def _deal_started(s: State, e: DealStarted) -> State:
    variant, players = s.table.variant, len(s.table.seats)
    if variant == layout.BRIGHT_HOUSE:
        hands = tuple(mask_of(h[p]) for h in e.hands for p in layout.PILES)
    else:
        hands = tuple(mask_of(h) for h in e.hands)
    slots = len(hands)
    return _new(
        State,
        (
            s.table,
            "preparing",  # phase
            e.deal,
            e.dealer,
            s.totals,
            hands,
            (0,) * slots,  # received
            (None,) * slots,  # discards
            (None,) * slots,  # passes
            tuple(e.devil or ()),
            (None,) * players,  # open_hands
            layout.first_leader(variant, players, e.dealer),
            (),  # order
            (),  # turn
            (),  # trick
            0,  # tricks
            START_CARD,  # price
            None,  # owner
            (0,) * len(s.totals),  # won
            None,  # scores
            s.ranking,
        ),
    )


def _prepared(s: State) -> State:
    """Rule 2: play starts once every discard is laid and every pass delivered."""
    variant = s.table.variant
    if variant == layout.LOPAKA:
        done = all(s.received[p] for p in range(len(s.table.seats)))
    else:
        done = all(s.received) and None not in s.discards
    if not done:
        return s
    if variant == layout.BRIGHT_HOUSE:
        return _set(s, phase="choosing")
    return _start_trick(_set(s, phase="playing"), s.leader)


def _start_trick(s: State, leader: int) -> State:
    t = s.table
    order = layout.trick_order(t.variant, len(t.seats), s.dealer, leader, s.open_hands)
    turn = _turn(t.variant, order)
    return _set(s, leader=leader, order=order, turn=turn, trick=())


@cache
def _turn(variant: str, order: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(layout.owner(variant, slot) for slot in order)


def _card_discarded(s: State, e: CardDiscarded) -> State:
    slot = layout.slot_of(s.table.variant, e.seat, e.hand)
    fields = list(s)
    hands, discards = list(s.hands), list(s.discards)
    hands[slot] &= ~BIT[e.card]
    discards[slot] = e.card
    fields[_HANDS], fields[_DISCARDS] = tuple(hands), tuple(discards)
    fields[_DEVIL] = (*s.devil, e.card)
    return _prepared(_new(State, fields))


def _cards_passed(s: State, e: CardsPassed) -> State:
    slot = layout.slot_of(s.table.variant, e.seat, e.hand)
    cards = tuple([c for c in (e.left, e.right, e.opponent, e.card) if c is not None])
    fields = list(s)
    hands, passes = list(s.hands), list(s.passes)
    hands[slot] &= ~mask_of(cards)
    passes[slot] = cards
    fields[_HANDS], fields[_PASSES] = tuple(hands), tuple(passes)
    return _new(State, fields)


def _passes_delivered(s: State, e: PassesDelivered) -> State:
    variant = s.table.variant
    hands, received = list(s.hands), list(s.received)
    for seat, cards in enumerate(e.received):
        if cards:
            slot = layout.slot_of(variant, seat, e.hand)
            mask = mask_of(cards)
            hands[slot] |= mask
            received[slot] |= mask
    fields = list(s)
    fields[_HANDS], fields[_RECEIVED] = tuple(hands), tuple(received)
    return _prepared(_new(State, fields))


def _open_hand_chosen(s: State, e: OpenHandChosen) -> State:
    s = _set(s, open_hands=_replace_at(s.open_hands, e.seat, e.hand))
    if all(s.open_hands):
        return _start_trick(_set(s, phase="playing"), s.leader)
    return s


def _card_played(s: State, e: CardPlayed) -> State:
    # The hot path of self-play: every field named, two of them new (``_replace`` costs
    # three times as much, and compiled (``make engine``) this is a plain tuple build).
    trick = s.trick
    slot = s.order[len(trick)]
    hands = list(s.hands)
    hands[slot] &= ~BIT[e.card]
    return _new(
        State,
        (
            s.table,
            s.phase,
            s.deal,
            s.dealer,
            s.totals,
            tuple(hands),
            s.received,
            s.discards,
            s.passes,
            s.devil,
            s.open_hands,
            s.leader,
            s.order,
            s.turn,
            (*trick, e.card),
            s.tricks,
            s.price,
            s.owner,
            s.won,
            s.scores,
            s.ranking,
        ),
    )


def _trick_completed(s: State, e: TrickCompleted) -> State:
    """Rule 5: the trick goes to its winner, except a card that buys the bottle: it lies
    under the bottle, and the price card it replaces goes to the previous owner's pile."""
    won = list(s.won)
    pile = 0
    for c in e.cards:
        pile |= BIT[c]
    winner = e.winner
    if e.price != s.price:
        pile &= ~BIT[e.price]
        owner = s.owner
        if owner is not None:
            won[owner] |= BIT[s.price]
    won[winner] |= pile
    t = s.table
    variant = t.variant
    if variant == layout.STANDARD:  # slot = seat, clockwise from the winner
        order = turn = layout.rotation(len(t.seats), winner)
    else:
        order = layout.trick_order(variant, len(t.seats), s.dealer, winner, s.open_hands)
        turn = _turn(variant, order)
    return _new(
        State,
        (
            t,
            s.phase,
            s.deal,
            s.dealer,
            s.totals,
            s.hands,
            s.received,
            s.discards,
            s.passes,
            s.devil,
            s.open_hands,
            winner,
            order,
            turn,
            (),
            e.trick,
            e.price,
            e.owner,
            tuple(won),
            s.scores,
            s.ranking,
        ),
    )


def _deal_scored(s: State, e: DealScored) -> State:
    t = s.table
    return _set(
        s,
        phase="waiting_for_deal",
        totals=tuple(e.totals),
        scores=tuple(e.scores),
        dealer=layout.next_dealer(t.variant, len(t.seats), s.dealer),
        order=(),
        turn=(),
    )


#: The folds ``evolve`` does not call by name: Bright House's open hands, and ``MatchEnded``
#: (``domain.games.common``, alike in every game).
_evolve = evolve_by({OpenHandChosen: _open_hand_chosen})


def evolve(state: State, event: Any) -> State:
    """The state after ``event``: this game's events by their type, most frequent first
    (compiled, each a direct call rather than one through a table), the rest through
    ``_evolve``."""
    kind = type(event)
    if kind is CardPlayed:
        return _card_played(state, event)
    if kind is TrickCompleted:
        return _trick_completed(state, event)
    if kind is CardsPassed:
        return _cards_passed(state, event)
    if kind is CardDiscarded:
        return _card_discarded(state, event)
    if kind is DealStarted:
        return _deal_started(state, event)
    if kind is PassesDelivered:
        return _passes_delivered(state, event)
    if kind is DealScored:
        return _deal_scored(state, event)
    result: State = _evolve(state, event)
    return result
