"""Matches (``docs/rules/common.md``): stopping conditions and the final ranking."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.match import MatchRules, ranking


def test_the_default_is_a_target_of_200() -> None:
    assert MatchRules() == MatchRules(target_score=200, max_deals=None)


def test_at_least_one_stopping_condition() -> None:
    with pytest.raises(RuleViolation) as caught:
        MatchRules(None, None)
    assert caught.value.code == "invalid_match"


@pytest.mark.parametrize("target,deals", [(0, None), (None, 0), (-5, 3)])
def test_stopping_conditions_are_positive(target: int | None, deals: int | None) -> None:
    with pytest.raises(RuleViolation):
        MatchRules(target, deals)


def test_a_target_is_reached_at_or_above_it() -> None:
    rules = MatchRules(200, None)
    assert not rules.is_over((199, 150, -20), 9, (0, 1, 2))
    assert rules.is_over((200, 150, -20), 9, (0, 1, 2))
    assert rules.is_over((10, 503, -20), 9, (0, 1, 2))


def test_max_deals_ends_the_match() -> None:
    rules = MatchRules(None, 4)
    assert not rules.is_over((0, 0, 0), 3, (0, 1, 2))
    assert rules.is_over((0, 0, 0), 4, (0, 1, 2))


def test_both_whichever_comes_first() -> None:
    rules = MatchRules(100, 4)
    assert rules.is_over((100, 0), 1, (0, 1))
    assert rules.is_over((10, 0), 4, (0, 1))


def test_only_ranked_seats_reach_a_target() -> None:
    assert not MatchRules(100, None).is_over((10, 20, 300), 1, (0, 1))


def test_higher_total_first_and_equal_totals_share_a_place() -> None:
    assert ranking((30, 50, 50, -4), (0, 1, 2, 3)) == (3, 1, 1, 4)
    assert ranking((7, 7, 7), (0, 1, 2)) == (1, 1, 1)


def test_an_unranked_seat_gets_no_place() -> None:
    assert ranking((10, 20, 99), (0, 1)) == (2, 1, None)
