"""Directions at a Bestia table: play and dealing go anticlockwise (``docs/rules/common.md``).

The next player after seat ``s`` is its right neighbour ``(s - 1) % n``; everything
(dealing, declaring, exchanging, the first lead, the next dealer) starts at the
dealer's right and ends with the dealer.
"""

from __future__ import annotations

from functools import cache


@cache
def ring(players: int, dealer: int) -> tuple[int, ...]:
    """Every seat anticlockwise from the dealer's right; the dealer last."""
    return tuple((dealer - 1 - i) % players for i in range(players))


def next_dealer(players: int, dealer: int) -> int:
    """Rule 8: the deal passes to the right."""
    return (dealer - 1) % players


@cache
def trick_order(active: tuple[int, ...], leader: int) -> tuple[int, ...]:
    """The seats still in, in the order they play to a trick led by ``leader``."""
    i = active.index(leader)
    return active[i:] + active[:i]
