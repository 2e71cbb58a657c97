"""The basic Decktet (``docs/rules/oh-quay.md``, The deck): 36 cards, six suits, ranks 1–10.

A card is its id in the notation of ``docs/rules/common.md`` (``"ace-moons"``, ``"author"`` …)
everywhere: in actions, events and the state, so the log reads like the table. The rules
look cards up in precomputed tables keyed by id: ``RANK``, ``SUIT_MASK`` (one bit per
suit, so "do these cards share a suit?" is an ``&``) and ``BIT`` (one bit per card, for
sets of cards such as what a seat knows of the opponent's canal).
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.errors import RuleViolation

SUITS = ("moons", "suns", "waves", "leaves", "wyrms", "knots")
MOONS, SUNS, WAVES, LEAVES, WYRMS, KNOTS = (1 << i for i in range(6))

# docs/rules/oh-quay.md, "The deck": rank → (card id, suits), in canonical order.
_TABLE: tuple[tuple[int, tuple[tuple[str, int], ...]], ...] = (
    (
        1,
        (
            ("ace-moons", MOONS),
            ("ace-suns", SUNS),
            ("ace-waves", WAVES),
            ("ace-leaves", LEAVES),
            ("ace-wyrms", WYRMS),
            ("ace-knots", KNOTS),
        ),
    ),
    (2, (("author", MOONS | KNOTS), ("desert", SUNS | WYRMS), ("origin", WAVES | LEAVES))),
    (3, (("journey", MOONS | WAVES), ("painter", SUNS | KNOTS), ("savage", LEAVES | WYRMS))),
    (4, (("mountain", MOONS | SUNS), ("sailor", WAVES | LEAVES), ("battle", WYRMS | KNOTS))),
    (5, (("forest", MOONS | LEAVES), ("discovery", SUNS | WAVES), ("soldier", WYRMS | KNOTS))),
    (6, (("lunatic", MOONS | WAVES), ("penitent", SUNS | WYRMS), ("market", LEAVES | KNOTS))),
    (7, (("chance-meeting", MOONS | LEAVES), ("castle", SUNS | KNOTS), ("cave", WAVES | WYRMS))),
    (8, (("diplomat", MOONS | SUNS), ("mill", WAVES | LEAVES), ("betrayal", WYRMS | KNOTS))),
    (9, (("pact", MOONS | SUNS), ("darkness", WAVES | WYRMS), ("merchant", LEAVES | KNOTS))),
    (
        10,
        (
            ("huntress", MOONS),
            ("bard", SUNS),
            ("sea", WAVES),
            ("end", LEAVES),
            ("calamity", WYRMS),
            ("windfall", KNOTS),
        ),
    ),
)

#: The canonical order for shuffling: by rank, then as the table lists them.
DECK: tuple[str, ...] = tuple(name for _, row in _TABLE for name, _ in row)
RANK: dict[str, int] = {name: rank for rank, row in _TABLE for name, _ in row}
SUIT_MASK: dict[str, int] = {name: suits for _, row in _TABLE for name, suits in row}
INDEX: dict[str, int] = {name: i for i, name in enumerate(DECK)}
BIT: dict[str, int] = {name: 1 << i for i, name in enumerate(DECK)}
FULL_DECK_MASK = (1 << len(DECK)) - 1


def cards_of(mask: int) -> tuple[str, ...]:
    """The cards of a bitmask over ``BIT`` (such as ``State.known``), in canonical order."""
    return tuple(c for i, c in enumerate(DECK) if mask >> i & 1)


def suits_of(c: str) -> tuple[str, ...]:
    """The suit names of a card, in the order of ``SUITS``."""
    mask = SUIT_MASK[c]
    return tuple(name for i, name in enumerate(SUITS) if mask >> i & 1)


def card(value: object) -> str:
    """Validate one card id (``docs/rules/common.md``, Card notation); refuse others by name."""
    if type(value) is str and value in RANK:
        return value
    raise RuleViolation(
        "unknown_card",
        f"{value!r} is not an Oh Quay card: cards are the basic Decktet's 36, named in "
        "lower-case kebab form without 'the' ('ace-moons', 'author', 'chance-meeting' …)",
    )


def raft_length(canal: Sequence[str]) -> int:
    """How many cards at the front of ``canal`` form a raft (0 for an empty canal).

    A raft shares at least one suit and rises strictly in rank from the front; every
    front part of a raft is a raft too, so the legal launches are 1 … this length.
    """
    if not canal:
        return 0
    first = canal[0]
    common, rank = SUIT_MASK[first], RANK[first]
    n = 1
    for c in canal[1:]:
        common &= SUIT_MASK[c]
        r = RANK[c]
        if not common or r <= rank:
            break
        rank = r
        n += 1
    return n


def raft_fault(cards: Sequence[str]) -> str | None:
    """Why ``cards`` (front first) are not a raft, in words; ``None`` if they are."""
    common = SUIT_MASK[cards[0]]
    for i in range(1, len(cards)):
        c, before = cards[i], cards[i - 1]
        common &= SUIT_MASK[c]
        if not common:
            return f"{c} ({'/'.join(suits_of(c))}) shares no suit with {', '.join(cards[:i])}"
        if RANK[c] <= RANK[before]:
            return f"{c} (rank {RANK[c]}) does not rank above {before} (rank {RANK[before]})"
    return None
