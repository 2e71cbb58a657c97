"""Who sits where in each variant: hand slots, dealing order, trick order, next dealer.

- ``standard`` (3–4 players): slot = seat; play clockwise, ``(s+1) % n``.
- ``lopaka``: seats 0 and 1 play, seat 2 is Lopaka, always at the dealer's right, so a
  trick goes non-dealer → Lopaka → dealer (docs/rules/bottle-imp.md, Variant lopaka).
- ``bright-house``: seat ``s`` plays slot ``2s`` (pile A) and ``2s+1`` (pile B); a trick
  goes leader's open, follower's open, leader's hidden, follower's hidden.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from domain.errors import RuleViolation

STANDARD: Final = "standard"
LOPAKA: Final = "lopaka"
BRIGHT_HOUSE: Final = "bright-house"
VARIANTS = (STANDARD, LOPAKA, BRIGHT_HOUSE)
LOPAKA_SEAT: Final = 2
PILES: Final = ("A", "B")


def check_players(variant: object, players: object) -> None:
    """Seats the players bring (Lopaka is not one of them)."""
    if variant not in VARIANTS:
        raise RuleViolation(
            "unknown_variant",
            f"The Bottle Imp has no variant {variant!r}; choose one of {', '.join(VARIANTS)}",
        )
    wanted = (3, 4) if variant == STANDARD else (2,)
    if players not in wanted:
        raise RuleViolation(
            "wrong_player_count",
            f"{variant} is played by {' or '.join(map(str, wanted))} players, not {players}",
        )


def seats(variant: str, players: int) -> int:
    """Entries in per-seat lists: Lopaka takes index 2."""
    return 3 if variant == LOPAKA else players


def slots(variant: str, players: int) -> int:
    return 4 if variant == BRIGHT_HOUSE else seats(variant, players)


def owner(variant: str, slot: int) -> int:
    return slot // 2 if variant == BRIGHT_HOUSE else slot


def slot_of(variant: str, seat: int, hand: str | None) -> int:
    return 2 * seat + PILES.index(hand) if variant == BRIGHT_HOUSE and hand else seat


def hand_name(variant: str, slot: int) -> str | None:
    return PILES[slot % 2] if variant == BRIGHT_HOUSE else None


def ranked(variant: str, players: int) -> tuple[int, ...]:
    """Seats that compete: everyone but Lopaka."""
    return tuple(range(players))


def first_leader(variant: str, players: int, dealer: int) -> int:
    """Rule 3: the dealer's left leads; in the two-player variants, the non-dealer."""
    return (dealer + 1) % players


def clockwise(variant: str, players: int, dealer: int) -> tuple[int, ...]:
    """The seats in clockwise order starting at the dealer's left."""
    if variant == LOPAKA:
        return (1 - dealer, LOPAKA_SEAT, dealer)
    return tuple((dealer + 1 + i) % players for i in range(players))


def next_dealer(variant: str, players: int, dealer: int) -> int:
    """Rule 7: one seat clockwise; the two-player variants alternate."""
    return (dealer + 1) % players


#: ``ROTATIONS[players][leader]``: the seats clockwise from ``leader`` (the standard
#: variant's trick order, whoever deals).
ROTATIONS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple((leader + k) % n for k in range(n)) for leader in range(n)) for n in range(5)
)


def rotation(players: int, leader: int) -> tuple[int, ...]:
    """The seats clockwise from ``leader``: ``trick_order`` in the standard variant."""
    return ROTATIONS[players][leader]


@cache
def trick_order(
    variant: str, players: int, dealer: int, leader: int, open_hands: tuple[str | None, ...]
) -> tuple[int, ...]:
    """Hand slots in the order they play to a trick led by ``leader``."""
    if variant == BRIGHT_HOUSE:
        follower = 1 - leader
        lo, fo = PILES.index(open_hands[leader] or "A"), PILES.index(open_hands[follower] or "A")
        return (2 * leader + lo, 2 * follower + fo, 2 * leader + 1 - lo, 2 * follower + 1 - fo)
    ring = clockwise(variant, players, dealer)
    i = ring.index(leader)
    return ring[i:] + ring[:i]
