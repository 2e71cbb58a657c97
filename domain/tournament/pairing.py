"""Seating a round: who shares a table, who sits out, where bots sit, who deals first.

Three methods (``PAIRINGS``):
- ``random``: a seeded shuffle cut into tables.
- ``round_robin``: over the rounds, opponents spread as evenly as possible
  (``round_robin.py``: the circle method, or a plan of all the rounds).
- ``swiss``: tables of neighbours in the current standings, top down; a neighbour met
  before is passed over for the next one in a small window, then a repair pass swaps
  members of nearby tables to remove the repeats left.

When the entries do not fill the tables, ``fill_with_bots`` spreads the bots over them,
so that the tables' head-counts differ by one at most and nobody sits alone among bots
where the field allows otherwise (docs/rules/common.md, "Tournaments"); otherwise the
extra entries get a bye (fewest byes first; in Swiss the lowest placed).
Deterministic from the seed: every random choice comes from ``domain.shuffle.shuffle``
(the audit-grade shuffle of ``docs/rules/common.md``) or ``random.Random`` seeded with a
string derived from ``"{seed}/round-{r}"``, so anyone can re-derive a round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from domain.errors import RuleViolation
from domain.shuffle import shuffle
from domain.tournament import round_robin
from domain.tournament.meetings import Met, cost, cost_with, meetings, pair, repeats

PAIRINGS = ("random", "round_robin", "swiss")
__all__ = ["PAIRINGS", "Seating", "meetings", "pair", "repeats", "seat"]


@dataclass(frozen=True, slots=True)
class Seating:
    """A round before its tables exist: the entry per seat (``None``: a bot), each
    table's first dealer, and the entries that sit out."""

    tables: tuple[tuple[int | None, ...], ...]
    first_dealers: tuple[int, ...]
    byes: tuple[int, ...]


def seat(
    method: str,
    ranks: Mapping[int, int],
    table_size: int,
    *,
    seed: str,
    round_number: int,
    history: Sequence[Sequence[Sequence[int | None]]] = (),
    byes_had: Mapping[int, int] | None = None,
    fill_with_bots: bool = False,
    rounds: int | None = None,
) -> Seating:
    """Seat the entries of ``ranks`` (entry → current rank; only Swiss reads the ranks).

    ``history``: the earlier rounds, each a list of tables (the entry per seat);
    ``rounds``: how many the tournament plays (round robin plans them all at once).
    """
    met = meetings(t for played in history for t in played)
    byes_had = byes_had or {}
    entries = sorted(ranks)
    n, k = len(entries), table_size
    if fill_with_bots:
        if n < 2:
            raise RuleViolation("not_enough_entries", "a round needs at least two entries")
        count = -(-n // k)  # as few tables as seat everyone, the people spread evenly
        base, extra = divmod(n, count)
        sizes = [base + 1] * extra + [base] * (count - extra)
    else:
        if n < k:
            raise RuleViolation(
                "not_enough_entries", f"{n} active entries cannot fill a table of {k}"
            )
        sizes = [k] * (n // k)
    prefix = f"{seed}/round-{round_number}"
    drawn = {e: i for i, e in enumerate(shuffle(entries, f"{prefix}/order"))}
    sit_out = n - sum(sizes)

    if method == "round_robin" and k == 2:
        groups, byes = round_robin.circle(entries, met, byes_had, seed, fill_with_bots)
    else:
        if method == "swiss":
            line = sorted(entries, key=lambda e: (ranks[e], drawn[e]))
            bottom_first = {e: -i for i, e in enumerate(line)}
            byes = sorted(entries, key=lambda e: (byes_had.get(e, 0), bottom_first[e]))[:sit_out]
        else:
            line = sorted(entries, key=drawn.__getitem__)
            byes = sorted(entries, key=lambda e: (byes_had.get(e, 0), drawn[e]))[:sit_out]
        playing = [e for e in line if e not in set(byes)]
        if method == "swiss":
            groups = _swiss(playing, sizes, met)
        elif method == "round_robin":
            plan = None if byes else round_robin.planned(entries, sizes, seed, rounds, history)
            if plan is not None:
                groups = plan
            else:  # the roster changed: this round alone, from the history
                groups = round_robin.spread(playing, sizes, met, f"{prefix}/spread")
                groups = round_robin.replay(history, playing, sizes, met, groups)
        else:
            groups = _cut(playing, sizes)
    tables = []
    dealers = []
    for number, group in enumerate(groups, start=1):
        seats: list[int | None] = [*group, *([None] * (k - len(group)))]
        tables.append(tuple(shuffle(seats, f"{prefix}/table-{number}/seats")))
        dealers.append(shuffle(list(range(k)), f"{prefix}/table-{number}/dealer")[0])
    return Seating(tuple(tables), tuple(dealers), tuple(sorted(byes)))


def _cut(line: Sequence[int], sizes: Sequence[int]) -> list[list[int]]:
    groups, start = [], 0
    for size in sizes:
        groups.append(list(line[start : start + size]))
        start += size
    return groups


# --- swiss -----------------------------------------------------------------------------------

WINDOW = 3  # Swiss looks this many tables' worth of neighbours ahead for a fresh opponent
REPAIR_REACH = 3  # and repairs a repeat by a swap with a table at most this many away


def _swiss(line: Sequence[int], sizes: Sequence[int], met: Met) -> list[list[int]]:
    """Neighbours in the standings, top down, avoiding repeat meetings where possible."""
    left = list(line)
    groups = []
    for size in sizes:
        group = [left.pop(0)]
        reach = WINDOW * size
        while len(group) < size:
            i = min(
                range(min(reach, len(left))),
                key=lambda i: (cost_with(met, left[i], group, -1), i),
            )
            group.append(left.pop(i))
        groups.append(group)
    _repair(groups, met, REPAIR_REACH)
    while _repair(groups, met, len(groups)):  # a farther neighbour beats a rematch
        pass
    return groups


def _repair(groups: list[list[int]], met: Met, reach: int) -> bool:
    """Remove repeats left by the greedy pass with swaps with tables at most ``reach``
    away, nearest first, bottom up (where the greedy pass had least choice); a swap must
    lower the repeats. Whether any swap was made."""
    swapped = False
    for i in range(len(groups) - 1, -1, -1):
        gi = groups[i]
        if not cost(met, gi):
            continue
        near = range(max(0, i - reach), min(len(groups), i + reach + 1))
        for j in sorted(near, key=lambda j: (abs(j - i), j)):
            if j == i:
                continue
            gj = groups[j]
            for x, a in enumerate(gi):
                for y, b in enumerate(gj):
                    delta = (
                        cost_with(met, b, gi, a)
                        - cost_with(met, a, gi, a)
                        + cost_with(met, a, gj, b)
                        - cost_with(met, b, gj, b)
                    )
                    if delta < 0:
                        gi[x], gj[y] = b, a
                        a = b
                        swapped = True
            if not cost(met, gi):
                break
    return swapped
