"""Matches, game-agnostic: a table plays deals until a stopping condition is met.

``docs/rules/common.md`` (Matches, deals, targets): the match ends after the deal in which
some ranked seat's total first reaches ``target_score`` or ``max_deals`` deals have
been played. Equal totals share a place; tournaments apply their own tie-breaks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.errors import RuleViolation


@dataclass(frozen=True, slots=True)
class MatchRules:
    """When a match stops. At least one of the two must be set."""

    target_score: int | None = 200
    max_deals: int | None = None

    def __post_init__(self) -> None:
        if self.target_score is None and self.max_deals is None:
            raise RuleViolation(
                "invalid_match", "a match needs a target_score, a max_deals, or both"
            )
        if self.target_score is not None and self.target_score <= 0:
            raise RuleViolation("invalid_match", "target_score must be a positive number")
        if self.max_deals is not None and self.max_deals <= 0:
            raise RuleViolation("invalid_match", "max_deals must be a positive number")

    def is_over(self, totals: Sequence[int], deals_played: int, ranked: Sequence[int]) -> bool:
        """True once a ranked seat reached the target or the last deal was played."""
        if self.max_deals is not None and deals_played >= self.max_deals:
            return True
        target = self.target_score
        return target is not None and any(totals[s] >= target for s in ranked)


def ranking(totals: Sequence[int], ranked: Sequence[int]) -> tuple[int | None, ...]:
    """Place (1 = first) per seat, higher total first; equal totals share the place.

    Seats not in ``ranked`` (Lopaka, the dummy) get ``None``: they are not competitors.
    """
    places: list[int | None] = [None] * len(totals)
    for s in ranked:
        places[s] = 1 + sum(1 for o in ranked if totals[o] > totals[s])
    return tuple(places)
