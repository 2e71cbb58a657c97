"""The Bottle Imp's deck (classic coin edition): 36 cards, 1–37 without 19.

A hand is a bitmask over the cards' *compact index*: suit ``s`` (0 yellow, 1 blue,
2 red) owns bits ``12*s … 12*s+11`` in ascending card order, so "does this hand hold
the suit led?" is one shift and one mask, and the cards of one suit in a hand come
from a precomputed table. This keeps self-play fast without hiding the rules.
"""

from __future__ import annotations

from typing import Final

from domain.errors import RuleViolation

START_CARD: Final = 19
SUITS = ("yellow", "blue", "red")
YELLOW, BLUE, RED = 0, 1, 2

# docs/rules/bottle-imp.md, "The deck": coins → cards per suit.
_TABLE = {
    1: ((1, 2), (4, 6), (11, 14)),
    2: ((3, 5), (8, 10), (16, 21)),
    3: ((7, 9), (13, 17), (23, 26)),
    4: ((12, 15), (20, 24), (29, 31)),
    5: ((18, 22), (27, 30), (33, 35)),
    6: ((25, 28), (32, 34), (36, 37)),
}

#: The canonical order for shuffling: ascending numbers.
DECK: tuple[int, ...] = tuple(c for c in range(1, 38) if c != START_CARD)

SUIT: Final[list[int]] = [-1] * 38
COINS: Final[list[int]] = [0] * 38
for _coins, _suits in _TABLE.items():
    for _s, _pair in enumerate(_suits):
        for _c in _pair:
            SUIT[_c], COINS[_c] = _s, _coins

#: Cards of each suit, ascending.
SUIT_CARDS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(c for c in DECK if SUIT[c] == s) for s in range(3)
)
SHIFT: Final = (0, 12, 24)
SUIT_BITS: Final = 0xFFF

BIT: Final[list[int]] = [0] * 38
for _s, _cards in enumerate(SUIT_CARDS):
    for _i, _c in enumerate(_cards):
        BIT[_c] = 1 << (SHIFT[_s] + _i)
FULL_DECK_MASK = sum(BIT[c] for c in DECK)

#: ``CHUNK[s][bits]``: the cards (ascending) of suit ``s`` whose 12-bit chunk is ``bits``.
CHUNK: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple(c for i, c in enumerate(cards) if bits >> i & 1) for bits in range(4096))
    for cards in SUIT_CARDS
)


def mask_of(cards: object) -> int:
    """The bitmask of an iterable of cards (assumed valid)."""
    m = 0
    for c in cards:  # type: ignore[attr-defined]
        m |= BIT[c]
    return m


def cards_of(mask: int) -> tuple[int, ...]:
    """The cards of a bitmask, ascending by number."""
    return tuple(
        sorted(
            CHUNK[0][mask & SUIT_BITS] + CHUNK[1][(mask >> 12) & SUIT_BITS] + CHUNK[2][mask >> 24]
        )
    )


def suit_cards(mask: int, suit: int) -> tuple[int, ...]:
    """The cards of one suit held in ``mask``, ascending."""
    return CHUNK[suit][(mask >> SHIFT[suit]) & SUIT_BITS]


def holds_suit(mask: int, suit: int) -> bool:
    return bool((mask >> SHIFT[suit]) & SUIT_BITS)


def coins(mask: int) -> int:
    """The coins of the cards of a bitmask."""
    total = 0
    for c in CHUNK[0][mask & SUIT_BITS] + CHUNK[1][(mask >> 12) & SUIT_BITS] + CHUNK[2][mask >> 24]:
        total += COINS[c]
    return total


def card(value: object) -> int:
    """Validate one card in the notation of ``docs/rules/common.md`` (an integer 1–37, not 19)."""
    if type(value) is not int:
        raise RuleViolation(
            "unknown_card", f"{value!r} is not a Bottle Imp card: cards are the numbers 1–37"
        )
    if value == START_CARD:
        raise RuleViolation(
            "unknown_card", "19 is the start card under the bottle; it is never in a hand"
        )
    if not 1 <= value <= 37:
        raise RuleViolation(
            "unknown_card", f"{value} is not a Bottle Imp card: cards are the numbers 1–37"
        )
    return value


def describe(c: int) -> str:
    """``"30 (blue)"``: how error messages name a card."""
    return f"{c} ({SUITS[SUIT[c]]})"
