"""``decide(state, action) -> events``: the rules of The Bottle Imp, numbered as in
``docs/rules/bottle-imp.md``. A refused action raises ``RuleViolation`` and changes nothing.

The deal (rule 1) is ``domain.games.bottle_imp.dealing``'s. The events returned include
those the engine causes (Lopaka's plays, ``PassesDelivered``, ``TrickCompleted``,
``DealScored``, ``MatchEnded``), so the service appends the whole list in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from domain.deciding import check_seat, dispatch, expect_phase, with_consequences
from domain.errors import Fact, RuleViolation
from domain.events import MatchEnded
from domain.games.bottle_imp import dealing, layout, lopaka
from domain.games.bottle_imp.cards import (
    BIT,
    SUIT,
    SUITS,
    card,
    coins,
    holds_suit,
)
from domain.games.bottle_imp.evolve import evolve
from domain.games.bottle_imp.model import (
    CardDiscarded,
    CardPlayed,
    CardsPassed,
    ChooseOpen,
    Deal,
    DealScored,
    Discard,
    OpenHandChosen,
    Pass,
    PassesDelivered,
    Play,
    State,
    TrickCompleted,
)
from domain.match import ranking

_new: Final = tuple.__new__  # a named tuple built from its fields, without its __new__

# --- shared checks ---------------------------------------------------------------------
# An action's fields are read as sent (``action: Any``, ``object``) until checked: compiled
# (``make engine``), a field read as its declared type would raise ``TypeError`` on garbage
# where the rules answer with a ``RuleViolation``.


def _check_seat(s: State, seat: object) -> int:
    seat = check_seat(seat, len(s.table.seats) + (s.table.variant == layout.LOPAKA))
    if s.table.variant == layout.LOPAKA and seat == layout.LOPAKA_SEAT:
        raise RuleViolation("lopaka_plays_itself", "Lopaka (seat 2) plays by its own rules")
    return seat


def _slot(s: State, seat: int, hand: object) -> int:
    bright = s.table.variant == layout.BRIGHT_HOUSE
    if bright and hand not in layout.PILES:
        raise RuleViolation("unknown_hand", "in bright-house name the pile: hand 'A' or 'B'")
    if not bright and hand is not None:
        raise RuleViolation("unknown_hand", "only bright-house hands have names")
    return layout.slot_of(s.table.variant, seat, cast(str | None, hand))


def _whose(s: State, slot: int) -> str:
    seat = layout.owner(s.table.variant, slot)
    name = layout.hand_name(s.table.variant, slot)
    return f"seat {seat}'s pile {name}" if name else f"seat {seat}"


def _whose_facts(s: State, slot: int) -> dict[str, Fact]:
    """``_whose`` as a refusal's facts: the seat, and its pile where it has two."""
    seat = layout.owner(s.table.variant, slot)
    name = layout.hand_name(s.table.variant, slot)
    return {"seat": seat, "pile": name} if name else {"seat": seat}


def _dealt_card(s: State, slot: int, value: object) -> int:
    """A card the slot was dealt and still holds (rule 2: received cards stay put)."""
    c = card(value)
    if not s.hands[slot] & BIT[c]:
        raise RuleViolation(
            "card_not_in_hand", f"{_whose(s, slot)} does not hold {c}", **_whose_facts(s, slot)
        )
    if s.received[slot] & BIT[c]:
        raise RuleViolation(
            "card_was_received",
            f"{c} was passed to {_whose(s, slot)}; only dealt cards go on",
            card=c,
            **_whose_facts(s, slot),
        )
    return c


# --- preparing (rule 2, Lopaka's exchange, Bright House's piles) --------------------------


def _discard(s: State, action: Any) -> list:
    """Rule 2: one dealt card face down under the 19 (bright-house: one per pile)."""
    expect_phase(s.phase, "preparing")
    seat = _check_seat(s, action.seat)
    if s.table.variant == layout.LOPAKA:
        raise RuleViolation("not_in_this_variant", "in lopaka the devil's trick is dealt")
    slot = _slot(s, seat, action.hand)
    if s.discards[slot] is not None:
        raise RuleViolation(
            "already_discarded",
            f"{_whose(s, slot)} already laid a card in the devil's trick",
            **_whose_facts(s, slot),
        )
    c = _dealt_card(s, slot, action.card)
    event = _new(CardDiscarded, (seat, c, action.hand))
    if s.table.variant == layout.STANDARD and _delivery_waits(s, slot, s.passes[slot] is None):
        return [event]
    return _with_consequences(s, event)


#: Which of ``left, right, opponent, hand, card`` a pass gives, per variant.
_PASS_SHAPES = {
    layout.STANDARD: (True, True, False, False, False),
    layout.LOPAKA: (False, False, True, False, False),
    layout.BRIGHT_HOUSE: (False, False, False, True, True),
}


def _pass(s: State, action: Any) -> list:
    """Rule 2 (standard: one card left, one right), Lopaka's exchange (one card to the
    opponent), Bright House (one card of each pile to the opponent's same pile)."""
    expect_phase(s.phase, "preparing")
    seat = _check_seat(s, action.seat)
    variant = s.table.variant
    shape = _PASS_SHAPES[variant]
    given = (action[1], action[2], action[3], action[4], action[5])
    if (
        given[0] is not None,
        given[1] is not None,
        given[2] is not None,
        given[3] is not None,
        given[4] is not None,
    ) != shape:
        names = " and ".join(f for f, given in zip(Pass._fields[1:], shape, strict=True) if given)
        raise RuleViolation("invalid_pass", f"in {variant} a pass names {names}")
    slot = _slot(s, seat, action.hand)
    if s.passes[slot] is not None:
        raise RuleViolation(
            "already_passed", f"{_whose(s, slot)} has already passed", **_whose_facts(s, slot)
        )
    if variant == layout.STANDARD:
        left, right = _dealt_card(s, slot, action.left), _dealt_card(s, slot, action.right)
        if left == right:
            raise RuleViolation("same_card", f"{left} cannot go both left and right")
        event = _new(CardsPassed, (seat, left, right, None, None, None))
    elif variant == layout.LOPAKA:
        event = _new(
            CardsPassed, (seat, None, None, _dealt_card(s, slot, action.opponent), None, None)
        )
    else:
        event = _new(
            CardsPassed, (seat, None, None, None, action.hand, _dealt_card(s, slot, action.card))
        )
    if variant == layout.STANDARD and _delivery_waits(s, slot, s.discards[slot] is None):
        return [event]
    return _with_consequences(s, event)


def _delivery_waits(s: State, slot: int, own_pending: bool) -> bool:
    """Standard: whether the passes still wait for a pass or discard other than the one
    ``slot`` makes now (``own_pending``: its other one), or were delivered already; then
    nothing follows the event (``_deliveries``), and the state need not be folded to know."""
    if own_pending or any(s.received):
        return True
    passes, discards = s.passes, s.discards
    for k in range(len(passes)):  # noqa: SIM110 (compiled, a loop; a generator is an object)
        if k != slot and (passes[k] is None or discards[k] is None):
            return True
    return False


def _deliveries(s: State) -> PassesDelivered | None:
    """Passed cards arrive only when every pass they wait for is made (rule 2)."""
    variant, players = s.table.variant, len(s.table.seats)
    if variant == layout.STANDARD:
        if (
            None in s.passes  # every pass made, every discard laid, nothing delivered yet
            or None in s.discards
            or any(s.received)
        ):
            return None
        n = players
        passes: list[tuple[int, ...]] = [p for p in s.passes if p is not None]
        received = tuple((passes[(t - 1) % n][0], passes[(t + 1) % n][1]) for t in range(n))
        return _new(PassesDelivered, (received, None))
    if variant == layout.LOPAKA:
        if s.passes[0] is None or s.passes[1] is None or s.received[0]:
            return None
        return PassesDelivered((s.passes[1], s.passes[0], ()))
    for p, name in enumerate(layout.PILES):
        a, b = s.passes[p], s.passes[2 + p]
        if a is not None and b is not None and not s.received[p]:
            return PassesDelivered((b, a), hand=name)
    return None


def _choose_open(s: State, action: Any) -> list:
    """Bright House 3: each player shows one pile face up for the rest of the deal."""
    if s.table.variant != layout.BRIGHT_HOUSE:
        raise RuleViolation("not_in_this_variant", "only bright-house has open hands")
    expect_phase(s.phase, "choosing")
    seat = _check_seat(s, action.seat)
    _slot(s, seat, action.hand)
    if s.open_hands[seat] is not None:
        raise RuleViolation("already_chosen", f"seat {seat} already chose its open hand", seat=seat)
    return _with_consequences(s, OpenHandChosen(seat, action.hand))


# --- tricks (rules 3–7) -------------------------------------------------------------------


def _play(s: State, action: Play) -> list:
    """Rule 3: in turn, following the suit led if the hand holds it."""
    if s.phase != "playing":
        expect_phase(s.phase, "playing")
    trick, order = s.trick, s.order
    i = len(trick)
    given: tuple[object, ...] = action  # as sent: checked before it is trusted
    seat, value = given[0], given[1]
    if type(seat) is not int or type(value) is not int or s.turn[i] != seat:
        return _refuse_play(s, action)
    c: int = value
    if not 0 < c < 38:
        return _refuse_play(s, action)
    slot = order[i]
    held = s.hands[slot]
    bit = BIT[c]
    if not held & bit or (
        given[2] is not None and given[2] != layout.hand_name(s.table.variant, slot)
    ):
        return _refuse_play(s, action)
    if trick:
        led = SUIT[trick[0]]
        if SUIT[c] != led and holds_suit(held, led):
            raise RuleViolation(
                "must_follow_suit",
                f"{_whose(s, slot)} holds {SUITS[led]} cards and must follow {SUITS[led]}; "
                f"{c} is {SUITS[SUIT[c]]}",
                card=c,
                suit=SUITS[led],
                **_whose_facts(s, slot),
            )
    variant = s.table.variant
    played = _PLAYED[variant == layout.BRIGHT_HOUSE][slot][c]
    automatic = layout.LOPAKA_SEAT if variant == layout.LOPAKA else -1  # seat the engine plays
    if i + 1 < len(order):
        if s.turn[i + 1] != automatic:
            return [played]  # the common case: nothing follows automatically
    elif held != bit or _others_hold(s.hands, slot):
        # the trick is complete and the deal goes on
        completed = _trick_result(s, (*trick, c))
        if completed.winner != automatic:
            return [played, completed]
    return _with_consequences(s, played)


def _others_hold(hands: tuple[int, ...], slot: int) -> bool:
    """Whether a hand other than ``slot``'s holds a card."""
    for k in range(len(hands)):  # noqa: SIM110 (compiled, a loop; a generator is an object)
        if k != slot and hands[k]:
            return True
    return False


#: ``_PLAYED[bright][slot][card]``: the one ``CardPlayed`` of each hand slot and card, shared
#: (events are immutable) since self-play records millions of them.
_PLAYED: Final = tuple(
    tuple(
        [CardPlayed(layout.owner(v, slot), c, layout.hand_name(v, slot)) for c in range(38)]
        for slot in range(4)
    )
    for v in (layout.STANDARD, layout.BRIGHT_HOUSE)
)


def _refuse_play(s: State, action: Any) -> list:
    """Say precisely why a play is refused (the slow path)."""
    seat = _check_seat(s, action.seat)
    variant = s.table.variant
    slot = s.order[len(s.trick)]
    if s.turn[len(s.trick)] != seat:
        raise RuleViolation(
            "not_your_turn",
            f"it is {_whose(s, slot)}'s turn, not seat {seat}'s",
            seat=seat,
            turn=layout.owner(variant, slot),
        )
    hand = layout.hand_name(variant, slot)
    if action.hand is not None and action.hand != hand:
        raise RuleViolation(
            "wrong_hand", f"this card must come from {_whose(s, slot)}", **_whose_facts(s, slot)
        )
    c = card(action.card)
    other = slot ^ 1 if variant == layout.BRIGHT_HOUSE else None
    if other is not None and s.hands[other] & BIT[c]:
        raise RuleViolation(
            "wrong_hand",
            f"{c} is in {_whose(s, other)}; this card comes from {_whose(s, slot)}",
            card=c,
            **_whose_facts(s, slot),
        )
    raise RuleViolation(
        "card_not_in_hand", f"{_whose(s, slot)} does not hold {c}", **_whose_facts(s, slot)
    )


def _trick_result(s: State, cards: tuple[int, ...]) -> TrickCompleted:
    """Rule 4: the highest card below the price wins the trick and buys the bottle;
    with no card below the price, the highest card wins and the bottle stays."""
    price = s.price
    best = lopaka.trick_winner(cards, price)
    seats = s.turn
    winner = seats[cards.index(best)]
    if best < price:
        return _new(TrickCompleted, (s.tricks + 1, seats, cards, winner, best, winner))
    return _new(TrickCompleted, (s.tricks + 1, seats, cards, winner, price, s.owner))


def _deal_scored(s: State) -> DealScored:
    """Rule 6: the bottle's owner loses the devil's trick's coins and scores nothing else;
    everyone else scores the coins they won."""
    owner = s.owner
    if owner is None:  # impossible with the classic deck (rule 6); never silently score
        raise AssertionError("a deal ended with nobody holding the bottle")
    devil = 0
    for c in s.devil:
        devil |= BIT[c]
    scores = tuple(-coins(devil) if seat == owner else coins(w) for seat, w in enumerate(s.won))
    totals = tuple(t + d for t, d in zip(s.totals, scores, strict=True))
    return _new(DealScored, (s.deal, scores, totals, owner, tuple(sorted(s.devil)), s.price))


def _automatic(s: State) -> Any:
    """The next event the engine causes by itself in ``s``, or None."""
    phase = s.phase
    if phase == "preparing":
        return _deliveries(s)
    if phase == "playing":
        if len(s.trick) == len(s.order):
            return _trick_result(s, s.trick)
        if not any(s.hands):
            return _deal_scored(s)
        slot = s.order[len(s.trick)]
        if s.table.variant == layout.LOPAKA and slot == layout.LOPAKA_SEAT:
            return CardPlayed(slot, lopaka.choose(s.hands[slot], s.trick, s.price))
    elif phase == "waiting_for_deal" and s.scores is not None and s.ranking is None:
        t = s.table
        ranked = layout.ranked(t.variant, len(t.seats))
        if t.match.is_over(s.totals, s.deal, ranked):
            return MatchEnded(s.totals, ranking(s.totals, ranked))
    return None


def _with_consequences(s: State, event: Any) -> list:
    return with_consequences(s, (event,), evolve, _automatic)


#: The rules ``decide`` does not call by name (any other action is ``unknown_action``).
_DECIDE: Final[dict[type, Callable[[State, Any], list]]] = {ChooseOpen: _choose_open}


def decide(state: State, action: Any) -> list[Any]:
    """The events ``action`` causes in ``state``, or ``RuleViolation``."""
    kind = type(action)  # most frequent first (compiled, each a direct call)
    if kind is Play:
        return _play(state, action)
    if kind is Discard:
        return _discard(state, action)
    if kind is Pass:
        return _pass(state, action)
    if kind is Deal:
        return dealing.deal(state, action)
    return dispatch("The Bottle Imp", _DECIDE, state, action)
