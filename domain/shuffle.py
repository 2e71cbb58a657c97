"""The audit-grade shuffle of ``docs/rules/common.md``: anyone can re-deal from the seed
and the table's salt once both are shown.

Fisher–Yates from the last position down, drawing from a SHA-256 counter stream
with rejection sampling, so the result is the same in every language.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import Final, TypeVar

T = TypeVar("T")

_TWO_64 = 1 << 64
_words: Final = struct.Struct(">II").unpack_from  # the first 8 bytes: two 32-bit words, big-endian
_ALL_ONES: Final = 0xFFFFFFFF


SALT_HEX_DIGITS = 32
"""A table's salt: 128 bits as 32 lower-case hex digits (``docs/rules/common.md``)."""


def is_salt(text: object) -> bool:
    """Whether ``text`` has the form of a salt: 32 lower-case hex digits."""
    return (
        isinstance(text, str)
        and len(text) == SALT_HEX_DIGITS
        and all(c in "0123456789abcdef" for c in text)
    )


def deal_key(seed: str | int, salt: str | None = None) -> str:
    """A table's deal key, ``"{salt}:{seed}"`` (``docs/rules/common.md``, "Deterministic
    shuffling", rule 1). The secret salt is what keeps a guessable seed from letting a
    player who knows their own hand find it by trial and deal everyone's cards.

    ``salt`` None: the bare seed, for simulations (no secret to keep) and for logs
    recorded before tables had salts, which must re-deal exactly as they were dealt.
    """
    return str(seed) if salt is None else f"{salt}:{seed}"


def deal_seed(seed: str | int, deal: int, salt: str | None = None) -> str:
    """The seed of deal ``deal`` (1-based) of a table: ``"{salt}:{seed}/{deal}"``, or
    ``"{seed}/{deal}"`` unsalted (``docs/rules/common.md``, "Deterministic shuffling", rule 1)."""
    return f"{deal_key(seed, salt)}/{deal}"


def seed_commitment(seed: str | int, salt: str | None = None) -> str:
    """SHA-256 hex digest of the deal key ``"{salt}:{seed}"`` (``docs/rules/common.md``,
    "Deterministic shuffling", rule 1), published when the table is opened; anyone checks
    it once the seed and salt are shown at the end. Unsalted: the digest of the seed."""
    return hashlib.sha256(deal_key(seed, salt).encode()).hexdigest()


#: ``_COUNTERS[c]``: the decimal digits of draw counter ``c``, as bytes.
_COUNTERS: Final = tuple(b"%d" % c for c in range(512))


def _limit(bound: int) -> int:
    """The largest multiple of ``bound`` not above 2**64: draws from it up are rejected."""
    return _TWO_64 - _TWO_64 % bound


def shuffle(deck: Sequence[T], seed: str) -> list[T]:
    """Shuffle ``deck`` (in its canonical order) with the deal seed ``seed``.

    Draw ``c`` (c = 0, 1, …) is the first 8 bytes, big-endian, of SHA-256("{seed}:{c}").
    """
    cards = list(deck)
    prefixed = hashlib.sha256(f"{seed}:".encode())  # copied per draw: half the cost of a new one
    counter = 0
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        while True:  # rejection sampling: no modulo bias
            draw = prefixed.copy()
            draw.update(_COUNTERS[counter] if counter < len(_COUNTERS) else b"%d" % counter)
            words: tuple[int, int] = _words(draw.digest())
            hi, lo = words
            counter += 1
            # The draw w = hi * 2**32 + lo is below the limit whenever hi is not all ones
            # (the limit is above 2**64 - 2**32), so the big integer w is built only then:
            # once in four billion draws. Small integers are what compiled code is fast at.
            if hi != _ALL_ONES or (hi << 32 | lo) < _limit(bound):
                break
        j = ((hi % bound) << 32 | lo) % bound  # w % bound
        cards[i], cards[j] = cards[j], cards[i]
    return cards
