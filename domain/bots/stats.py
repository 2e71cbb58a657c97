"""Summaries of simulated matches: wins with a Wilson 95% interval, score mean and
spread, per seat. Pure arithmetic over the per-match results in match order, so a
simulation's summary does not depend on how its matches were split across workers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: unlike the normal approximation it
    stays inside [0, 1] and behaves near 0 and 1 and for small ``n``."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def win_shares(ranking: Sequence[int | None]) -> list[float]:
    """A match's win per seat: 1 to the winner, shared equally by seats tied first."""
    first = [s for s, place in enumerate(ranking) if place == 1]
    return [1 / len(first) if s in first else 0.0 for s in range(len(ranking))]


def summarize(seats: Sequence[str], results: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """``results``: ``[totals, ranking]`` per match, in match order; ``seats``: the bot
    of each seat. Seats the match does not rank (Lopaka) are left out."""
    n = len(results)
    rows = []
    for seat, name in enumerate(seats):
        wins = sum(win_shares(ranking)[seat] for _, ranking in results)
        scores = [totals[seat] for totals, _ in results]
        mean = sum(scores) / n if n else 0.0
        sd = math.sqrt(sum((x - mean) ** 2 for x in scores) / (n - 1)) if n > 1 else 0.0
        low, high = wilson(wins, n)
        rows.append(
            {
                "seat": seat,
                "bot": name,
                "matches": n,
                "wins": round(wins, 6),
                "win_rate": round(wins / n, 6) if n else 0.0,
                "win_rate_ci95": [round(low, 6), round(high, 6)],
                "mean_score": round(mean, 6),
                "sd_score": round(sd, 6),
            }
        )
    return {"matches": n, "seats": rows}
