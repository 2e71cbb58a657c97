"""The Bestia Monte Carlo bot's reasoning, piece by piece: what a card played rules out of
its player's hand (rule 6 read backwards), worlds that keep every fact the seat saw, the
chance of winning the match from the balances, and a search that keeps the heuristic's
choice unless the playouts clearly say otherwise."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.bots import bot
from domain.bots.bestia import win_chance
from domain.bots.bestia_world import World, ruled_out
from domain.bots.common import search
from domain.bots.simulate import Match
from domain.games import game
from domain.games.bestia.cards import BIT, CARD_ID, NAMES, TRUMPS, deck, mask_of
from domain.games.bestia.tricks import legal_mask
from domain.match import MatchRules
from domain.table import SeatSpec, Table


@pytest.mark.parametrize("undertrump", [False, True])
def test_a_card_played_rules_out_exactly_the_cards_that_would_have_made_it_illegal(
    undertrump: bool,
) -> None:
    """For random tricks: ``x`` is ruled out exactly when a hand of ``card`` and ``x``
    could not play ``card`` (the duties of rule 6 each compare one card with another)."""
    rng = random.Random(6)
    cards = list(deck(8, "short"))
    options = {"must_undertrump": undertrump}
    table = Table("bestia", "standard", tuple(SeatSpec() for _ in range(3)), options=options)
    fresh = game("bestia").initial_state(table)
    for _ in range(400):
        tt = TRUMPS[rng.random() < 0.5][rng.randrange(4)]
        trick = rng.sample(cards, rng.randrange(0, 5))
        rest = [c for c in cards if c not in trick]
        card = rng.choice(rest)
        best = trick[0] if trick else -1
        for c in trick[1:]:
            best = c if tt.beaten_by[best] & BIT[c] else best
        state = fresh._replace(trumps=tt, trick=tuple(trick), best=best)
        out = ruled_out(tt, trick, best, card, undertrump)
        for x in rest:
            if x == card:
                continue
            legal = legal_mask(state, BIT[card] | BIT[x]) & BIT[card]
            assert bool(out & BIT[x]) == (not legal), (NAMES[card], NAMES[x], trick)


def _views(players: int, seed: str) -> Any:
    """Seat 0's observations through a heuristic match (with the state they hide)."""
    table = Table("bestia", "standard", tuple(SeatSpec(bot="heuristic") for _ in range(players)),
                  MatchRules(None, 6), seed=seed)  # fmt: skip
    match = Match(game("bestia"), table, [bot("heuristic")] * players)
    for seat, view in match:
        if seat == 0 and match.state.phase in ("declaring", "exchanging", "playing"):
            yield view, match.state


@pytest.mark.parametrize("players", [3, 5, 8])
def test_worlds_keep_every_fact_the_seat_saw(players: int) -> None:
    """Every sampled world deals exactly the unseen cards, into hands of the right sizes,
    with the seat's own hand as it is and no hand holding a card its plays ruled out;
    the true deal is one of the worlds the seat believes possible."""
    checked = 0
    for view, truth in _views(players, f"worlds-{players}"):
        world = World(view)
        rng = random.Random(checked)
        for _ in range(5):
            s = world.sample(rng)
            assert s.hands[0] == truth.hands[0]
            assert [h.bit_count() for h in s.hands] == [h.bit_count() for h in truth.hands]
            assert len(s.stock) == len(truth.stock)
            stock = mask_of(CARD_ID[c] for c in s.stock)
            parts = [*s.hands, s.laid_aside, s.taken, mask_of(s.trick), stock]
            assert sum(m.bit_count() for m in parts) == len(truth.rules.deck)
            everything = 0
            for m in parts:
                everything |= m
            assert everything == mask_of(truth.rules.deck)
            for seat, out in world.ruled_out.items():
                assert not s.hands[seat] & out
        for seat, out in world.ruled_out.items():
            assert not truth.hands[seat] & out, "a fact the true deal breaks"
        checked += 1
    assert checked > 10


def test_win_chance_is_who_is_first_after_the_last_deal() -> None:
    assert win_chance((5, 3, 9), 2, 40, 0) == 1.0
    assert win_chance((5, 3, 9), 0, 40, 0) == 0.0
    assert win_chance((9, 3, 9), 0, 40, 0) == 0.5


def test_win_chance_grows_with_a_lead_and_fades_with_deals_to_come() -> None:
    even = win_chance((0,) * 5, 0, 20, 4)
    assert even == pytest.approx(1 / 5, abs=0.01)
    ahead_late, ahead_early = (
        win_chance((30, 0, 0, 0, 0), 0, 20, 1),
        win_chance((30, 0, 0, 0, 0), 0, 20, 9),
    )
    assert 1 > ahead_late > ahead_early > even
    assert win_chance((-30, 0, 0, 0, 0), 0, 20, 4) < even
    # a big pot still to be won makes the same lead less safe
    assert win_chance((30, 0, 0, 0, 0), 0, 400, 4) < win_chance((30, 0, 0, 0, 0), 0, 20, 4)


def test_search_keeps_the_first_candidate_unless_clearly_beaten() -> None:
    """Two candidates whose playouts are noisy: a small edge of the second does not
    overrule the first when in doubt; a large edge does, and a worse second never wins."""

    def worlds(rng: random.Random) -> tuple[float, float]:
        return rng.gauss(0, 1), rng.gauss(0, 1)

    def playout(edge: float) -> Any:
        return lambda world, c, r: world[0] if c == "a" else world[1] + edge

    small = [search(["a", "b"], worlds, playout(0.05), 40, random.Random(i), 2.0)
             for i in range(30)]  # fmt: skip
    assert small.count("a") >= 27
    without_doubt = [search(["a", "b"], worlds, playout(0.05), 40, random.Random(i))
                     for i in range(30)]  # fmt: skip
    assert without_doubt.count("b") >= 10
    assert search(["a", "b"], worlds, playout(2.0), 40, random.Random(1), 2.0) == "b"
    assert search(["a", "b"], worlds, playout(-2.0), 40, random.Random(1), 2.0) == "a"
