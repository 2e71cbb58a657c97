"""Build Bestia positions for rules tests: "given these hands, when …, then …".

Every position is reached through ``decide``/``evolve`` from a recorded (or seeded)
deal, so the tests exercise the real path rather than a hand-made state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import reduce
from typing import Any

from domain.events import TableOpened
from domain.games import bestia as g
from domain.games.bestia.model import Deal, Declare, Exchange, Play, State
from domain.match import MatchRules
from domain.table import SeatSpec, Table


def table(
    players: int = 3,
    *,
    options: Mapping[str, Any] | None = None,
    target: int | None = None,
    max_deals: int | None = None,
    seed: str | None = "test",
    first_dealer: int = 0,
    variant: str = "standard",
) -> Table:
    """A Bestia table; without ``target``/``max_deals`` the game's default match."""
    if target is None and max_deals is None:
        match = g.default_match(players)
    else:
        match = MatchRules(target, max_deals)
    seats = tuple(SeatSpec(name=f"P{i}") for i in range(players))
    return Table("bestia", variant, seats, match, seed, first_dealer, dict(options or {}))


class Game:
    """A live game: a state and the log that produced it."""

    def __init__(self, t: Table) -> None:
        self.table = t
        self.state: State = g.initial_state(t)
        self.log: list[Any] = []

    def act(self, action: Any) -> list[Any]:
        events = g.decide(self.state, action)
        for e in events:
            self.state = g.evolve(self.state, e)
        self.log += events
        return events

    def body(self, body: Mapping[str, Any]) -> list[Any]:
        return self.act(g.parse(body))

    def replayed(self) -> State:
        opened = TableOpened.of(self.table)
        return reduce(g.evolve, self.log, g.initial_state(opened.table()))

    def to_act(self) -> int:
        (seat,) = g.to_act(self.state)
        return seat


def declare(game: Game, calls: Mapping[int, str] | None = None) -> list[Any]:
    """Everyone declares in turn: ``calls[seat]``, ``"play"`` when not given."""
    events: list[Any] = []
    calls = calls or {}
    while game.state.phase == "declaring":
        seat = game.to_act()
        events += game.act(Declare(seat, calls.get(seat, "play")))
    return events


def exchange(game: Game, discards: Mapping[int, Sequence[str]] | None = None) -> list[Any]:
    """Everyone in exchanges in turn: ``discards[seat]`` (nothing when not given); in a
    recorded deal nothing is drawn, so only empty exchanges go through here."""
    events: list[Any] = []
    discards = discards or {}
    while game.state.phase == "exchanging":
        seat = game.to_act()
        discard = tuple(discards.get(seat, ()))
        drawn = None if game.state.seeded else ()
        events += game.act(Exchange(seat, discard, drawn))
    return events


def recorded(
    hands: Sequence[Sequence[str]],
    muestra: str,
    *,
    dealer: int = 0,
    calls: Mapping[int, str] | None = None,
    **kw: Any,
) -> Game:
    """A recorded deal with these hands, declared (everyone plays unless ``calls`` says
    otherwise) and exchanged without changes: the position before the first lead."""
    game = Game(table(len(hands), first_dealer=dealer, **kw))
    game.act(Deal(hands=tuple(tuple(h) for h in hands), muestra=muestra))
    declare(game, calls)
    exchange(game)
    return game


def play_cards(game: Game, *cards: str) -> list[Any]:
    """Play cards in turn order; returns all events."""
    events: list[Any] = []
    for c in cards:
        events += game.act(Play(game.to_act(), c))
    return events


def legal_cards(game: Game) -> set[str]:
    """The cards the seat to act may play."""
    return {a.card for a in g.legal_actions(game.state, game.to_act())}  # type: ignore[union-attr]
