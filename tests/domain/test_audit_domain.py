"""``domain.audit``: re-deciding a log with the engine (``recheck``) and telling one deal
(``deal_history``), on logs played here by the rules and then forged by hand."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from domain.audit import Problem, deal_history, recheck
from domain.events import TableOpened, event_type, from_data, to_data
from domain.games import GAMES, game
from domain.games.bottle_imp import cards_of
from domain.games.bottle_imp.cards import SUIT
from domain.games.bottle_imp.model import CardPlayed, DealStarted, PassesDelivered, TrickCompleted
from domain.match import MatchRules
from domain.rulings import Adjust, Adjusted
from domain.table import ORGANISER, SeatSpec, Table
from tests.helpers import setups_of


def table(game_id: str, variant: str, players: int, max_deals: int = 2) -> Table:
    seats = tuple(SeatSpec(name=f"P{s}") for s in range(players))
    return Table(game_id, variant, seats, MatchRules(None, max_deals), f"audit-{variant}", 0)


EVERY_SETUP = [
    pytest.param(g, v, n, id=f"{g}-{v}-{n}") for g in sorted(GAMES) for v, n in setups_of(g)
]


class Played:
    """A match played by the rules from random legal actions: ``events`` after
    ``TableOpened`` (``events[i]`` is version ``i + 2``) and the state before each."""

    def __init__(self, t: Table, *, rng_seed: int = 1, until: Callable[[Any], bool] | None = None):
        self.opened = TableOpened.of(t)
        self.rules = game(t.game)
        self.events: list[Any] = []
        self.before: list[Any] = []  # before[i]: the state before events[i]
        self.state = self.rules.initial_state(t)
        rng = random.Random(rng_seed)
        while self.state.phase != "finished" and not (until and until(self.state)):
            choices = [
                a
                for seat in self.rules.to_act(self.state)
                for a in self.rules.legal_actions(self.state, seat)
            ]
            assert choices, f"nobody can act in phase {self.state.phase}"
            self.act(rng.choice(choices))

    def act(self, action: Any) -> list[Any]:
        produced = self.rules.decide(self.state, action)
        for event in produced:
            self.before.append(self.state)
            self.events.append(event)
            self.state = self.rules.evolve(self.state, event)
        return produced

    def index(self, kind: type, nth: int = 0) -> int:
        return [i for i, e in enumerate(self.events) if type(e) is kind][nth]


def bottle_imp(players: int = 3, **kw: Any) -> Played:
    return Played(table("bottle-imp", "standard", players), **kw)


def only(problems: list[Problem]) -> Problem:
    assert len(problems) == 1, problems
    return problems[0]


# --- recheck ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("game_id", "variant", "players"), EVERY_SETUP)
def test_a_log_played_by_the_rules_rechecks_clean(game_id: str, variant: str, players: int) -> None:
    played = Played(table(game_id, variant, players))
    assert event_type(played.events[-1]) == "MatchEnded"
    assert recheck(played.opened, played.events) == []


def test_a_log_with_rulings_rechecks_clean() -> None:
    played = bottle_imp(until=lambda s: s.phase == "playing")
    played.act(Adjust(1, -10, "revoke in deal 1"))
    played.act(Adjust(0, 5, "slow play by seat 2"))
    rng = random.Random(2)
    while played.state.phase != "finished":
        seat = played.rules.to_act(played.state)[0]
        played.act(rng.choice(played.rules.legal_actions(played.state, seat)))
    assert [type(e) for e in played.events].count(Adjusted) == 2
    assert recheck(played.opened, played.events) == []


def test_a_card_the_seat_did_not_hold_is_rejected_at_its_version() -> None:
    played = bottle_imp()
    i = played.index(CardPlayed, 4)
    seat = played.events[i].seat
    elsewhere = next(
        c for s, hand in enumerate(played.before[i].hands) if s != seat for c in cards_of(hand)
    )
    forged = [*played.events[:i], CardPlayed(seat, elsewhere), *played.events[i + 1 :]]
    problem = only(recheck(played.opened, forged))
    assert (problem.version, problem.code) == (i + 2, "rejected")
    assert "card_not_in_hand" in problem.detail


def revoke_chance(played: Played) -> tuple[int, int]:
    """The first play where the seat could follow suit and held another suit too: its
    index and an off-suit card it held (a revoke if played)."""
    for i, e in enumerate(played.events):
        s = played.before[i]
        if type(e) is not CardPlayed or not s.trick:
            continue
        led = SUIT[s.trick[0]]
        hand = cards_of(s.hands[e.seat])
        off = [c for c in hand if SUIT[c] != led]
        if off and any(SUIT[c] == led for c in hand):
            return i, off[0]
    raise AssertionError("nobody ever had the choice to revoke: pick another seed")


def test_a_revoke_is_rejected_at_its_version() -> None:
    played = bottle_imp()
    i, off_suit = revoke_chance(played)
    seat = played.events[i].seat
    forged = [*played.events[:i], CardPlayed(seat, off_suit), *played.events[i + 1 :]]
    problem = only(recheck(played.opened, forged))
    assert (problem.version, problem.code) == (i + 2, "rejected")
    assert "must_follow_suit" in problem.detail


def test_a_missing_trick_is_a_mismatch_where_the_engine_expects_it() -> None:
    played = bottle_imp()
    i = played.index(TrickCompleted, 2)
    forged = played.events[:i] + played.events[i + 1 :]
    problem = only(recheck(played.opened, forged))
    assert (problem.version, problem.code) == (i + 2, "mismatch")
    assert "TrickCompleted" in problem.detail


def test_a_missing_event_at_the_end_of_the_log_is_a_mismatch() -> None:
    played = bottle_imp(until=lambda s: s.tricks == 2)
    assert type(played.events[-1]) is TrickCompleted
    problem = only(recheck(played.opened, played.events[:-1]))
    assert (problem.version, problem.code) == (len(played.events) + 1, "mismatch")


def test_an_extra_trick_is_an_unexpected_event() -> None:
    played = bottle_imp()
    i = played.index(TrickCompleted, 1)
    forged = [*played.events[: i + 1], played.events[i], *played.events[i + 1 :]]
    problem = only(recheck(played.opened, forged))
    assert (problem.version, problem.code) == (i + 3, "unexpected_event")


def test_an_engine_event_slipped_into_a_trick_is_an_unexpected_event() -> None:
    played = bottle_imp()
    delivered = played.events[played.index(PassesDelivered)]
    i = played.index(CardPlayed, 1)
    forged = [*played.events[:i], delivered, *played.events[i:]]
    problem = only(recheck(played.opened, forged))
    assert (problem.version, problem.code) == (i + 2, "unexpected_event")


def test_a_trick_given_to_the_wrong_winner_is_a_mismatch() -> None:
    played = bottle_imp()
    i = played.index(TrickCompleted, 3)
    trick = played.events[i]
    loser = next(s for s in trick.seats if s != trick.winner)
    forged = [*played.events[:i], trick._replace(winner=loser), *played.events[i + 1 :]]
    problem = only(recheck(played.opened, forged))
    assert (problem.version, problem.code) == (i + 2, "mismatch")


def test_a_stacked_seeded_deal_is_a_mismatch_with_the_re_deal() -> None:
    played = bottle_imp()
    i = played.index(DealStarted, 1)
    deal = played.events[i]
    hands = [list(h) for h in deal.hands]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    stacked = deal._replace(hands=tuple(tuple(sorted(h)) for h in hands))
    forged = [*played.events[:i], stacked, *played.events[i + 1 :]]
    problem = only(recheck(played.opened, forged))
    assert (problem.version, problem.code) == (i + 2, "mismatch")


def test_a_ruling_after_the_match_ended_is_rejected() -> None:
    played = bottle_imp(players=4)
    forged = [*played.events, Adjusted(0, 10, "too late")]
    problem = only(recheck(played.opened, forged))
    assert (problem.version, problem.code) == (len(forged) + 1, "rejected")
    assert "match_finished" in problem.detail


def test_a_table_the_engine_cannot_open_is_rejected_at_version_1() -> None:
    opened = TableOpened.of(table("bottle-imp", "standard", 3))._replace(variant="no-such")
    problem = only(recheck(opened, []))
    assert (problem.version, problem.code) == (1, "rejected")


# --- deal_history ----------------------------------------------------------------------------


def test_a_deal_history_lists_the_deal_and_nothing_else() -> None:
    played = bottle_imp()
    first = deal_history(played.opened, played.events, 1, ORGANISER)
    second = deal_history(played.opened, played.events, 2, ORGANISER)
    assert first is not None and second is not None
    second_starts = played.index(DealStarted, 1) + 2
    assert [e["version"] for e in first["events"]] == list(range(2, second_starts))
    assert second["events"][0]["version"] == second_starts
    assert second["events"][-1]["type"] == "MatchEnded"
    assert deal_history(played.opened, played.events, 3, ORGANISER) is None
    assert deal_history(played.opened, played.events, 0, ORGANISER) is None


def test_without_recorded_actors_a_ruling_is_still_the_organisers() -> None:
    """When the store knows no actor (``actors`` missing), who did it is inferred: the
    engine's own events, a seat's actions, and a ruling, which only the organiser makes."""
    played = bottle_imp(until=lambda s: s.phase == "playing")
    played.act(Adjust(1, -10, "revoke"))
    told = deal_history(played.opened, played.events, 1, ORGANISER)
    assert told is not None
    by = {e["type"]: e["by"] for e in told["events"]}
    assert by["PassesDelivered"] == "engine"
    assert by["CardDiscarded"].startswith("seat ")
    assert by["Adjusted"] == "organiser"


# --- salted tables (docs/rules/common.md, "Deterministic shuffling", rule 1) ---------------------

SALT = "00112233445566778899aabbccddeeff"


def salted(game_id: str, variant: str, players: int) -> Table:
    return replace(table(game_id, variant, players), salt=SALT)


@pytest.mark.parametrize(("game_id", "variant", "players"), EVERY_SETUP)
def test_a_salted_table_deals_from_its_deal_key_and_rechecks_clean(
    game_id: str, variant: str, players: int
) -> None:
    played = Played(salted(game_id, variant, players))
    deals = [e for e in played.events if event_type(e) == "DealStarted"]
    assert [e.seed for e in deals] == [f"{SALT}:audit-{variant}/{k}" for k in (1, 2)]
    assert recheck(played.opened, played.events) == []
    # the same log re-decided without the salt: its first deal is not the seed's alone
    problem = only(recheck(played.opened._replace(salt=None), played.events))
    assert (problem.version, problem.code) == (played.events.index(deals[0]) + 2, "mismatch")


def test_a_stacked_deal_at_a_salted_table_is_a_mismatch() -> None:
    played = Played(salted("bottle-imp", "standard", 3))
    i = played.index(DealStarted, 1)
    hands = [list(h) for h in played.events[i].hands]
    hands[0][0], hands[2][0] = hands[2][0], hands[0][0]
    stacked = played.events[i]._replace(hands=tuple(tuple(sorted(h)) for h in hands))
    forged = [*played.events[:i], stacked, *played.events[i + 1 :]]
    problem = only(recheck(played.opened, forged))
    assert (problem.version, problem.code) == (i + 2, "mismatch")


def test_the_salt_rides_in_table_opened_and_an_unsalted_table_opened_is_unchanged() -> None:
    opened = TableOpened.of(salted("bottle-imp", "standard", 3))
    data = to_data(opened)
    assert data["salt"] == SALT
    assert from_data(TableOpened, data) == opened
    assert from_data(TableOpened, data).table().salt == SALT
    plain = to_data(TableOpened.of(table("bottle-imp", "standard", 3)))
    assert "salt" not in plain  # logs recorded before salts hash exactly as before
    assert from_data(TableOpened, plain).salt is None


@pytest.mark.parametrize("salt", ["", "00112233", SALT.upper(), f"{SALT}:x"])
def test_a_malformed_salt_is_rejected_at_version_1(salt: str) -> None:
    played = Played(salted("bottle-imp", "standard", 3), until=lambda s: s.deal == 1)
    problem = only(recheck(played.opened._replace(salt=salt), played.events))
    assert (problem.version, problem.code) == (1, "bad_salt")


@pytest.mark.parametrize(("game_id", "variant", "players"), EVERY_SETUP)
def test_the_seed_and_salt_are_hidden_from_all_but_the_organiser_until_the_match_ends(
    game_id: str, variant: str, players: int
) -> None:
    played = Played(salted(game_id, variant, players))
    rules = played.rules
    log = [played.opened, *played.events]
    ended = len(log) - 1
    assert event_type(log[ended]) == "MatchEnded"
    for viewer in (None, *range(players)):
        during = rules.visible_events(log[:ended], viewer)
        assert (during[0].seed, during[0].salt) == (None, None)
        assert "salt" not in to_data(during[0]) and SALT not in str(during)
        after = rules.visible_events(log, viewer)
        assert (after[0].seed, after[0].salt) == ("audit-" + variant, SALT)
        assert all(e.seed.startswith(f"{SALT}:") for e in after if event_type(e) == "DealStarted")
    assert rules.visible_events(log[:ended], ORGANISER)[0].salt == SALT
