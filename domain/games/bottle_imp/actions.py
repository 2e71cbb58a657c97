"""Actions as JSON bodies (``docs/api.md``) and the legal actions of a seat.

``legal_actions`` returns complete actions, each of which ``decide`` accepts now.
Play actions are built once and shared, since self-play asks for them millions of times.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, overload

from domain.actions import action_body, parse_action
from domain.games.action_specs import CARD, CARDS, HANDS, SEAT, ActionSpec, kinds_of, word
from domain.games.bottle_imp import layout
from domain.games.bottle_imp.cards import CHUNK, DECK, SHIFT, SUIT, SUIT_BITS, cards_of
from domain.games.bottle_imp.model import (
    Action,
    CardDiscarded,
    CardPlayed,
    CardsPassed,
    ChooseOpen,
    Deal,
    DealStarted,
    Discard,
    OpenHandChosen,
    Pass,
    Play,
    State,
)

PILE = word(*layout.PILES)  # Bright House: which of the seat's two piles
#: Every kind of action, its fields and their JSON types (``docs/api.md``, Acting at a table).
ACTIONS: Mapping[str, ActionSpec] = {
    "deal": ActionSpec(Deal, {"hands": HANDS, "devil": CARDS}),
    "discard": ActionSpec(Discard, {"seat": SEAT, "card": CARD, "hand": PILE}),
    "pass": ActionSpec(
        Pass,
        {"seat": SEAT, "left": CARD, "right": CARD, "opponent": CARD, "hand": PILE, "card": CARD},
    ),
    "choose_open": ActionSpec(ChooseOpen, {"seat": SEAT, "hand": PILE}),
    "play": ActionSpec(Play, {"seat": SEAT, "card": CARD, "hand": PILE}),
}
_KINDS = kinds_of(ACTIONS)
TYPE_OF: dict[type, str] = {cls: name for name, cls in _KINDS.items()}


def parse(body: Mapping[str, Any]) -> Action:
    """An action from its JSON body; unknown types and fields are refused by name."""
    return parse_action("The Bottle Imp", _KINDS, body)


def body(action: Action) -> dict[str, Any]:
    """The JSON body of an action (fields left at ``None`` are omitted)."""
    return action_body(TYPE_OF, action)


def _per_card(make: Any) -> tuple[tuple[list[Any], ...], tuple[list[Any], ...]]:
    """``table[bright][slot][card]``: one shared action per hand slot and card."""
    return (
        tuple([make(slot, c, None) if c in DECK else None for c in range(38)] for slot in range(4)),
        tuple(
            [make(slot // 2, c, "AB"[slot % 2]) if c in DECK else None for c in range(38)]
            for slot in range(4)
        ),
    )


_PLAYS = _per_card(Play)
_DEAL: Final = Deal()  # a seeded deal: the one action of the dealer, shared
_new: Final = tuple.__new__  # a named tuple from its fields, without its __new__


#: ``_PLAY_CHUNKS[bright][slot][suit][bits]``: the shared plays of one hand slot's cards of one
#: suit, for the suit's 12-bit chunk ``bits`` of a hand, as one shared tuple; a suit's 4,096
#: chunks are a list made on first use, each chunk built on first use (``_suit_plays``; a
#: list is read faster than a dict).
_PLAY_CHUNKS: Final[tuple[tuple[list[list[tuple[Play, ...] | None] | None], ...], ...]] = tuple(
    tuple([None, None, None] for slot in range(4)) for bright in range(2)
)


def _suit_plays(bright: bool, slot: int, suit: int, bits: int) -> tuple[Play, ...]:
    """The plays of ``_PLAY_CHUNKS[bright][slot][suit][bits]``, built if not yet."""
    suits = _PLAY_CHUNKS[bright][slot]
    chunks = suits[suit]
    if chunks is None:
        chunks = suits[suit] = [None] * 4096
    plays = chunks[bits]
    if plays is None:
        row = _PLAYS[bright][slot]
        plays = chunks[bits] = tuple([row[c] for c in CHUNK[suit][bits]])
    return plays


_DISCARDS = _per_card(Discard)
_OPPONENT_PASSES = _per_card(lambda seat, c, hand: Pass(seat, opponent=c))
_PILE_PASSES = _per_card(lambda seat, c, hand: Pass(seat, hand=hand, card=c))


class _Chain(Sequence[Action]):
    """Two sequences read as one, without copying them."""

    def __init__(self, first: Sequence[Action], second: Sequence[Action]) -> None:
        self.first, self.second = first, second
        self.split = len(first)
        self.length = self.split + len(second)

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, i: int) -> Action: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Action]: ...
    def __getitem__(self, i: int | slice) -> Action | Sequence[Action]:
        if type(i) is int and 0 <= i < self.length:  # random.choice's way in
            return self.first[i] if i < self.split else self.second[i - self.split]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.length))]
        if -self.length <= i < 0:
            return self[i + self.length]
        raise IndexError(i)


class _LeftRightPasses(Sequence[Pass]):
    """Every (left, right) pass of distinct dealt cards, built only when looked at:
    132 of them with 12 cards, and a random player looks at one."""

    def __init__(self, seat: int, dealt: tuple[int, ...]) -> None:
        self.seat, self.dealt = seat, dealt
        self.k = len(dealt) - 1
        self.length = len(dealt) * self.k

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, i: int) -> Pass: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Pass]: ...
    def __getitem__(self, i: int | slice) -> Pass | Sequence[Pass]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.length))]
        if i < 0:
            i += self.length
        if not 0 <= i < self.length:
            raise IndexError(i)
        a, b = divmod(i, self.k)
        b += b >= a  # skip the left card itself
        return _new(Pass, (self.seat, self.dealt[a], self.dealt[b], None, None, None))


def legal_actions(state: State, seat: int) -> Sequence[Action]:
    """Every action ``seat`` may take now (empty when it is not theirs to act)."""
    s = state
    phase = s.phase
    if phase == "playing":  # the hot path: rule 3, follow the suit led if you can
        trick = s.trick
        i = len(trick)
        if i == len(s.turn) or s.turn[i] != seat:  # a full trick waits for the engine
            return []
        slot = s.order[i]
        variant = s.table.variant
        if variant == layout.LOPAKA and seat == layout.LOPAKA_SEAT:
            return []
        held = s.hands[slot]
        bright = variant == layout.BRIGHT_HOUSE
        if trick:
            led = SUIT[trick[0]]
            same = _suit_plays(bright, slot, led, (held >> SHIFT[led]) & SUIT_BITS)
            if same:
                return same
        return (
            _suit_plays(bright, slot, 0, held & SUIT_BITS)
            + _suit_plays(bright, slot, 1, (held >> 12) & SUIT_BITS)
            + _suit_plays(bright, slot, 2, held >> 24)
        )
    variant = s.table.variant
    if phase == "waiting_for_deal":
        return [_DEAL] if seat == s.dealer else []
    if phase == "choosing":
        return [] if s.open_hands[seat] else [ChooseOpen(seat, p) for p in layout.PILES]
    if phase != "preparing" or (variant == layout.LOPAKA and seat == layout.LOPAKA_SEAT):
        return []
    parts: list[Sequence[Action]] = []
    bright = variant == layout.BRIGHT_HOUSE
    for slot in (2 * seat, 2 * seat + 1) if bright else (seat,):
        dealt = cards_of(s.hands[slot] & ~s.received[slot])
        if variant != layout.LOPAKA and s.discards[slot] is None:
            row = _DISCARDS[bright][slot]
            parts.append([row[c] for c in dealt])
        if s.passes[slot] is None:
            if variant == layout.STANDARD:
                parts.append(_LeftRightPasses(seat, dealt))
            else:
                row = (_PILE_PASSES if bright else _OPPONENT_PASSES)[bright][slot]
                parts.append([row[c] for c in dealt])
    if not parts:
        return []
    actions = parts[0]
    for part in parts[1:]:  # bright-house: up to two parts per pile
        actions = _Chain(actions, part)
    return actions


#: ``_ALONE[seat]``: the seat alone, one shared tuple per seat.
_ALONE: Final = tuple((seat,) for seat in range(4))


def to_act(state: State) -> tuple[int, ...]:
    """The seats the table waits for (Lopaka never: it plays by itself)."""
    s = state
    if s.phase == "playing":
        i = len(s.trick)
        # a full trick is completed by the engine in the same transaction: nobody acts
        return _ALONE[s.turn[i]] if i < len(s.turn) else ()
    variant = s.table.variant
    if s.phase == "waiting_for_deal":
        return (s.dealer,)
    if s.phase == "choosing":
        return tuple(seat for seat, h in enumerate(s.open_hands) if h is None)
    if s.phase != "preparing":
        return ()
    if variant == layout.LOPAKA:
        return tuple(seat for seat in (0, 1) if s.passes[seat] is None)
    passes, discards = s.passes, s.discards
    if variant == layout.STANDARD:  # each seat that still has to pass or discard
        return tuple(
            [seat for seat in range(len(passes)) if passes[seat] is None or discards[seat] is None]
        )
    waiting = [p is None or d is None for p, d in zip(passes, discards, strict=True)]
    if variant == layout.BRIGHT_HOUSE:
        return tuple(seat for seat in (0, 1) if waiting[2 * seat] or waiting[2 * seat + 1])
    return tuple(seat for seat, w in enumerate(waiting) if w)


def action_of(event: Any, state: State) -> Action | None:
    """The action an event records (for re-checking a log), or None for an event the engine
    causes by itself (Lopaka's plays, deliveries, tricks, scores, the match end)."""
    kind = type(event)
    if kind is DealStarted:
        if event.seed is not None:
            return Deal()
        return Deal(hands=event.hands, devil=event.devil)
    if kind is CardDiscarded:
        return Discard(event.seat, event.card, event.hand)
    if kind is CardsPassed:
        return Pass(event.seat, event.left, event.right, event.opponent, event.hand, event.card)
    if kind is OpenHandChosen:
        return ChooseOpen(event.seat, event.hand)
    if kind is CardPlayed:
        if state.table.variant == layout.LOPAKA and event.seat == layout.LOPAKA_SEAT:
            return None
        return Play(event.seat, event.card, event.hand)
    return None
