"""The contract every registered game keeps (``domain/games/registry.py``), checked for
each game and each of its variants by playing whole matches of random legal actions
through the same ``Rules`` the service uses: the event log replays (through JSON) to the
live state, the same seed and choices give the same log, no event loses or copies a card,
every legal action is accepted and actions out of turn or of no known type are refused, no
view shows another seat's hand, and every match ends, ranked, with nothing left to do.

What only one game has (its deck, its scoring, its rule codes, recorded deals, options)
stays in its own ``test_<game>_properties.py``.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import RuleViolation
from domain.events import MatchEnded, TableOpened, event_type, to_data
from domain.games import SPECS, Rules, game
from domain.games.registry import GameSpec
from domain.match import MatchRules
from domain.replay import event_from_json, replay
from domain.table import ORGANISER, SeatSpec, Table

CASES = [(s, v) for s in SPECS.values() for v in s.variants]
IDS = [f"{s.id}-{v}" for s, v in CASES]


def budget(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None)


class Draw(NamedTuple):
    players_index: int
    seed: str | int
    rng_seed: int
    max_deals: int
    first_dealer: int


draws = st.builds(
    Draw,
    players_index=st.integers(0, 7),
    seed=st.one_of(st.text(max_size=10), st.integers()),
    rng_seed=st.integers(0, 2**32 - 1),
    max_deals=st.integers(1, 3),
    first_dealer=st.integers(0, 7),
)


def make_table(s: GameSpec, variant: str, d: Draw, *, int_seed: bool = False) -> Table:
    counts = s.players[variant]
    players = counts[d.players_index % len(counts)]
    return Table(
        game=s.id,
        variant=variant,
        seats=tuple(SeatSpec(name=f"P{i}") for i in range(players)),
        match=MatchRules(None, d.max_deals),
        seed=d.seed if int_seed else str(d.seed),  # type: ignore[arg-type]
        first_dealer=d.first_dealer % players,
    )


class Step(NamedTuple):
    before: Any
    seat: Any
    action: Any
    events: list[Any]
    afters: list[Any]  # the state after each event


def play_match(rules: Rules, table: Table, rng: random.Random) -> Iterator[Step]:
    """A whole match of random legal actions, each checked against the contract."""
    state = rules.initial_state(table)
    for _ in range(400 * (table.match.max_deals or 20)):
        seats = rules.to_act(state)
        if not seats:
            return
        seat = seats[rng.randrange(len(seats))]
        legal = rules.legal_actions(state, seat)
        assert len(legal) > 0, f"seat {seat} is to act but has no legal action"
        action = legal[rng.randrange(len(legal))]
        events = rules.decide(state, action)
        assert events, f"{action} decided no event"
        afters: list[Any] = []
        for event in events:
            afters.append(rules.evolve(afters[-1] if afters else state, event))
        yield Step(state, seat, action, events, afters)
        state = afters[-1]
    raise AssertionError("the match did not end")


def run(rules: Rules, table: Table, rng: random.Random) -> tuple[Any, list[Any]]:
    state, log = rules.initial_state(table), list[Any]()
    for step in play_match(rules, table, rng):
        state, log = step.afters[-1], log + step.events
    return state, log


def through_json(game_id: str, event: Any) -> Any:
    """The event as the store keeps it and reads it back."""
    stored = json.loads(json.dumps({"type": event_type(event), "data": to_data(event)}))
    return event_from_json(game_id, stored["type"], stored["data"])


@pytest.mark.parametrize(("s", "variant"), CASES, ids=IDS)
@budget(20)
@given(d=draws)
def test_replay_through_json_rebuilds_the_live_state(s: GameSpec, variant: str, d: Draw) -> None:
    table, rules = make_table(s, variant, d), game(s.id)
    rng = random.Random(d.rng_seed)
    log: list[Any] = []
    live: list[Any] = []
    for step in play_match(rules, table, rng):
        log += step.events
        live += step.afters
        # the audit re-decides the action each recorded event stands for
        befores = [step.before, *step.afters[:-1]]
        for i, (event, before) in enumerate(zip(step.events, befores, strict=True)):
            recorded = rules.action_of(event, before)
            assert recorded == (step.action if i == 0 else None), f"{event} after {step.action}"
    opened = TableOpened.of(table)
    opened_back = through_json(s.id, opened)
    assert opened_back == opened
    stored = [through_json(s.id, e) for e in log]
    assert stored == log
    state = rules.initial_state(opened_back.table())
    for i, event in enumerate(stored):
        state = rules.evolve(state, event)
        assert state == live[i], f"replayed state differs after event {i}: {event_type(event)}"
    for k in {len(log), *(rng.randrange(1, len(log) + 1) for _ in range(3))}:
        assert replay(opened_back, stored[:k]) == live[k - 1]


@pytest.mark.parametrize(("s", "variant"), CASES, ids=IDS)
@budget(10)
@given(d=draws)
def test_same_seed_and_choices_give_the_same_log(s: GameSpec, variant: str, d: Draw) -> None:
    table, rules = make_table(s, variant, d), game(s.id)
    once = run(rules, table, random.Random(d.rng_seed))
    assert run(rules, table, random.Random(d.rng_seed)) == once
    if isinstance(d.seed, int):  # an integer seed is its decimal string
        as_int = make_table(s, variant, d, int_seed=True)
        assert run(rules, as_int, random.Random(d.rng_seed))[1] == once[1]


@pytest.mark.parametrize(("s", "variant"), CASES, ids=IDS)
@budget(20)
@given(d=draws)
def test_every_event_keeps_each_card_in_one_place(s: GameSpec, variant: str, d: Draw) -> None:
    """During a deal every card of the table's deck lies in exactly one place (a hand, a
    pile, the trick, a pass on its way...): the game's ``whereabouts`` names them all."""
    table, rules = make_table(s, variant, d), game(s.id)
    for step in play_match(rules, table, random.Random(d.rng_seed)):
        for event, after in zip(step.events, step.afters, strict=True):
            if not after.deal:
                continue
            found, deck = Counter(rules.whereabouts(after)), Counter(rules.deck_of(after))
            assert found == deck, (
                f"after {event_type(event)}: missing {sorted(deck - found)}, "
                f"extra {sorted(found - deck)}"
            )


def refused(rules: Rules, state: Any, action: Any) -> None:
    with pytest.raises(RuleViolation):
        rules.decide(state, action)


@pytest.mark.parametrize(("s", "variant"), CASES, ids=IDS)
@budget(8)
@given(d=draws)
def test_legal_actions_are_accepted_and_others_refused(s: GameSpec, variant: str, d: Draw) -> None:
    table, rules = make_table(s, variant, d), game(s.id)
    rng = random.Random(d.rng_seed)
    for step in play_match(rules, table, rng):
        state, seat = step.before, step.seat
        for action in rules.legal_actions(state, seat):  # every one, not only the one taken
            assert rules.decide(state, action)
            assert rules.parse(rules.body(action)) == action
        waiting = [o for o in range(len(table.seats)) if o not in rules.to_act(state)]
        if waiting and isinstance(seat, int):
            # a legal action of the seat to act, taken by a seat that is not to act
            other = rng.choice(waiting)
            body = {**rules.body(step.action), "seat": other}
            try:
                action = rules.parse(body)
            except RuleViolation:
                continue
            refused(rules, state, action)
        with pytest.raises(RuleViolation):
            rules.parse({"type": "no-such-action", "seat": 0})


def hands(view: dict[str, Any]) -> list[Any]:
    return list(view.get("hands") or [])


@pytest.mark.parametrize(("s", "variant"), CASES, ids=IDS)
@budget(8)
@given(d=draws)
def test_no_view_shows_another_seats_hand(s: GameSpec, variant: str, d: Draw) -> None:
    """Each seat sees its own hand; another seat's only as the public does (an open
    hand), and the public and the organiser see what they are given."""
    table, rules = make_table(s, variant, d), game(s.id)
    for step in play_match(rules, table, random.Random(d.rng_seed)):
        state = step.afters[-1]
        public = hands(rules.view(state, None))
        everything = hands(rules.view(state, ORGANISER))
        assert all(h is not None for h in everything), "the organiser sees every hand"
        for viewer in range(len(table.seats)):
            seen = hands(rules.view(state, viewer))
            assert len(seen) == len(everything)
            for o, hand in enumerate(seen):
                if o == viewer:
                    assert hand == everything[o], f"seat {viewer} does not see its own hand"
                else:
                    assert hand == public[o], f"seat {viewer} sees seat {o}'s hand"


@pytest.mark.parametrize(("s", "variant"), CASES, ids=IDS)
@budget(10)
@given(d=draws)
def test_every_match_ends_ranked_with_nothing_left_to_do(
    s: GameSpec, variant: str, d: Draw
) -> None:
    table, rules = make_table(s, variant, d), game(s.id)
    final, log = run(rules, table, random.Random(d.rng_seed))
    assert isinstance(log[-1], MatchEnded)
    assert sum(isinstance(e, MatchEnded) for e in log) == 1
    end = log[-1]
    assert len(end.ranking) == len(end.totals)
    assert min(p for p in end.ranking if p is not None) == 1
    view = rules.view(final, None)
    assert view["status"] == "finished" and view["totals"] == list(end.totals)
    assert rules.to_act(final) == ()
    assert all(len(rules.legal_actions(final, seat)) == 0 for seat in range(len(end.totals)))
