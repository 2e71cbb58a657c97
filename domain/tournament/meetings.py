"""Who has met whom: the pair counts every pairing method reads, and the cost of seating
a group together (``Σ over its pairs of (times met)²``, so a pair meeting a third time
costs more than two pairs meeting a second time)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

Pair = tuple[int, int]
Met = Mapping[Pair, int]


def pair(a: int, b: int) -> Pair:
    return (a, b) if a < b else (b, a)


def meetings(tables: Iterable[Sequence[int | None]]) -> dict[Pair, int]:
    """How often each pair of entries shared a table (bots are nobody)."""
    met: dict[Pair, int] = {}
    for seats in tables:
        people = sorted(e for e in seats if e is not None)
        for i, a in enumerate(people):
            for b in people[i + 1 :]:
                met[a, b] = met.get((a, b), 0) + 1
    return met


def repeats(met: Met) -> int:
    """Meetings beyond the first, over all pairs: 0 when no pair met twice."""
    return sum(n - 1 for n in met.values() if n > 1)


def cost(met: Met, group: Sequence[int]) -> int:
    """Seating ``group`` together: Σ over its pairs of (times met)²."""
    total = 0
    for i, a in enumerate(group):
        for b in group[i + 1 :]:
            m = met.get(pair(a, b), 0)
            total += m * m
    return total


def cost_with(met: Met, who: int, group: Sequence[int], leaving: int) -> int:
    """Cost of ``who`` sitting with ``group`` once ``leaving`` has left it."""
    total = 0
    for other in group:
        if other != leaving:
            m = met.get(pair(who, other), 0)
            total += m * m
    return total
