"""The tournament decider, given events → when a command → then events or a refusal:
entries (duplicates, late, withdrawn), rounds (in progress, last one ends it), table
sizes per game, and the tables a round opens."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from domain.errors import RuleViolation
from domain.events import to_data
from domain.games import SPECS
from domain.tournament.decide import (
    AddEntry,
    FinishTable,
    FinishTournament,
    WithdrawEntry,
    create,
    decide,
    plan_round,
    round_seated,
    table_seed,
    table_sizes,
    table_specs,
)
from domain.tournament.events import (
    EntryAdded,
    EntryWithdrawn,
    TableFinished,
    TournamentFinished,
    decode,
)
from domain.tournament.state import Tournament, evolve, fold
from tests.factories import TournamentCreatedFactory


def tournament(*names: str, **config: Any) -> Tournament:
    created = TournamentCreatedFactory(**config)
    return fold([created, *(EntryAdded(i, n) for i, n in enumerate(names, start=1))])


def refused(state: Tournament, command: Any) -> str:
    with pytest.raises(RuleViolation) as error:
        decide(state, command)
    return error.value.code


def seat_next(state: Tournament) -> Tournament:
    seating = plan_round(state)
    number = len(state.rounds) + 1
    ids = [f"r{number}t{t}" for t in range(1, len(seating.tables) + 1)]
    return evolve(state, round_seated(state, seating, ids))


def finish_round(state: Tournament) -> Tournament:
    for t in state.rounds[-1].tables:
        totals = tuple(range(len(t.seats)))
        ranking = tuple(len(totals) - i for i in range(len(totals)))
        for event in decide(state, FinishTable(t.table, totals, ranking)):
            state = evolve(state, event)
    return state


# --- entries ---------------------------------------------------------------------------------


def test_entries_are_numbered_in_order_of_arrival() -> None:
    state = tournament("Ann", "Bo")
    assert decide(state, AddEntry("  Cy   Dee ")) == [EntryAdded(3, "Cy Dee")]


@pytest.mark.parametrize("name", ["Ann", "ann", " ANN  "])
def test_a_name_enters_once(name: str) -> None:
    assert refused(tournament("Ann"), AddEntry(name)) == "duplicate_entry"


def test_a_player_enters_once() -> None:
    state = fold([TournamentCreatedFactory(), EntryAdded(1, "Ann", "p1")])
    assert refused(state, AddEntry("Ann Two", "p1")) == "duplicate_entry"


def test_withdrawing_twice_or_an_unknown_entry() -> None:
    state = evolve(tournament("Ann", "Bo"), EntryWithdrawn(1))
    assert state.entries[1].withdrawn
    assert refused(state, WithdrawEntry(1)) == "entry_withdrawn"
    assert refused(state, WithdrawEntry(9)) == "unknown_entry"


def test_a_withdrawn_entry_is_never_seated_again_and_a_late_one_is() -> None:
    state = seat_next(tournament(*"ABCDEFGH", table_size=4, rounds=3))
    state = finish_round(state)
    state = evolve(state, EntryWithdrawn(2))
    for event in decide(state, AddEntry("Late")):
        state = evolve(state, event)
    seating = plan_round(state)
    seated = {e for t in seating.tables for e in t} | set(seating.byes)
    assert 2 not in seated and 9 in seated


# --- rounds ----------------------------------------------------------------------------------


def test_no_new_round_while_a_table_plays() -> None:
    state = seat_next(tournament(*"ABCDEFGH", table_size=4))
    with pytest.raises(RuleViolation) as error:
        plan_round(state)
    assert error.value.code == "round_in_progress"
    assert refused(state, FinishTournament()) == "round_in_progress"


def test_the_last_table_of_the_last_round_finishes_the_tournament() -> None:
    state = seat_next(tournament(*"ABCDEFGH", table_size=4, rounds=1))
    first, last = state.rounds[0].tables
    events = decide(state, FinishTable(first.table, (1, 2, 3, 4), (4, 3, 2, 1)))
    assert [type(e) for e in events] == [TableFinished]
    state = evolve(state, events[0])
    events = decide(state, FinishTable(last.table, (1, 2, 3, 4), (4, 3, 2, 1)))
    assert events[-1] == TournamentFinished(1)
    state = fold(events, state)
    assert state.finished
    assert refused(state, AddEntry("Too late")) == "tournament_finished"
    assert decide(state, FinishTable(last.table, (1, 2, 3, 4), (4, 3, 2, 1))) == []


def test_an_open_ended_tournament_ends_when_the_organiser_says() -> None:
    state = finish_round(seat_next(tournament(*"ABCD", table_size=4, rounds=None)))
    assert not state.finished
    assert decide(state, FinishTournament()) == [TournamentFinished(1)]


def test_a_table_of_another_tournament_is_refused() -> None:
    state = seat_next(tournament(*"ABCD", table_size=4))
    assert refused(state, FinishTable("elsewhere", (1,), (1,))) == "unknown_table"


def test_events_survive_their_json_form() -> None:
    state = tournament(*"ABCDEFGHI", table_size=4)
    seated = round_seated(state, plan_round(state), ["a", "b"])
    assert seated.byes and decode("RoundSeated", to_data(seated)) == seated


# --- tables ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "variant"), [(spec.id, v) for spec in SPECS.values() for v in spec.variants]
)
def test_each_game_says_which_table_sizes_it_seats(game: str, variant: str) -> None:
    """The sizes a tournament seats, asked of the engine, are those the game declares."""
    assert table_sizes(game, variant, {}) == SPECS[game].players[variant]


def test_the_table_sizes_are_those_of_the_rules_texts() -> None:
    """``docs/rules/bottle-imp.md``, ``bestia.md`` and ``oh-quay.md``, Players."""
    assert table_sizes("bottle-imp", "standard", {}) == (3, 4)
    assert table_sizes("bottle-imp", "lopaka", {}) == table_sizes("bottle-imp", "bright-house", {})
    assert table_sizes("bottle-imp", "lopaka", {}) == (2,)
    assert table_sizes("bestia", "standard", {}) == (3, 4, 5, 6, 7, 8)
    assert table_sizes("oh-quay", "standard", {}) == (2,)


@pytest.mark.parametrize(
    ("spec", "code"),
    [
        ({"table_size": 5}, "invalid_table_size"),
        ({"variant": "lopaka", "table_size": 3}, "invalid_table_size"),
        ({"variant": "no-such"}, "unknown_variant"),
        ({"game": "no-such"}, "unknown_game"),
        ({"rules": {"first_dealer": 1}}, "invalid_rules"),
        ({"match_points": [3, 2]}, "invalid_match_points"),
        ({"match_points": [0, 1, 2, 3]}, "invalid_match_points"),
        ({"pairing": "knockout"}, "invalid_pairing"),
    ],
)
def test_a_tournament_the_game_cannot_seat_is_refused(spec: dict[str, Any], code: str) -> None:
    base = {"name": "Open", "game": "bottle-imp", "table_size": 4, "pairing": "swiss"}
    with pytest.raises(RuleViolation) as error:
        create({**base, "seed": "s", **spec})
    assert error.value.code == code


def test_a_round_opens_tables_with_their_names_dealer_and_a_derived_seed() -> None:
    state = tournament(
        *"ABCDEFG", table_size=4, seed="spring", fill_with_bots="random", max_deals=2
    )
    seating = plan_round(state)
    specs = table_specs(state, seating)
    assert [s["seed"] for s in specs] == [
        hashlib.sha256(b"spring/round-1/table-1").hexdigest(),
        hashlib.sha256(b"spring/round-1/table-2").hexdigest(),
    ]
    assert table_seed("spring", 1, 2) == specs[1]["seed"]
    assert [s["rules"]["first_dealer"] for s in specs] == list(seating.first_dealers)
    assert all(s["max_deals"] == 2 and s["game"] == "bottle-imp" for s in specs)
    names = [seat.get("name") or seat["bot"] for s in specs for seat in s["seats"]]
    assert sorted(names) == [*"ABCDEFG", "random"]


def test_a_salted_tournament_derives_its_tables_seeds_from_the_salted_key() -> None:
    """docs/rules/common.md, "Deterministic shuffling", rule 1: the key is ``"{salt}:{seed}"``;
    a tournament recorded without a salt (above) derives from the seed alone, as before."""
    salt = "00112233445566778899aabbccddeeff"
    state = tournament(*"ABCD", table_size=4, seed="spring", salt=salt)
    specs = table_specs(state, plan_round(state))
    assert [s["seed"] for s in specs] == [
        hashlib.sha256(f"{salt}:spring/round-1/table-1".encode()).hexdigest()
    ]
    assert specs[0]["seed"] != hashlib.sha256(b"spring/round-1/table-1").hexdigest()
    assert "salt" not in specs[0]  # each table draws its own salt when it is opened
    base = {"name": "Open", "game": "bottle-imp", "table_size": 4, "pairing": "swiss"}
    created = create({**base, "seed": "spring"}, salt=salt)
    assert (created.seed, created.salt) == ("spring", salt)
    assert to_data(created)["salt"] == salt
    assert "salt" not in to_data(create({**base, "seed": "spring"}))


def test_the_seating_comes_from_the_salted_key_not_the_seed_alone() -> None:
    """A guessable tournament seed must not let anyone predict who sits where in later
    rounds: seating draws from ``"{salt}:{seed}"`` too, and is reproducible from it."""
    names = "ABCDEFGH"
    salt, other = "00112233445566778899aabbccddeeff", "ffeeddccbbaa99887766554433221100"

    def seating(salt: str | None) -> tuple:
        return plan_round(tournament(*names, table_size=4, seed="spring", salt=salt)).tables

    assert seating(salt) == seating(salt)
    assert seating(salt) != seating(other)
    assert seating(salt) != seating(None)
