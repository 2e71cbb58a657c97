"""Round-robin seating: over the rounds, opponents spread as evenly as possible.

Two-player tables follow the circle method; larger tables follow a plan of all the
tournament's rounds (the most even of several seeded schedules), made from the seed and
the roster alone so every round finds the same plan again; once the roster changes (a
late entry, a withdrawal, byes) each round is searched on its own from the history.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence

from domain.shuffle import shuffle
from domain.tournament.meetings import Met, Pair, cost, cost_with, pair


def circle(
    entries: Sequence[int], met: Met, byes_had: Mapping[int, int], seed: str, bots: bool
) -> tuple[list[list[int]], list[int]]:
    """Two-player round robin by the circle method over a seeded order of the roster (a
    ghost partner is the bye, or the bot): of its rounds, the one that repeats least and
    gives the bye to who had fewest. While the roster is unchanged, that is the next
    unplayed round, so every pair meets exactly once per cycle."""
    roster: list[int | None] = list(shuffle(list(entries), f"{seed}/round-robin"))
    if len(roster) % 2:
        roster.append(None)
    n = len(roster)
    best: tuple[int, list[list[int]], list[int]] | None = None
    for r in range(n - 1):
        line = [roster[0], *roster[1 + r :], *roster[1 : 1 + r]]
        groups: list[list[int]] = []
        alone: list[int] = []
        price = 0
        for i in range(n // 2):
            a, b = line[i], line[n - 1 - i]
            if a is None or b is None:
                lone = b if a is None else a
                assert lone is not None
                alone.append(lone)
                price += 0 if bots else byes_had.get(lone, 0) ** 2
            else:
                groups.append([a, b])
                price += met.get(pair(a, b), 0) ** 2
        if best is None or price < best[0]:
            best = (price, groups, alone)
    assert best is not None
    _, groups, alone = best
    if bots:  # the one left without a partner plays a bot (an even field: nobody)
        return [*groups, *([alone] if alone else [])], []
    return groups, alone


SEARCH_STARTS = 3
SEARCH_KICKS = 10
PLAN_ATTEMPTS = 48
PLAN_WORK = 4000  # entry-rounds planned in all attempts together: bounds the time taken
PLAN_STARTS = 1
PLAN_KICKS = 5
MAX_PLANNED_ROUNDS = 15


def planned(
    roster: Sequence[int],
    sizes: Sequence[int],
    seed: str,
    rounds: int | None,
    history: Sequence[Sequence[Sequence[int | None]]],
) -> list[list[int]] | None:
    """This round's tables from the tournament's round-robin plan, while the rounds played
    so far are the plan's (same roster, no byes); else ``None``.

    Seating one round at a time often leaves a cycle's last rounds no way to avoid
    rematches (16 players in fours: two times in three). The plan is the best of several
    seeded schedules for all the rounds, a function of the seed and the roster only, so
    every round finds the same plan again.
    """
    cycle = -(-(len(roster) - 1) // (sizes[0] - 1))  # rounds for everyone to meet once
    length = min(rounds or cycle, MAX_PLANNED_ROUNDS)
    if len(history) >= length:
        return None
    plan = _schedule(tuple(roster), tuple(sizes), seed, length)
    for played, groups in zip(history, plan, strict=False):
        tables = {frozenset(e for e in seats if e is not None) for seats in played}
        if tables != {frozenset(g) for g in groups}:
            return None
    return [list(g) for g in plan[len(history)]]


@functools.lru_cache(maxsize=32)
def _schedule(
    roster: tuple[int, ...], sizes: tuple[int, ...], seed: str, length: int
) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The most even of up to ``PLAN_ATTEMPTS`` seeded round-by-round schedules (each
    succeeds or fails on its early rounds' luck, so many cheap attempts beat a few
    thorough ones). Cached: a pure function, asked again at every round."""
    pairs = len(roster) * (len(roster) - 1) // 2
    per_round = sum(s * (s - 1) // 2 for s in sizes)
    q, r = divmod(per_round * length, pairs)
    floor = (pairs - r) * q * q + r * (q + 1) ** 2  # Σ (times met)² as even as can be
    best: tuple[int, list[list[list[int]]]] | None = None
    attempts = max(3, min(PLAN_ATTEMPTS, PLAN_WORK // (len(roster) * length)))
    for attempt in range(attempts):
        rng = random.Random(f"{seed}/round-robin-plan/{attempt}")
        met: dict[Pair, int] = {}
        plan: list[list[list[int]]] = []
        for _ in range(length):
            groups = _search(roster, sizes, met, rng, PLAN_STARTS, PLAN_KICKS)
            groups = replay(plan, roster, sizes, met, groups)
            plan.append(groups)
            for g in groups:
                for i, a in enumerate(g):
                    for b in g[i + 1 :]:
                        met[pair(a, b)] = met.get(pair(a, b), 0) + 1
        score = sum(n * n for n in met.values())
        if best is None or score < best[0]:
            best = (score, plan)
        if score == floor:
            break
    assert best is not None
    return tuple(tuple(tuple(g) for g in groups) for groups in best[1])


def spread(line: Sequence[int], sizes: Sequence[int], met: Met, seed: str) -> list[list[int]]:
    """One round's tables meeting as few past opponents as possible."""
    return _search(line, sizes, met, random.Random(seed), SEARCH_STARTS, SEARCH_KICKS)


def _search(
    line: Sequence[int],
    sizes: Sequence[int],
    met: Met,
    rng: random.Random,
    starts: int,
    kicks: int,
) -> list[list[int]]:
    """Greedy tables from seeded orders, each improved by swaps between tables, then
    kicked out of its local minimum and improved again; the cheapest found."""
    best: tuple[int, list[list[int]]] | None = None
    for _ in range(starts):
        order = list(line)
        rng.shuffle(order)
        groups = _greedy(order, sizes, met)
        price = _improve(groups, met)
        for _ in range(kicks if price else 0):
            trial = [list(g) for g in groups]
            _kick(trial, rng)
            trial_cost = _improve(trial, met)
            if trial_cost <= price:
                groups, price = trial, trial_cost
            if price == 0:
                break
        if best is None or price < best[0]:
            best = (price, groups)
        if best[0] == 0:
            break
    assert best is not None
    return best[1]


def _kick(groups: list[list[int]], rng: random.Random) -> None:
    """A few random swaps between tables, to leave a local minimum."""
    if len(groups) < 2:
        return
    for _ in range(2):
        i, j = rng.sample(range(len(groups)), 2)
        x, y = rng.randrange(len(groups[i])), rng.randrange(len(groups[j]))
        groups[i][x], groups[j][y] = groups[j][y], groups[i][x]


def replay(
    history: Sequence[Sequence[Sequence[int | None]]],
    playing: Sequence[int],
    sizes: Sequence[int],
    met: Met,
    found: list[list[int]],
) -> list[list[int]]:
    """An earlier round's tables again, if they cost no more than the search found: once
    every pair has met equally often, repeating the rounds in order keeps them even (the
    search alone would pick any of many equal-cost rounds and lose the structure)."""
    best, price = found, sum(cost(met, g) for g in found)
    people = set(playing)
    for played in history:
        groups = [[e for e in seats if e is not None] for seats in played]
        groups.sort(key=len, reverse=True)
        if [len(g) for g in groups] != list(sizes) or {e for g in groups for e in g} != people:
            continue
        again = sum(cost(met, g) for g in groups)
        if again < price or (again == price and best is found):
            best, price = groups, again  # ties: the oldest round, over the search
    return best


def _greedy(order: Sequence[int], sizes: Sequence[int], met: Met) -> list[list[int]]:
    """Fill tables one by one, each seat with whoever has met its table least."""
    left = list(order)
    groups = []
    for size in sizes:
        group = [left.pop(0)]
        while len(group) < size:
            i = min(range(len(left)), key=lambda i: (cost_with(met, left[i], group, -1), i))
            group.append(left.pop(i))
        groups.append(group)
    return groups


def _improve(groups: list[list[int]], met: Met) -> int:
    """Swap players between tables while a swap lowers the cost; the final cost."""
    costs = [cost(met, g) for g in groups]
    changed = True
    while changed:
        changed = False
        for i, gi in enumerate(groups):
            if not costs[i]:
                continue
            for j, gj in enumerate(groups):
                if i == j:
                    continue
                for x, a in enumerate(gi):
                    here = cost_with(met, a, gi, a)
                    if not here:
                        continue  # only a player who has met someone at its table moves
                    for y, b in enumerate(gj):
                        delta = (
                            cost_with(met, b, gi, a)
                            - here
                            + cost_with(met, a, gj, b)
                            - cost_with(met, b, gj, b)
                        )
                        if delta < 0:
                            gi[x], gj[y] = b, a
                            costs[i], costs[j] = cost(met, gi), cost(met, gj)
                            changed = True
                            break
                if not costs[i]:
                    break
    return sum(costs)
