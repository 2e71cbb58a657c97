"""Build Bottle Imp positions for rules tests: "given these hands, when …, then …".

Every position is reached through ``decide``/``evolve`` from a recorded deal, so the
tests exercise the real path rather than a hand-made state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.events import TableOpened
from domain.games import bottle_imp as g
from domain.games.bottle_imp.model import Deal, Discard, Pass, State
from domain.match import MatchRules
from domain.replay import replay
from domain.table import SeatSpec, Table


def table(
    variant: str = "standard",
    players: int = 4,
    *,
    target: int | None = 200,
    max_deals: int | None = None,
    seed: str | None = "test",
    first_dealer: int = 0,
) -> Table:
    seats = tuple(SeatSpec(name=f"P{i}") for i in range(players))
    return Table("bottle-imp", variant, seats, MatchRules(target, max_deals), seed, first_dealer)


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
        return replay(TableOpened.of(self.table), self.log)


def standard_ready(
    hands: Sequence[Sequence[int]], devil: Sequence[int], *, dealer: int = 0, **kw: Any
) -> Game:
    """A standard deal in the playing phase with these hands after passing.

    Seat ``s`` receives ``hands[s][0]`` from its right neighbour (that neighbour passed it
    left) and ``hands[s][1]`` from its left neighbour, and lays ``devil[s]``.
    """
    n = len(hands)
    left_of = [hands[(s + 1) % n][0] for s in range(n)]  # what seat s passes left
    right_of = [hands[(s - 1) % n][1] for s in range(n)]  # what seat s passes right
    dealt = [
        sorted((set(hands[s]) - {hands[s][0], hands[s][1]}) | {devil[s], left_of[s], right_of[s]})
        for s in range(n)
    ]
    game = Game(table("standard", n, first_dealer=dealer, **kw))
    game.act(Deal(hands=tuple(tuple(h) for h in dealt)))
    for s in range(n):
        game.act(Discard(s, devil[s]))
        game.act(Pass(s, left=left_of[s], right=right_of[s]))
    assert game.state.phase == "playing"
    assert [sorted(g.cards_of(h)) for h in game.state.hands] == [sorted(h) for h in hands]
    return game


def play_cards(game: Game, *cards: int) -> list[Any]:
    """Play cards in turn order; returns all events."""
    events: list[Any] = []
    for c in cards:
        seat = g.to_act(game.state)[0]
        events += game.act(g.parse({"type": "play", "seat": seat, "card": c}))
    return events


def lopaka_ready(
    hands: Sequence[Sequence[int]], devil: Sequence[int], *, dealer: int = 0, **kw: Any
) -> Game:
    """A lopaka deal after the exchange: ``hands`` = [seat 0, seat 1, Lopaka].

    Each real seat received its first listed card from the other.
    """
    f0, f1, lopaka = hands
    dealt0 = sorted((set(f0) - {f0[0]}) | {f1[0]})
    dealt1 = sorted((set(f1) - {f1[0]}) | {f0[0]})
    game = Game(table("lopaka", 2, first_dealer=dealer, **kw))
    game.act(Deal(hands=(tuple(dealt0), tuple(dealt1), tuple(lopaka)), devil=tuple(devil)))
    game.act(Pass(0, opponent=f1[0]))
    game.act(Pass(1, opponent=f0[0]))
    assert game.state.phase == "playing"
    return game


def bright_house_prepared(
    piles: Sequence[Sequence[int]], devil: Sequence[int], *, dealer: int = 0, **kw: Any
) -> Game:
    """A bright-house deal ready to choose open hands; ``piles`` per slot
    (seat 0 A, seat 0 B, seat 1 A, seat 1 B) after passing, first card received."""
    dealt = [
        sorted((set(piles[slot]) - {piles[slot][0]}) | {devil[slot], piles[slot ^ 2][0]})
        for slot in range(4)
    ]
    game = Game(table("bright-house", 2, first_dealer=dealer, **kw))
    game.act(
        Deal(hands=tuple({"A": tuple(dealt[2 * s]), "B": tuple(dealt[2 * s + 1])} for s in (0, 1)))
    )
    for slot in range(4):
        seat, hand = slot // 2, "AB"[slot % 2]
        game.act(Discard(seat, devil[slot], hand))
        game.act(Pass(seat, hand=hand, card=piles[slot ^ 2][0]))
    assert game.state.phase == "choosing"
    return game
