"""A withdrawal undone (``ReturnEntry`` → ``EntryReturned``): given events → when the
command → then events or a refusal, and the returned entry seated from the next round."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import RuleViolation
from domain.events import to_data
from domain.tournament.decide import (
    FinishTable,
    FinishTournament,
    ReturnEntry,
    WithdrawEntry,
    decide,
    plan_round,
    round_seated,
    standings_of,
)
from domain.tournament.events import EntryAdded, EntryReturned, EntryWithdrawn, decode
from domain.tournament.state import Tournament, evolve, fold
from tests.factories import TournamentCreatedFactory


def tournament(*names: str, **config: Any) -> Tournament:
    created = TournamentCreatedFactory(**config)
    return fold([created, *(EntryAdded(i, n) for i, n in enumerate(names, start=1))])


def refused(state: Tournament, command: Any) -> str:
    with pytest.raises(RuleViolation) as error:
        decide(state, command)
    return error.value.code


def then(state: Tournament, command: Any) -> Tournament:
    for event in decide(state, command):
        state = evolve(state, event)
    return state


def seat_next(state: Tournament) -> Tournament:
    seating = plan_round(state)
    number = len(state.rounds) + 1
    ids = [f"r{number}t{t}" for t in range(1, len(seating.tables) + 1)]
    return evolve(state, round_seated(state, seating, ids))


def finish_round(state: Tournament) -> Tournament:
    for t in state.rounds[-1].tables:
        totals = tuple(range(len(t.seats)))
        ranking = tuple(len(totals) - i for i in range(len(totals)))
        state = then(state, FinishTable(t.table, totals, ranking))
    return state


def seated(state: Tournament) -> set[int]:
    """The entries at the current round's tables."""
    current = state.current
    assert current is not None
    return {e for t in current.tables for e in t.seats if e is not None}


def test_a_withdrawn_entry_returns() -> None:
    state = then(tournament("Ann", "Bo", "Cy"), WithdrawEntry(2))
    assert decide(state, ReturnEntry(2)) == [EntryReturned(2)]
    back = then(state, ReturnEntry(2))
    assert not back.entries[2].withdrawn
    assert back.active() == [1, 2, 3]


def test_the_returned_entry_is_seated_again_from_the_next_round() -> None:
    state = seat_next(tournament("Ann", "Bo", "Cy", "Dee", "Eve", rounds=3))
    state = then(state, WithdrawEntry(5))
    state = finish_round(state)
    state = seat_next(state)
    assert 5 not in seated(state)  # round 2 without her
    state = then(state, ReturnEntry(5))  # mid-round: her table is the next round's
    assert 5 not in seated(state)
    state = seat_next(finish_round(state))
    assert 5 in seated(state) | set(state.rounds[-1].byes)  # a seat, or a bye of five


def test_a_returned_entry_is_ranked_again() -> None:
    state = then(tournament("Ann", "Bo"), WithdrawEntry(1))
    assert [r.withdrawn for r in standings_of(state) if r.entry == 1] == [True]
    state = then(state, ReturnEntry(1))
    assert [r.withdrawn for r in standings_of(state) if r.entry == 1] == [False]


def test_only_a_withdrawn_entry_returns() -> None:
    assert refused(tournament("Ann", "Bo"), ReturnEntry(1)) == "entry_not_withdrawn"


def test_an_unknown_entry_cannot_return() -> None:
    assert refused(tournament("Ann"), ReturnEntry(9)) == "unknown_entry"


def test_nobody_returns_to_a_finished_tournament() -> None:
    state = then(tournament("Ann", "Bo"), WithdrawEntry(1))
    state = then(state, FinishTournament())
    assert refused(state, ReturnEntry(1)) == "tournament_finished"


def test_withdrawing_again_after_returning() -> None:
    state = then(then(tournament("Ann", "Bo"), WithdrawEntry(2)), ReturnEntry(2))
    assert decide(state, WithdrawEntry(2)) == [EntryWithdrawn(2)]


def test_the_event_is_stored_and_read_back() -> None:
    event = EntryReturned(3)
    assert decode("EntryReturned", to_data(event)) == event
