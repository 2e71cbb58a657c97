"""Seats taken over (``domain.stand_ins``): the organiser hands a person's seat to a bot and
back, in every game, as events of the table that leave the game's state as it was
(docs/api.md, "Seats taken over")."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain import stand_ins
from domain.audit import recheck
from domain.errors import RuleViolation
from domain.events import TableOpened, to_data
from domain.games import GAMES, game
from domain.match import MatchRules
from domain.replay import event_from_json, replay
from domain.rulings import MAX_REASON
from domain.stand_ins import ReturnSeat, SeatReturned, SeatTakenOver, TakeOverSeat
from domain.table import ORGANISER, SeatSpec, Table
from tests.helpers import setups_of

EVERY_SETUP = [
    pytest.param(g, v, n, id=f"{g}-{v}-{n}") for g in sorted(GAMES) for v, n in setups_of(g)
]


def table(game_id: str, variant: str, players: int, bot_at: int | None = None) -> Table:
    """People at every seat (a random bot at ``bot_at``), a short match from a known seed."""
    seats = tuple(
        SeatSpec(bot="random") if s == bot_at else SeatSpec(name=f"P{s}") for s in range(players)
    )
    return Table(game_id, variant, seats, MatchRules(None, 1), f"stand-ins-{variant}", 0)


class Played:
    """A match played from random legal actions, with the organiser's takeovers recorded
    where the test says (``events``: after ``TableOpened``)."""

    def __init__(self, t: Table) -> None:
        self.opened = TableOpened.of(t)
        self.rules = game(t.game)
        self.state = self.rules.initial_state(t)
        self.events: list[Any] = []

    def act(self, action: Any) -> list[Any]:
        produced = self.rules.decide(self.state, action)
        for event in produced:
            self.events.append(event)
            self.state = self.rules.evolve(self.state, event)
        return produced

    def play(self, rng: random.Random, moves: int | None = None) -> None:
        """Random legal moves: ``moves`` of them, or to the end of the match."""
        while self.state.phase != "finished" and (moves is None or moves > 0):
            seat = self.rules.to_act(self.state)[0]
            self.act(rng.choice(self.rules.legal_actions(self.state, seat)))
            moves = None if moves is None else moves - 1


@pytest.mark.parametrize(("game_id", "variant", "players"), EVERY_SETUP)
def test_a_takeover_and_a_hand_back_leave_the_games_state_as_it_was(
    game_id: str, variant: str, players: int
) -> None:
    played = Played(table(game_id, variant, players))
    rng = random.Random(7)
    played.play(rng, moves=3)
    before = played.state
    last = players - 1
    assert played.act(TakeOverSeat(last, "heuristic", "  left early ")) == [
        SeatTakenOver(last, "heuristic", "left early")
    ]
    assert played.state is before  # who plays a seat is not the rules' business
    assert stand_ins.taken_over(played.events) == {
        last: SeatTakenOver(last, "heuristic", "left early")
    }
    played.play(rng, moves=3)
    middle = played.state
    assert played.act(ReturnSeat(last)) == [SeatReturned(last)]
    assert played.state is middle
    assert stand_ins.taken_over(played.events) == {}
    played.play(rng)
    # the whole log re-checks with the engine and replays, through JSON, to the same state
    assert recheck(played.opened, played.events) == []
    stored = [
        event_from_json(game_id, type(e).__name__, to_data(e), schema=1) for e in played.events
    ]
    assert stored == played.events
    assert replay(played.opened, stored) == played.state
    without = [e for e in played.events if type(e) not in stand_ins.EVENTS]
    assert replay(played.opened, without) == played.state


@pytest.mark.parametrize(("game_id", "variant", "players"), EVERY_SETUP)
def test_every_viewer_sees_the_takeovers_as_they_are(
    game_id: str, variant: str, players: int
) -> None:
    played = Played(table(game_id, variant, players))
    played.play(random.Random(3), moves=2)
    played.act(TakeOverSeat(0, "random", "phone died"))
    played.act(ReturnSeat(0))
    log = [played.opened, *played.events]
    mine = [e for e in played.events if type(e) in stand_ins.EVENTS]
    for viewer in [None, ORGANISER, *range(players)]:
        shown = played.rules.visible_events(log, viewer)
        assert [e for e in shown if type(e) in stand_ins.EVENTS] == mine, viewer


def test_who_plays_each_seat_is_the_opening_overlaid_with_the_takeovers() -> None:
    seats = ({"name": "Ann"}, {"bot": "random"}, {"name": "Cy"}, {"name": "Di"})
    events = [
        SeatTakenOver(0, "heuristic", "left early"),
        SeatTakenOver(2, "montecarlo", "late"),
        SeatReturned(2),
        SeatTakenOver(3, "random", "ill"),
        SeatReturned(0),
        SeatTakenOver(0, "random", "left again"),
    ]
    assert stand_ins.playing(seats, {}) == (None, "random", None, None)
    taken = stand_ins.taken_over(events)
    assert sorted(taken) == [0, 3] and taken[0].reason == "left again"
    assert stand_ins.playing(seats, taken) == ("random", "random", None, "random")


def refused(rules: Any, state: Any, action: Any) -> str:
    with pytest.raises(RuleViolation) as caught:
        rules.decide(state, action)
    return str(caught.value.code)


def test_the_rules_refuse_a_takeover_the_table_cannot_take() -> None:
    played = Played(table("bottle-imp", "standard", 4, bot_at=1))
    rules, state = played.rules, played.state
    assert refused(rules, state, TakeOverSeat(4, "random", "gone")) == "unknown_seat"
    assert refused(rules, state, TakeOverSeat(-1, "random", "gone")) == "unknown_seat"
    assert refused(rules, state, ReturnSeat(9)) == "unknown_seat"
    assert refused(rules, state, TakeOverSeat(1, "heuristic", "gone")) == "bot_seat"
    assert refused(rules, state, ReturnSeat(1)) == "bot_seat"
    assert refused(rules, state, TakeOverSeat(0, "random", "   ")) == "invalid_takeover"
    long = "x" * (MAX_REASON + 1)
    assert refused(rules, state, TakeOverSeat(0, "random", long)) == "invalid_takeover"
    assert refused(rules, state, TakeOverSeat(0, "", "gone")) == "invalid_takeover"
    played.play(random.Random(1))
    assert played.state.phase == "finished"
    assert refused(rules, played.state, TakeOverSeat(0, "random", "gone")) == "match_finished"
    assert refused(rules, played.state, ReturnSeat(0)) == "match_finished"


def test_the_takeovers_in_force_refuse_a_second_takeover_and_a_hand_back_of_nothing() -> None:
    taken = stand_ins.taken_over([SeatTakenOver(2, "random", "left")])
    with pytest.raises(RuleViolation) as caught:
        stand_ins.check(taken, TakeOverSeat(2, "heuristic", "again"))
    assert caught.value.code == "already_taken_over" and "random bot" in caught.value.message
    with pytest.raises(RuleViolation) as caught:
        stand_ins.check(taken, ReturnSeat(0))
    assert caught.value.code == "not_taken_over"
    stand_ins.check(taken, ReturnSeat(2))
    stand_ins.check(taken, TakeOverSeat(0, "random", "late"))
