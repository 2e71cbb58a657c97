"""A bot's observation made lazily (``domain.bots.observation.Observation``) is the very
document ``observe`` gives, at every decision of seeded matches of every game; a
decision's dice seeded on first use draw exactly what ``random.Random(text)`` draws."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from domain.bots import Dice, bot, decision_rng
from domain.bots.observation import LegalBodies, Observation, observe
from domain.events import event_type
from domain.games import game
from domain.match import MatchRules
from domain.shuffle import deal_key
from domain.table import SeatSpec, Table

CASES = [
    ("bottle-imp", "standard", ("heuristic", "random", "heuristic")),
    ("bottle-imp", "standard", ("random", "heuristic", "random", "heuristic")),
    ("bottle-imp", "lopaka", ("heuristic", "random")),
    ("bottle-imp", "bright-house", ("random", "heuristic")),
    ("oh-quay", "standard", ("heuristic", "random")),
    ("bestia", "standard", ("heuristic", "random", "heuristic", "random", "heuristic")),
]


def _decisions(game_id: str, variant: str, seats: tuple[str, ...]) -> Any:
    """Each decision of one seeded match: (rules, state, seat, the deal's events)."""
    rules = game(game_id)
    table = Table(game_id, variant, tuple(SeatSpec(bot=s) for s in seats),
                  MatchRules(None, 2), seed=f"observation-{variant}")  # fmt: skip
    state, version, deal = rules.initial_state(table), 1, []
    assert table.seed is not None
    while state.phase != "finished":
        seat = rules.to_act(state)[0]
        yield rules, state, seat, deal
        view = observe(rules, state, seat, deal)
        dice = decision_rng(deal_key(table.seed, table.salt), version, seat)
        for e in rules.decide(state, rules.parse(bot(seats[seat]).choose(game_id, view, dice))):
            if event_type(e) == "DealStarted":
                deal = []
            deal.append(e)
            state = rules.evolve(state, e)
            version += 1


@pytest.mark.parametrize(("game_id", "variant", "seats"), CASES)
def test_an_observation_is_observe_s_document(
    game_id: str, variant: str, seats: tuple[str, ...]
) -> None:
    decisions = 0
    for rules, state, seat, deal in _decisions(game_id, variant, seats):
        expected = observe(rules, state, seat, deal)
        lazy = Observation(rules, state, seat, deal)
        assert lazy == expected
        assert set(lazy) == set(expected) and len(lazy) == len(expected)
        assert lazy.as_dict() == expected
        assert json.loads(json.dumps(lazy.as_dict())) == expected
        assert "log" in lazy and "legal_actions" in lazy and "state" not in lazy
        for name in ("heuristic", "random"):
            fresh = Observation(rules, state, seat, deal)
            dice = decision_rng("same", 7, seat), decision_rng("same", 7, seat)
            assert bot(name).choose(game_id, fresh, dice[0]) == bot(name).choose(
                game_id, expected, dice[1]
            )
        decisions += 1
    assert decisions > 20


def test_legal_bodies_are_made_when_read_and_read_as_a_list() -> None:
    made: list[int] = []

    def body(action: int) -> dict[str, Any]:
        made.append(action)
        return {"type": "play", "card": action}

    legal = LegalBodies((5, 6, 7), body)
    assert len(legal) == 3 and made == []
    assert legal[1] == {"type": "play", "card": 6} and made == [6]
    assert legal[1] is legal[1] and made == [6]
    assert legal[-1]["card"] == 7
    assert legal[:2] == [{"type": "play", "card": 5}, {"type": "play", "card": 6}]
    assert legal == [{"type": "play", "card": c} for c in (5, 6, 7)]
    with pytest.raises(IndexError):
        legal[3]


@pytest.mark.parametrize("text", ["a", "club-night/3/bot/17/2", "x" * 200])
def test_dice_draw_what_random_random_draws(text: str) -> None:
    def draws(rng: random.Random) -> list[Any]:
        cards = list(range(30))
        rng.shuffle(cards)
        return [
            [rng.randrange(3) for _ in range(40)],  # draws that are thrown away and redrawn
            rng.random(),
            rng.getrandbits(64),
            rng.choices("abc", [1, 2, 3], k=5),
            rng.sample(range(20), 5),
            rng.uniform(1, 2),
            rng.gauss(0, 1),
            cards,
        ]

    assert draws(Dice(text)) == draws(random.Random(text))
    for first in (3, 5, 6, 7, 1000):  # the very first draw thrown away and redrawn
        assert Dice(text).randrange(first) == random.Random(text).randrange(first)
    assert Dice(text).getstate() == random.Random(text).getstate()
    reseeded = Dice(text)
    reseeded.seed("other")
    assert reseeded.random() == random.Random("other").random()
