"""Match points and standings, hand-computed: places to points (shared places share),
bots and Lopaka out of the count, byes, and each tie-break in its turn."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from domain.tournament.standings import (
    UNIT,
    Result,
    Row,
    Standing,
    bye_units,
    place_units,
    shown,
    standings,
    table_units,
    units,
)

A, B, C, D, E, F = range(1, 7)
NAMES = {A: "Ann", B: "Bo", C: "Cy", D: "Di", E: "Ed", F: "Flo"}


def people(*entries: int, withdrawn: Sequence[int] = ()) -> list[Standing]:
    return [Standing(e, NAMES[e], withdrawn=e in withdrawn) for e in entries]


def duel(a: int, a_total: int, b: int, b_total: int) -> Result:
    """A two-player table."""
    ranking = (1 if a_total >= b_total else 2, 1 if b_total >= a_total else 2)
    return Result((a, b), (a_total, b_total), ranking)


def table(rows: list[Row]) -> list[tuple[int, str, float, int, float, int | None]]:
    """(rank, name, match points, score, Buchholz, head-to-head) per row, in order."""
    return [
        (r.rank, r.name, shown(r.match_points), r.score, shown(r.buchholz), r.head_to_head)
        for r in rows
    ]


# --- points per table ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("totals", "by_place", "points"),
    [
        ([30, 20, 10, 5], None, [3, 2, 1, 0]),
        ([30, 20, 20, 5], None, [3, 1.5, 1.5, 0]),  # 2nd and 3rd share (2 + 1) / 2
        ([40, 40, 40, 5], None, [2, 2, 2, 0]),  # three share (3 + 2 + 1) / 3
        ([7, 7, 7, 7], None, [1.5, 1.5, 1.5, 1.5]),
        ([12, 30, 21], None, [0, 2, 1]),  # a 3-player table: 2 … 0
        ([30, 20, 20, 5], [10, 6, 3, 0], [10, 4.5, 4.5, 0]),  # the tournament's own list
        ([9, 9, 9], [5, 3, 2, 0], [10 / 3, 10 / 3, 10 / 3]),  # a list longer than the table
    ],
)
def test_places_give_match_points_and_shared_places_share_them(
    totals: list[int], by_place: list[int] | None, points: list[float]
) -> None:
    assert [u / UNIT for u in place_units(totals, by_place)] == pytest.approx(points)


def test_bots_are_not_ranked_and_push_nobody_down() -> None:
    # Entries 1 and 3 share first among three ranked players, the bot (seat 1) is ignored.
    result = Result((A, None, B, C), (50, 90, 10, 50), (2, 1, 4, 2))
    assert {e: u / UNIT for e, u in table_units(result).items()} == {A: 1.5, C: 1.5, B: 0}


def test_lopaka_is_not_ranked() -> None:
    # Lopaka holds index 2 of the totals but no seat, and its ranking is None.
    result = Result((A, B), (40, 10, 60), (1, 2, None))
    assert table_units(result) == {A: 1 * UNIT, B: 0}


def test_a_bye_is_worth_a_full_tables_average_unless_the_tournament_says() -> None:
    assert shown(bye_units(4, None, None)) == 1.5
    assert shown(bye_units(3, None, None)) == 1
    assert shown(bye_units(4, [10, 6, 3, 0], None)) == 4.75
    assert shown(bye_units(4, None, 2)) == 2
    assert units(0.1) == 84 and shown(units(0.1)) == 0.1


def test_shown_points_are_whole_numbers_when_whole() -> None:
    assert shown(3 * UNIT) == 3 and isinstance(shown(3 * UNIT), int)
    assert shown(UNIT // 3) == 0.3333


# --- tie-breaks ------------------------------------------------------------------------------


def test_match_points_then_total_score_then_a_shared_rank() -> None:
    rows = standings(people(A, B, C, D), [duel(A, 10, B, 5), duel(C, 20, D, 5)], [], bye_value=0)
    assert table(rows) == [
        (1, "Cy", 1, 20, 0, None),
        (2, "Ann", 1, 10, 0, None),
        (3, "Bo", 0, 5, 1, 0),  # equal on everything and never met: shared, by name
        (3, "Di", 0, 5, 1, 0),
    ]


def test_buchholz_breaks_ties_of_points_and_score() -> None:
    results = [
        duel(A, 10, B, 0),
        duel(C, 10, D, 0),
        duel(E, 10, F, 0),
        duel(A, 10, C, 0),
        duel(B, 10, E, 0),
        duel(D, 10, F, 0),
    ]
    rows = standings(people(A, B, C, D, E, F), results, [], bye_value=0)
    # B met A (2) and E (1); C met D (1) and A (2); D met C (1) and F (0); E met F and B.
    assert table(rows) == [
        (1, "Ann", 2, 20, 2, None),
        (2, "Bo", 1, 10, 3, 0),
        (2, "Cy", 1, 10, 3, 0),
        (4, "Di", 1, 10, 1, 0),
        (4, "Ed", 1, 10, 1, 0),
        (6, "Flo", 0, 0, 2, None),
    ]


def round_robin(d_in_round_3: int) -> list[Result]:
    """A, B, C, D all play each other: C wins everything, A beats B, B beats D, D beats A."""
    return [
        duel(A, 10, B, 0),
        duel(C, 10, D, 0),
        duel(A, 0, C, 10),
        duel(B, 10, D, 0),
        duel(A, 0, D, d_in_round_3),
        duel(B, 0, C, 10),
    ]


def test_head_to_head_breaks_what_is_left() -> None:
    rows = standings(people(A, B, C, D), round_robin(20), [], bye_value=0)
    assert table(rows) == [
        (1, "Cy", 3, 30, 3, None),
        (2, "Di", 1, 20, 5, None),  # more score than Ann and Bo
        (3, "Ann", 1, 10, 5, 1),  # tied with Bo on the first three; beat Bo
        (4, "Bo", 1, 10, 5, -1),
    ]


def test_a_head_to_head_cycle_stays_shared() -> None:
    rows = standings(people(A, B, C, D), round_robin(10), [], bye_value=0)
    assert table(rows) == [
        (1, "Cy", 3, 30, 3, None),
        (2, "Ann", 1, 10, 5, 0),
        (2, "Bo", 1, 10, 5, 0),
        (2, "Di", 1, 10, 5, 0),
    ]


def test_byes_count_points_but_no_table_score_or_opponents() -> None:
    rows = standings(people(A, B, C), [duel(A, 10, B, 5)], [C], bye_value=units(0.5))
    assert [(r.name, shown(r.match_points), r.tables, r.byes, shown(r.buchholz)) for r in rows] == [
        ("Ann", 1, 1, 0, 0),
        ("Cy", 0.5, 0, 1, 0),
        ("Bo", 0, 1, 0, 1),
    ]


def test_a_withdrawn_entry_keeps_its_results_and_is_marked() -> None:
    rows = standings(people(A, B, withdrawn=[A]), [duel(A, 10, B, 5)], [], bye_value=0)
    assert [(r.rank, r.name, r.withdrawn, shown(r.match_points)) for r in rows] == [
        (1, "Ann", True, 1),
        (2, "Bo", False, 0),
    ]


def test_an_entry_that_withdrew_before_any_result_is_listed_last_unranked() -> None:
    """Bo and Ed withdrew before round 1: their 0 points and 0 score are no result, so
    they do not rank above Di, who lost with a negative score, nor share a place with him."""
    rows = standings(
        people(A, B, C, D, E, withdrawn=[B, E]),
        [duel(A, 10, C, 5), duel(C, 5, D, -5)],
        [],
        bye_value=0,
    )
    assert [(r.rank, r.name, r.unranked, shown(r.match_points)) for r in rows] == [
        (1, "Ann", False, 1),
        (2, "Cy", False, 1),
        (3, "Di", False, 0),
        (4, "Bo", True, 0),
        (4, "Ed", True, 0),
    ]


def test_withdrawn_after_a_bye_or_a_table_stays_ranked() -> None:
    rows = standings(
        people(A, B, C, withdrawn=[A, C]), [duel(A, 0, B, 5)], [C], bye_value=units(0.5)
    )
    assert [(r.rank, r.name, r.unranked) for r in rows] == [
        (1, "Bo", False),
        (2, "Cy", False),
        (3, "Ann", False),
    ]
