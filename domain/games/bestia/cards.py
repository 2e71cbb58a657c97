"""Bestia's French deck (``docs/rules/bestia.md``, Players, deck, ranking;
``docs/rules/common.md``).

A card is named in the common notation (``"10H"``, ``"JC"``) in actions, events and
views; inside the engine it is an integer *id* ``13 * suit + rank`` (suits ``C D H S``,
ranks ``2 … A`` as 0 … 12), so sorting ids is the canonical order for shuffling, and a
hand is a bitmask over ids. The rules of play (asistir, matar, fallar, pisar) are one
mask operation each thanks to :class:`Trumps`, built once per trump suit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from domain.errors import RuleViolation

SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

#: ``NAMES[id]``: the card's notation; ids ascending are the canonical order.
NAMES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
CARD_ID: dict[str, int] = {name: i for i, name in enumerate(NAMES)}
BIT: tuple[int, ...] = tuple(1 << i for i in range(52))
NAME_BIT: dict[str, int] = {name: 1 << i for i, name in enumerate(NAMES)}
SUIT_OF: tuple[int, ...] = tuple(i // 13 for i in range(52))
RANK_OF: tuple[int, ...] = tuple(i % 13 for i in range(52))

#: El pánfilo, the jack of clubs.
PANFILO = CARD_ID["JC"]
#: Its strength within the trump suit: above the ace (12).
PANFILO_POWER = 13


def deck(players: int, kind: str) -> tuple[int, ...]:
    """The deck in use, in canonical order (suits ``C D H S``, ranks ``2 … A``).

    ``short``: A down to 7 (32 cards) for 3 players and one more rank per extra player,
    so 52 cards for 8; ``full``: all 52.
    """
    lowest = 0 if kind == "full" else max(0, RANKS.index("7") - (players - 3))
    return tuple(i for i in range(52) if RANK_OF[i] >= lowest)


def mask_of(ids: Iterable[int]) -> int:
    m = 0
    for i in ids:
        m |= BIT[i]
    return m


def ids_of(mask: int) -> list[int]:
    """The ids in a mask, ascending (canonical order)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def names_of(mask: int) -> list[str]:
    return [NAMES[i] for i in ids_of(mask)]


def names_of_ids(ids: Iterable[int]) -> list[str]:
    return list(map(NAMES.__getitem__, ids))


def card_id(value: object, deck_mask: int) -> int:
    """Validate one card of the deck in use (``unknown_card`` names anything else)."""
    i = CARD_ID.get(value) if type(value) is str else None
    if i is None:
        raise RuleViolation(
            "unknown_card",
            f"{value!r} is not a card: Bestia writes rank then suit, such as '10H' or 'JC'",
        )
    if not deck_mask & BIT[i]:
        raise RuleViolation("unknown_card", f"{value} is not in the deck in use at this table")
    return i


class Trumps(NamedTuple):
    """The rules of play under one trump suit, precomputed (docs/rules/bestia.md, Tricks).

    ``suit_mask[s]``: the cards that count as suit ``s`` (with the pánfilo on, ``JC``
    belongs to the trump suit, never to clubs); ``suit_of[i]`` likewise per card;
    ``power[i]``: strength within its suit (the pánfilo 13, above the ace);
    ``above[i]``: the cards of the same suit that beat card ``i``; ``beaten_by[i]``: the
    cards that beat ``i`` when it wins a trick so far (``above``, and every trump if
    ``i`` is not one).
    """

    suit: int
    panfilo: bool
    suit_mask: tuple[int, ...]
    suit_of: tuple[int, ...]
    power: tuple[int, ...]
    above: tuple[int, ...]
    beaten_by: tuple[int, ...]

    def __repr__(self) -> str:  # the tables follow from these two
        return f"Trumps(suit={SUITS[self.suit]!r}, panfilo={self.panfilo})"


def _trumps(trump: int, panfilo: bool) -> Trumps:
    suit_of = list(SUIT_OF)
    power = list(RANK_OF)
    if panfilo:
        suit_of[PANFILO] = trump
        power[PANFILO] = PANFILO_POWER
    suit_mask = tuple(mask_of(i for i in range(52) if suit_of[i] == s) for s in range(4))
    above = tuple(
        mask_of(j for j in range(52) if suit_of[j] == suit_of[i] and power[j] > power[i])
        for i in range(52)
    )
    beaten_by = tuple(
        above[i] | (0 if suit_of[i] == trump else suit_mask[trump]) for i in range(52)
    )
    return Trumps(trump, panfilo, suit_mask, tuple(suit_of), tuple(power), above, beaten_by)


#: ``TRUMPS[panfilo][trump suit]``
TRUMPS: tuple[tuple[Trumps, ...], ...] = tuple(
    tuple(_trumps(t, bool(p)) for t in range(4)) for p in (0, 1)
)
