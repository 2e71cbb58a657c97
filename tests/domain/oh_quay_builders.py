"""Build Oh Quay positions for rules tests: "given these quays and canals, when …, then …".

Every position is reached through ``decide``/``evolve`` from a recorded deal, so the
tests exercise the real path rather than a hand-made state.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from typing import Any

from domain.events import TableOpened
from domain.games import oh_quay as g
from domain.games.oh_quay.cards import DECK
from domain.games.oh_quay.model import Deal, Launch, Load, State
from domain.match import MatchRules
from domain.table import SeatSpec, Table


def table(
    *,
    seed: str | None = "test",
    max_deals: int | None = 2,
    target: int | None = None,
    first_dealer: int = 0,
    **options: Any,
) -> Table:
    """A two-seat Oh Quay table; ``options`` are the game's rules (``max_turns`` …)."""
    seats = (SeatSpec(name="Ann"), SeatSpec(name="Bo"))
    return Table(
        "oh-quay", "standard", seats, MatchRules(target, max_deals), seed, first_dealer, options
    )


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

    def replayed(self) -> State:
        """The state folded from ``TableOpened`` and the log (``domain.replay``'s way)."""
        opened = TableOpened.of(self.table)
        return reduce(g.evolve, self.log, g.initial_state(opened.table()))


Piles = tuple[tuple[str, ...], tuple[str, ...]]


def piles(
    quay0: Sequence[str] = (),
    canal0: Sequence[str] = (),
    quay1: Sequence[str] = (),
    canal1: Sequence[str] = (),
) -> tuple[Piles, Piles]:
    """``(quays, canals)`` per seat: the given cards first (quays top first, canals front
    first), each pile filled up to nine with the unused cards in canonical order."""
    given = [list(quay0), list(canal0), list(quay1), list(canal1)]
    used = {c for pile in given for c in pile}
    assert len(used) == sum(map(len, given)), "a card is given twice"
    rest = [c for c in DECK if c not in used]
    for pile in given:
        while len(pile) < 9:
            pile.append(rest.pop(0))
    q0, c0, q1, c1 = (tuple(p) for p in given)
    return (q0, q1), (c0, c1)


def dealt(
    quay0: Sequence[str] = (),
    canal0: Sequence[str] = (),
    quay1: Sequence[str] = (),
    canal1: Sequence[str] = (),
    **table_kw: Any,
) -> Game:
    """A game after a recorded deal of these piles (see ``piles``)."""
    game = Game(table(**table_kw))
    quays, canals = piles(quay0, canal0, quay1, canal1)
    game.act(Deal(quays=quays, canals=canals))
    return game


def turn(
    game: Game, source: str = "own", position: int = 0, count: int = 1, keep: str | None = None
) -> list[Any]:
    """One whole turn of the seat in turn: load, then launch (without the take)."""
    seat = game.state.player
    return game.act(Load(seat, source, position)) + game.act(Launch(seat, count, keep))
