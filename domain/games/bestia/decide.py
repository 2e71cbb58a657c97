"""``decide(state, action) -> events``: the rules of Bestia, numbered as in
``docs/rules/bestia.md``. A refused action raises ``RuleViolation`` and changes nothing.

The events returned include those the engine causes (automatic draws inside
``CardsExchanged``, ``MoscaWon``, ``TrickCompleted``, ``DealSettled``, ``MatchEnded``),
so the service appends the whole list in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.deciding import check_seat, dispatch, expect_phase
from domain.errors import RuleViolation
from domain.games.bestia import layout
from domain.games.bestia.cards import (
    BIT,
    CARD_ID,
    NAME_BIT,
    NAMES,
    SUIT_OF,
    SUITS,
    card_id,
    ids_of,
    names_of,
    names_of_ids,
)
from domain.games.bestia.evolve import evolve
from domain.games.bestia.model import (
    CardPlayed,
    CardsExchanged,
    Deal,
    DealStarted,
    Declare,
    Declared,
    Exchange,
    MoscaWon,
    Play,
    State,
    TrickCompleted,
)
from domain.games.bestia.options import HAND
from domain.games.bestia.settle import match_end, match_over, mosca, settle
from domain.games.bestia.tricks import legal_mask, why_illegal
from domain.shuffle import shuffle

CALLS = ("play", "pass")
_new = tuple.__new__

# --- shared checks ---------------------------------------------------------------------


def _check_seat(s: State, seat: object) -> int:
    return check_seat(seat, s.table.players)


def _check_turn(s: State, seat: int, expected: int, doing: str) -> None:
    if seat != expected:
        if s.phase != "declaring" and seat not in s.active:
            raise RuleViolation(
                "not_your_turn", f"seat {seat} passed and is out of this deal", seat=seat
            )
        raise RuleViolation(
            "not_your_turn",
            f"it is seat {expected}'s turn to {doing}, not {seat}'s",
            seat=seat,
            turn=expected,
        )


def _card_list(value: object, what: str) -> tuple:
    if not isinstance(value, list | tuple):
        raise RuleViolation("invalid_exchange", f"{what} is a list of cards")
    return tuple(value)


def _distinct(s: State, values: tuple, what: str) -> list[int]:
    ids: list[int] = []
    for value in values:
        c = card_id(value, s.rules.deck_mask)
        if c in ids:
            raise RuleViolation("invalid_exchange", f"{NAMES[c]} appears twice in {what}")
        ids.append(c)
    return ids


def _finish_deal(s: State, won: MoscaWon | None = None) -> list[Any]:
    """Settle the deal (and end the match when its time has come)."""
    settled = settle(s, won)
    ended = match_end(s.table, settled)
    return [settled] if ended is None else [settled, ended]


def _after_exchanges(s: State) -> list[Any]:
    """Rule 5: once the exchange is over, the best mosca takes the pot at once."""
    won = mosca(s)
    if won is None:
        return []
    return [won, *_finish_deal(evolve(s, won), won)]


# --- rules 1–2: the deal ------------------------------------------------------------------


def _seeded(s: State, k: int) -> DealStarted:
    """Rule 2: from the shuffled deck, five cards each, one at a time, from the dealer's
    right anticlockwise; the dealer's last card (the last dealt) is the muestra; the rest
    is the stock, drawn from its first card on."""
    t: Any = s.table  # its seed as given: an integer seed deals as its decimal string
    if t.seed is None:
        raise RuleViolation("no_seed", "this table has no seed; record the deal instead")
    seed = t.deal_seed(k)  # "{salt}:{seed}/{k}": docs/rules/common.md, shuffling rule 1
    deck = shuffle(s.rules.deck, seed)
    n = len(t.seats)
    dealt = HAND * n
    name = NAMES.__getitem__
    hands: list[Any] = [None] * n
    for j, seat in enumerate(layout.ring(n, s.dealer)):
        hands[seat] = tuple(map(name, sorted(deck[j:dealt:n])))
    muestra = deck[dealt - 1]
    stock = tuple(map(name, deck[dealt:]))
    return _new(
        DealStarted,
        (k, s.dealer, SUITS[SUIT_OF[muestra]], NAMES[muestra], tuple(hands), s.rules.ante, stock,
         seed),
    )  # fmt: skip


def _recorded(s: State, k: int, action: Any) -> DealStarted:
    """A physical deal: five distinct cards of the deck in use per seat, and a muestra
    from the dealer's hand."""
    n = s.table.players
    raw = action.hands
    if not isinstance(raw, list | tuple) or len(raw) != n:
        raise RuleViolation(
            "invalid_deal", f"a recorded deal lists {n} hands, one per seat", fault="hands", count=n
        )
    seen: set[int] = set()
    hands = []
    for seat, cards in enumerate(raw):
        if not isinstance(cards, list | tuple) or len(cards) != HAND:
            raise RuleViolation(
                "invalid_deal",
                f"seat {seat} must get {HAND} cards",
                fault="count",
                seat=seat,
                count=HAND,
            )
        ids = []
        for value in cards:
            c = card_id(value, s.rules.deck_mask)
            if c in seen:
                raise RuleViolation(
                    "invalid_deal",
                    f"card {NAMES[c]} is dealt twice",
                    fault="dealt_twice",
                    card=NAMES[c],
                )
            seen.add(c)
            ids.append(c)
        hands.append(tuple(NAMES[c] for c in sorted(ids)))
    if action.muestra is None:
        raise RuleViolation("invalid_deal", "a recorded deal names the muestra", fault="no_muestra")
    m = card_id(action.muestra, s.rules.deck_mask)
    if NAMES[m] not in hands[s.dealer]:
        raise RuleViolation(
            "invalid_deal",
            f"the muestra {NAMES[m]} must be a card of the dealer's (seat {s.dealer}) hand",
            fault="muestra_not_dealers",
            card=NAMES[m],
            seat=s.dealer,
        )
    return DealStarted(k, s.dealer, SUITS[SUIT_OF[m]], NAMES[m], tuple(hands), s.rules.ante)


def _deal(s: State, action: Any) -> list[Any]:
    """Rules 1–2: antes into the pot, then a seeded shuffle or a recorded deal."""
    expect_phase(s.phase, "waiting_for_deal")
    if match_over(s):
        raise RuleViolation("match_finished", "the match is over; no more deals")
    k = s.deal + 1
    if action.hands is None:
        if action.muestra is not None:
            raise RuleViolation(
                "invalid_deal", "a seeded deal turns its own muestra", fault="seeded_muestra"
            )
        return [_seeded(s, k)]
    return [_recorded(s, k, action)]


# --- rule 3: declaring --------------------------------------------------------------------


def _declare(s: State, action: Any) -> list[Any]:
    """Rule 3: from the dealer's right, anticlockwise, the dealer last: play or pass."""
    seat, call = action
    queue = s.queue
    if (
        s.phase != "declaring"
        or type(seat) is not int
        or queue[0] != seat
        or type(call) is not str
        or call not in CALLS
    ):
        _refuse_declare(s, action)
    # Decision: the dealer, last, may pass too ("may always play" is a right, not a
    # duty); if everyone passes the deal is void.
    declared = _new(Declared, (seat, call))
    if len(queue) > 1:
        return [declared]
    after = evolve(s, declared)
    if len(after.active) < 2:  # void (nobody plays) or uncontested (one takes the pot)
        return [declared, *_finish_deal(after)]
    if after.phase == "playing":  # max_exchange 0: no exchange, straight to the mosca
        return [declared, *_after_exchanges(after)]
    return [declared]


def _refuse_declare(s: State, action: Any) -> None:
    expect_phase(s.phase, "declaring")
    seat = _check_seat(s, action.seat)
    _check_turn(s, seat, s.queue[0], "declare")
    raise RuleViolation("invalid_call", f"a declaration is 'play' or 'pass', not {action.call!r}")


# --- rule 4: the exchange -------------------------------------------------------------------


def _seeded_draw(s: State, k: int) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    """The server draws from the top of the stock; once it runs out, the laid-aside cards
    (not the drawer's own discards, laid aside only after drawing), in canonical order,
    are shuffled with the seed ``"{deal_seed}/restock"`` (``/restock2`` …) into a new
    stock."""
    stock = s.stock
    if k <= len(stock):
        return stock[:k], None
    # Decision: the new stock is every card laid aside so far except the drawer's own
    # discards (laid aside after the draw); it always holds enough cards (cards outside
    # the hands of the players in, less the drawer's discards, are at least 12), so one
    # restock per exchange suffices, and later discards wait for the next one.
    nth = s.restocks + 1
    # docs/rules/bestia.md rule 4: from the (salted) deal seed, so as secret as the deal itself
    seed = f"{s.table.deal_seed(s.deal)}/restock{nth if nth > 1 else ''}"
    restock = tuple(names_of_ids(shuffle(ids_of(s.laid_aside), seed)))
    return stock + restock[: k - len(stock)], restock


def _recorded_draw(s: State, seat: int, discard: int, raw: object) -> tuple[str, ...]:
    """A physical exchange names what was drawn: from the unseen stock while it lasts
    (its size is known), then from the laid-aside cards.

    Decision: the order of ``drawn`` does not matter, only that as many of them as the
    stock could give come from the stock; once it is empty any laid-aside card but the
    drawer's own discards may be drawn (a physical table's restock order is unknown).
    """
    if raw is None:
        raise RuleViolation("invalid_exchange", "a recorded deal's exchange names the drawn cards")
    values = _card_list(raw, "drawn")
    if len(values) != discard.bit_count():
        raise RuleViolation(
            "invalid_exchange", f"seat {seat} discards {discard.bit_count()} and must draw as many"
        )
    drawn = _distinct(s, values, "drawn")
    stock = sum(map(NAME_BIT.__getitem__, s.stock))
    from_stock = min(len(drawn), len(s.stock))
    rule = "draws come from the stock while it lasts, then from the laid-aside cards"
    for c in drawn:
        if discard & BIT[c]:
            raise RuleViolation("card_not_available", f"seat {seat} cannot draw its own discard")
        if not (stock | s.laid_aside) & BIT[c]:
            raise RuleViolation("card_not_available", f"{NAMES[c]} cannot be drawn: {rule}")
    if sum(1 for c in drawn if stock & BIT[c]) != from_stock:
        raise RuleViolation(
            "card_not_available",
            f"{from_stock} of the cards drawn must come from the stock: {rule}",
        )
    return tuple(names_of_ids(drawn))


def _exchange(s: State, action: Any) -> list[Any]:
    """Rule 4: each player in, from the dealer's right, discards up to ``max_exchange``
    cards (the dealer may discard the muestra; trumps stay) and draws as many."""
    seat, values, raw_drawn = action
    queue = s.queue
    if s.phase != "exchanging" or type(seat) is not int or queue[0] != seat:
        expect_phase(s.phase, "exchanging")
        _check_turn(s, _check_seat(s, seat), queue[0], "exchange")
    if not isinstance(values, tuple | list):
        raise RuleViolation("invalid_exchange", "the discard is a list of cards")
    limit = s.rules.max_exchange
    if len(values) > limit:
        raise RuleViolation(
            "too_many_cards",
            f"this table exchanges at most {limit} card{'s' * (limit != 1)}, not {len(values)}",
        )
    out = _discard_mask(s, seat, values)
    restock = None
    if s.seeded:
        if raw_drawn is not None:
            raise RuleViolation(
                "invalid_exchange", "in a seeded deal the server draws; give only the discard"
            )
        drawn, restock = _seeded_draw(s, len(values))
    else:
        drawn = _recorded_draw(s, seat, out, raw_drawn)
    exchanged = _new(CardsExchanged, (seat, tuple(names_of(out)), drawn, restock))
    if len(queue) > 1:
        return [exchanged]
    return [exchanged, *_after_exchanges(evolve(s, exchanged))]


def _discard_mask(s: State, seat: int, values: tuple | list) -> int:
    """The discard as a mask of distinct cards the seat holds."""
    held = s.hands[seat]
    out = 0
    for value in values:
        bit = NAME_BIT.get(value) if type(value) is str else None
        if bit is None or not held & bit or out & bit:
            c = card_id(value, s.rules.deck_mask)
            if out & BIT[c]:
                raise RuleViolation("invalid_exchange", f"{NAMES[c]} appears twice in the discard")
            raise RuleViolation(
                "card_not_in_hand",
                f"seat {seat} does not hold {NAMES[c]}",
                seat=seat,
                card=NAMES[c],
            )
        out |= bit
    return out


# --- rule 6: tricks -------------------------------------------------------------------------


def _play(s: State, action: Any) -> list[Any]:
    """Rule 6: in turn, a card the duties of play allow."""
    if s.phase != "playing":
        expect_phase(s.phase, "playing")
    given: tuple[object, ...] = action  # as sent: checked before it is trusted
    seat, card = given[0], given[1]
    trick = s.trick
    order = s.order
    i = len(trick)
    if type(seat) is not int or i >= len(order) or order[i] != seat:
        return _refuse_play(s, action)
    c = CARD_ID.get(card) if type(card) is str else None
    held = s.hands[seat]
    if c is None or not held & BIT[c]:
        return _refuse_play(s, action)
    if i and not legal_mask(s, held) & BIT[c]:
        raise why_illegal(s, seat, c)
    played = _new(CardPlayed, (seat, card))  # the hot path: skip NamedTuple.__new__
    if i + 1 < len(order):
        return [played]  # the common case
    best = s.best
    if s.trumps.beaten_by[best] & BIT[c]:  # type: ignore[union-attr]
        best = c
    cards = (*trick, c)
    winner = order[cards.index(best)]
    k = len(s.winners) + 1
    completed = _new(TrickCompleted, (k, order, tuple(map(NAMES.__getitem__, cards)), winner))
    if k < HAND:
        return [played, completed]
    return [played, completed, *_finish_deal(evolve(evolve(s, played), completed))]


def _refuse_play(s: State, action: Any) -> list[Any]:
    """Say precisely why a play is refused (the slow path)."""
    seat = _check_seat(s, action.seat)
    i = len(s.trick)
    if i >= len(s.order):
        raise RuleViolation("wrong_phase", "the deal's play is over")
    _check_turn(s, seat, s.order[i], "play")
    c = card_id(action.card, s.rules.deck_mask)
    raise RuleViolation(
        "card_not_in_hand", f"seat {seat} does not hold {NAMES[c]}", seat=seat, card=NAMES[c]
    )


_DECIDE: dict[type, Callable[[State, Any], list[Any]]] = {
    Deal: _deal,
    Declare: _declare,
    Exchange: _exchange,
    Play: _play,
}


def decide(state: State, action: Any) -> list[Any]:
    """The events ``action`` causes in ``state``, or ``RuleViolation``."""
    return dispatch("Bestia", _DECIDE, state, action)
