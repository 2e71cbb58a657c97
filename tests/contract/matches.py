"""Random legal matches of every registered game, variant and table size, read from the
registry (``domain.games.SPECS``): adding a game adds its cases here with no edit.

A match keeps what the organiser's log holds (``TableOpened`` first, as the service stores
it) and the rules' state after each of its versions, folded step by step.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pytest
from hypothesis import strategies as st

from domain.events import TableOpened
from domain.games import SPECS, game
from domain.games.registry import GameSpec
from domain.match import MatchRules
from domain.table import SeatSpec, Table


class Case(NamedTuple):
    """One game, variant and number of seats."""

    spec: GameSpec
    variant: str
    players: int

    @property
    def id(self) -> str:
        return f"{self.spec.id}-{self.variant}-{self.players}"


CASES = [Case(s, v, n) for s in SPECS.values() for v in s.variants for n in s.players[v]]
EVERY_CASE = [pytest.param(c, id=c.id) for c in CASES]
#: Each game and variant once, at its smallest table (the HTTP walk's cases).
EVERY_VARIANT = [
    pytest.param(c, id=c.id) for c in CASES if c.players == min(c.spec.players[c.variant])
]
#: Each game once: its default variant at its smallest table.
EVERY_GAME = [
    pytest.param(c, id=c.id)
    for c in CASES
    if c.variant == c.spec.default_variant and c.players == min(c.spec.players[c.variant])
]


class Draw(NamedTuple):
    """What hypothesis chooses for one match."""

    seed: str
    salt: int
    rng_seed: int
    max_deals: int
    first_dealer: int


draws = st.builds(
    Draw,
    seed=st.text(max_size=8),
    salt=st.integers(0, 2**128 - 1),
    rng_seed=st.integers(0, 2**32 - 1),
    max_deals=st.integers(1, 2),
    first_dealer=st.integers(0, 7),
)


def table_of(case: Case, d: Draw) -> Table:
    """A salted, seeded table; the seed is distinctive, so finding it in a text means it
    leaked (``docs/rules/common.md``, Deterministic shuffling, rule 1)."""
    return Table(
        game=case.spec.id,
        variant=case.variant,
        seats=tuple(SeatSpec(name=f"P{i}") for i in range(case.players)),
        match=MatchRules(None, d.max_deals),
        seed=f"kept-secret-{d.seed}",
        first_dealer=d.first_dealer % case.players,
        salt=f"{d.salt:032x}",
    )


class Step(NamedTuple):
    """An action taken at ``version`` (the log's length before it) and its events' count."""

    version: int
    seat: Any
    action: Any
    events: int


@dataclass
class Match:
    """A whole match: the log (``TableOpened`` first) and the state after each version."""

    spec: GameSpec
    table: Table
    log: list[Any] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)

    def state(self, version: int) -> Any:
        """The rules' state after the first ``version`` events of the log."""
        return self.states[version - 1]

    def deal_at(self, version: int) -> int:
        """The deal an event belongs to: the deal of the state it leads to (0 before any)."""
        return int(self.state(version).deal)

    @property
    def versions(self) -> range:
        return range(1, len(self.log) + 1)


def play(spec: GameSpec, table: Table, rng: random.Random) -> Match:
    """A match of random legal actions through the same ``Rules`` the service uses."""
    rules = game(spec.id)
    state = rules.initial_state(table)
    match = Match(spec, table, [TableOpened.of(table)], [state])
    for _ in range(2000 * (table.match.max_deals or 20)):
        seats = rules.to_act(state)
        if not seats:
            return match
        seat = seats[rng.randrange(len(seats))]
        legal = rules.legal_actions(state, seat)
        assert legal, f"seat {seat} is to act but has no legal action"
        action = legal[rng.randrange(len(legal))]
        events = rules.decide(state, action)
        assert events, f"{action} decided no event"
        match.steps.append(Step(len(match.log), seat, action, len(events)))
        for event in events:
            state = rules.evolve(state, event)
            match.log.append(event)
            match.states.append(state)
    raise AssertionError("the match did not end")
