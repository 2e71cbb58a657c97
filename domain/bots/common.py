"""What every bot shares: the random choice, the seat's observation
(``domain.bots.observation``), and the determinized Monte Carlo search loop.

The search is *perfect-information Monte Carlo* over an information set: each round
samples one world (the hidden cards dealt out consistently with the seat's
observation), plays every candidate out in it with the same policy randomness (common
random numbers, so candidates are compared on equal terms), and the candidate with the
best average outcome wins. The budget counts playouts, so a decision's cost is bounded
whatever the position.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from domain.bots.observation import current_deal, observe
from domain.errors import RuleViolation

__all__ = ["current_deal", "legal_bodies", "observe", "random_choice", "search", "weighted_fill"]

T = TypeVar("T")
W = TypeVar("W")


def legal_bodies(view: Mapping[str, Any]) -> Sequence[dict[str, Any]]:
    """The seat's legal actions (not copied: an ``Observation`` makes each body when it is
    read); a bot asked to act when it may not is a caller's bug."""
    legal: Sequence[dict[str, Any]] = view.get("legal_actions") or []
    if not legal:
        raise RuleViolation("no_legal_action", "this seat has nothing to do now")
    return legal


def random_choice(view: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """The ``random`` bot: uniform over the legal actions."""
    legal = legal_bodies(view)
    return dict(legal[rng.randrange(len(legal))])


def search(
    candidates: Sequence[T],
    sample: Callable[[random.Random], W],
    playout: Callable[[W, T, random.Random], float],
    budget: int,
    rng: random.Random,
    doubt: float = 0.0,
) -> T:
    """The candidate with the best mean playout value, ``budget`` playouts in all.

    Sequential halving: the budget is spread over ``ceil(log2(k))`` rounds; each round
    plays every remaining candidate out in the same fresh worlds (common random numbers,
    so they are compared on equal terms) and keeps the better half by mean value so far.
    Clear losers stop costing playouts early and the close calls get the rest.
    Candidates come best-first by the caller's heuristic: ties (and a budget too small
    to try them all) keep that order. ``doubt``: the winner must also beat the first
    candidate by that many standard errors of their difference, world by world, or the
    first stands (a few noisy playouts do not overrule a sound heuristic).
    """
    alive = list(range(len(candidates)))
    if len(alive) == 1 or budget < len(alive):
        return candidates[0]
    rounds = max(1, math.ceil(math.log2(len(alive))))
    totals = [0.0] * len(candidates)
    counts = [0] * len(candidates)
    values: list[list[float]] = [[] for _ in candidates]  # per world, while alive
    for r in range(rounds):
        worlds = max(1, budget // (rounds * len(alive)))
        for _ in range(worlds):
            world = sample(rng)
            seed = rng.getrandbits(64)
            for i in alive:
                value = playout(world, candidates[i], random.Random(seed))
                totals[i] += value
                counts[i] += 1
                values[i].append(value)
        alive.sort(key=lambda i: (-totals[i] / counts[i], i))
        if r < rounds - 1:
            alive = alive[: math.ceil(len(alive) / 2)]
    best = alive[0]
    if doubt and best != 0 and not _clearly_better(values[best], values[0], doubt):
        return candidates[0]
    return candidates[best]


def _clearly_better(values: list[float], first: list[float], doubt: float) -> bool:
    """Whether ``values`` beat ``first`` by more than ``doubt`` standard errors, paired
    over the worlds both were played in (the first ones: a candidate dropped out early)."""
    diffs = [a - b for a, b in zip(values, first, strict=False)]
    n = len(diffs)
    if n < 2:
        return False
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean > doubt * math.sqrt(variance / n)


def weighted_fill(
    pool: list[T],
    capacity: list[int],
    allowed: Callable[[int, T], bool],
    rng: random.Random,
    tries: int = 8,
) -> list[list[T]]:
    """Deal the ``pool`` into bins of the given ``capacity`` so that every card lands
    where ``allowed(bin, card)`` (a hand known to be void of a suit gets none of it).

    First by rejection: a uniform deal kept only if it breaks no constraint, which is
    exactly uniform over the consistent deals. When constraints are too tight for that,
    cards with the fewest possible bins go first; when even that fails, the constraints
    are dropped rather than the decision (they are only inferences)."""
    for _ in range(tries):
        cards = pool[:]
        rng.shuffle(cards)
        bins: list[list[T]] = []
        i = 0
        for size in capacity:
            bins.append(cards[i : i + size])
            i += size
        if all(allowed(b, c) for b, part in enumerate(bins) for c in part):
            return bins
    nbins = len(capacity)
    for strict in (True, True, True, False):
        cards = pool[:]
        rng.shuffle(cards)
        options_of = {c: [b for b in range(nbins) if not strict or allowed(b, c)] for c in cards}
        cards.sort(key=lambda c: len(options_of[c]))
        left = capacity[:]
        bins = [[] for _ in capacity]
        for card in cards:
            options = [b for b in options_of[card] if left[b]]
            if not options:
                break
            b = rng.choices(options, [left[b] for b in options])[0]
            bins[b].append(card)
            left[b] -= 1
        else:
            return bins
    raise AssertionError("the pool does not fit the bins")
