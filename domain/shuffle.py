"""The audit-grade shuffle of ``rules/common.md``: anyone can re-deal from the seed.

Fisher–Yates from the last position down, drawing from a SHA-256 counter stream
with rejection sampling, so the result is the same in every language.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_TWO_64 = 1 << 64
_word = struct.Struct(">Q").unpack_from  # the first 8 bytes, big-endian


def deal_seed(seed: str | int, deal: int) -> str:
    """The seed of deal ``deal`` (1-based) of a table: ``"{seed}/{deal}"``."""
    return f"{seed}/{deal}"


def seed_commitment(seed: str | int) -> str:
    """SHA-256 hex digest of the seed, published before the seed is revealed."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def shuffle(deck: Sequence[T], seed: str) -> list[T]:
    """Shuffle ``deck`` (in its canonical order) with the deal seed ``seed``.

    Draw ``c`` (c = 0, 1, …) is the first 8 bytes, big-endian, of SHA-256("{seed}:{c}").
    """
    cards = list(deck)
    prefixed = hashlib.sha256(f"{seed}:".encode())  # copied per draw: half the cost of a new one
    counter = 0
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        limit = _TWO_64 - (_TWO_64 % bound)
        while True:  # rejection sampling: no modulo bias
            draw = prefixed.copy()
            draw.update(b"%d" % counter)
            w = _word(draw.digest())[0]
            counter += 1
            if w < limit:
                break
        j = w % bound
        cards[i], cards[j] = cards[j], cards[i]
    return cards
