"""Bots: their choices on crafted positions, that they see only their seat's
observation, that a seeded decision is reproducible, and that simulations are the
same however they are split."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import partial
from importlib import import_module
from typing import Any

import pytest

from domain.bots import BOT_NAMES, BOTS, Bot, bot, decision_rng
from domain.bots.common import current_deal, observe
from domain.bots.simulate import Simulation, play_match, result, run_chunk
from domain.bots.stats import wilson, win_shares
from domain.errors import RuleViolation
from domain.games import SPECS, game
from domain.games.bestia.model import Deal as BestiaDeal
from domain.games.bottle_imp.model import Deal, Discard, Pass
from domain.games.oh_quay.cards import RANK
from domain.games.oh_quay.model import Deal as QuayDeal
from domain.match import MatchRules
from domain.table import SeatSpec, Table
from tests.domain import bestia_builders as bb
from tests.domain import bottle_imp_builders as ib
from tests.domain import oh_quay_builders as qb


def seen_by(game_id: str, g: Any, seat: int) -> dict[str, Any]:
    """``seat``'s observation of a builder's game."""
    rules = game(game_id)
    return observe(rules, g.state, seat, current_deal(rules, g.log))


def choose(name: str, game_id: str, view: dict[str, Any], seed: str = "s") -> dict[str, Any]:
    return bot(name).choose(game_id, view, random.Random(seed))


# --- the registry ---------------------------------------------------------------------------


def test_every_bot_plays_every_game() -> None:
    assert BOT_NAMES == ("random", "heuristic", "montecarlo")
    for b in BOTS.values():
        assert set(b.choosers) == set(SPECS)


def test_an_unknown_bot_is_refused_by_name() -> None:
    with pytest.raises(RuleViolation) as refused:
        bot("deep-blue")
    assert refused.value.code == "unknown_bot"
    assert "deep-blue" in refused.value.message


def test_a_decision_rng_is_the_same_in_every_process() -> None:
    """Seeded from a string, so hash randomisation never enters: a pinned draw."""
    assert decision_rng("club-night", 12, 2).random() == 0.5599649366855673
    assert decision_rng("club-night", 12, 2).random() != decision_rng("club-night", 13, 2).random()


# --- crafted positions --------------------------------------------------------------------------


def test_heuristic_does_not_buy_the_bottle_at_3_when_it_can_play_above_the_price() -> None:
    """Price 19; seat 1 leads 22 (yellow); seat 2's yellows are 3 and 25. The 3 would be
    the only card under the price and buy the bottle at 3, where nobody can buy it back."""
    hands = [
        [12, 15, 18, 28, 27, 30, 32, 29, 31, 33, 35],
        [22, 1, 2, 5, 7, 9, 17, 20, 24, 23, 26],
        [3, 25, 4, 6, 8, 10, 13, 11, 14, 16, 21],
    ]
    game_ = ib.standard_ready(hands, [34, 36, 37], target=None, max_deals=1)
    ib.play_cards(game_, 22)  # seat 1 leads (the dealer's left)
    view = seen_by("bottle-imp", game_, 2)
    assert {b["card"] for b in view["legal_actions"]} == {3, 25}
    assert choose("heuristic", "bottle-imp", view)["card"] == 25


def test_heuristic_sheds_a_low_card_under_another_players_purchase() -> None:
    """Seat 1 leads 17, under the price 19: a blue below 17 from seat 2 is shed free."""
    hands = [
        [1, 2, 3, 5, 7, 9, 11, 14, 16, 21, 23],
        [17, 12, 15, 18, 22, 25, 28, 26, 29, 31, 33],
        [4, 6, 8, 10, 13, 20, 24, 27, 30, 32, 35],
    ]
    game_ = ib.standard_ready(hands, [34, 36, 37], target=None, max_deals=1)
    ib.play_cards(game_, 17)
    view = seen_by("bottle-imp", game_, 2)
    assert choose("heuristic", "bottle-imp", view)["card"] < 17


def test_heuristic_passes_its_lowest_cards() -> None:
    g = ib.Game(ib.table("standard", 3, target=None, max_deals=1))
    g.act(Deal(hands=(tuple(range(1, 13)), (*range(13, 19), 20, 21, 22, 23, 24, 25),
                      tuple(range(26, 38)))))  # fmt: skip
    view = seen_by("bottle-imp", g, 0)
    discard = choose("heuristic", "bottle-imp", view)
    g.act(game("bottle-imp").parse(discard))
    passed = choose("heuristic", "bottle-imp", seen_by("bottle-imp", g, 0))
    assert passed["type"] == "pass"
    assert {passed["left"], passed["right"]} == {1, 2}
    assert discard["card"] not in (1, 2)


def test_quay_heuristic_launches_a_scoring_raft_and_takes_a_low_card() -> None:
    """Seat 0's canal opens with ace-knots, painter, market, windfall (a raft of 4)."""
    g = qb.dealt(canal0=["ace-knots", "painter", "market", "windfall", "sailor"])
    g.act(game("oh-quay").parse({"type": "load", "seat": 0, "from": "own", "position": 5}))
    launch = choose("heuristic", "oh-quay", seen_by("oh-quay", g, 0))
    assert launch["type"] == "launch" and launch["count"] == 4
    g.act(game("oh-quay").parse(launch))
    take = choose("heuristic", "oh-quay", seen_by("oh-quay", g, 1))
    raft = {"ace-knots", "painter", "market", "windfall"} - {launch["keep"]}
    assert take["card"] == min(raft, key=RANK.__getitem__)


def test_bestia_heuristic_declares_by_trump_strength() -> None:
    weak = ["7C", "8D", "9S", "10D", "7H"]  # the dealer's, with the muestra: hearts trump
    strong = ["JC", "AH", "KH", "7S", "8C"]  # the pánfilo and two top trumps
    g = bb.Game(bb.table(3))
    g.act(BestiaDeal(hands=(tuple(weak), tuple(strong), ("QH", "JH", "10H", "9H", "AS")),
                     muestra="7H"))  # fmt: skip
    assert g.to_act() == 2
    g.act(game("bestia").parse({"type": "declare", "seat": 2, "call": "play"}))
    assert choose("heuristic", "bestia", seen_by("bestia", g, 1))["call"] == "play"
    g.act(game("bestia").parse({"type": "declare", "seat": 1, "call": "play"}))
    assert choose("heuristic", "bestia", seen_by("bestia", g, 0))["call"] == "pass"


def test_bestia_heuristic_plays_when_speaking_last_after_passes() -> None:
    g = bb.Game(bb.table(3))
    g.act(BestiaDeal(hands=(("7C", "8D", "9S", "10D", "7H"), ("8C", "9D", "10S", "JD", "QD"),
                            ("QC", "KD", "7S", "8S", "9H")), muestra="7H"))  # fmt: skip
    for seat in (2, 1):
        g.act(game("bestia").parse({"type": "declare", "seat": seat, "call": "pass"}))
    assert choose("heuristic", "bestia", seen_by("bestia", g, 0))["call"] == "play"


# --- bots see their seat's observation and nothing else ---------------------------------------


def _twin_bottle_imp(swap: bool) -> tuple[Any, int]:
    """A standard deal at the first lead; ``swap`` exchanges a card between seats 0
    and 2, which seat 1 (the leader) cannot see."""
    hands = [list(range(1, 13)), [13, 14, 15, 16, 17, 18, 20, 21, 22, 23, 24, 25],
             list(range(26, 38))]  # fmt: skip
    if swap:
        hands[0][5], hands[2][5] = hands[2][5], hands[0][5]
    g = ib.Game(ib.table("standard", 3, target=None, max_deals=1))
    g.act(Deal(hands=tuple(tuple(sorted(h)) for h in hands)))
    for seat, (devil, left, right) in enumerate([(1, 2, 3), (13, 14, 15), (26, 27, 28)]):
        g.act(Discard(seat, devil))
        g.act(Pass(seat, left=left, right=right))
    assert g.state.phase == "playing"
    return g, 1


def _twin_oh_quay(swap: bool) -> tuple[Any, int]:
    """Seat 0 to load; ``swap`` reorders its own quay below the top it cannot see and
    the opponent's canal, both hidden from it."""
    quays, canals = qb.piles()
    if swap:
        quays = (tuple(reversed(quays[0])), quays[1])
        canals = (canals[0], tuple(reversed(canals[1])))
    g = qb.Game(qb.table())
    g.act(QuayDeal(quays=quays, canals=canals))
    return g, 0


def _twin_bestia(swap: bool) -> tuple[Any, int]:
    """Seat 1 to declare; ``swap`` exchanges a card between seats 0 and 2."""
    hands = [["7C", "8D", "9S", "10D", "7H"], ["JC", "AH", "KH", "7S", "8C"],
             ["QC", "KD", "8S", "9H", "AS"]]  # fmt: skip
    if swap:
        hands[0][0], hands[2][0] = hands[2][0], hands[0][0]
    g = bb.Game(bb.table(3))
    g.act(BestiaDeal(hands=tuple(tuple(h) for h in hands), muestra="7H"))
    g.act(game("bestia").parse({"type": "declare", "seat": 2, "call": "play"}))
    return g, 1


@pytest.mark.parametrize(
    ("game_id", "twin"),
    [("bottle-imp", _twin_bottle_imp), ("oh-quay", _twin_oh_quay), ("bestia", _twin_bestia)],
)
def test_bots_decide_from_the_observation_alone(game_id: str, twin: Any) -> None:
    """Two tables that differ only in cards hidden from the seat give it the same
    observation, a plain JSON document with no way back to the state, and so every bot
    the same decision: the hidden cards are out of its reach."""
    (a, seat), (b, _) = twin(False), twin(True)
    assert a.state != b.state
    view_a, view_b = seen_by(game_id, a, seat), seen_by(game_id, b, seat)
    assert view_a == view_b
    assert json.loads(json.dumps(view_a)) == view_a  # nothing but JSON values inside
    for name in BOT_NAMES:
        assert choose(name, game_id, view_a) == choose(name, game_id, view_b)


def test_an_observation_hides_the_other_hands() -> None:
    g, seat = _twin_bottle_imp(False)
    view = seen_by("bottle-imp", g, seat)
    assert [h is None for h in view["hands"]] == [True, False, True]
    assert view["devil_trick"] is None
    (dealt,) = [e for e in view["log"] if e["type"] == "DealStarted"]
    assert [h is None for h in dealt["data"]["hands"]] == [True, False, True]
    discards = [e["data"]["card"] for e in view["log"] if e["type"] == "CardDiscarded"]
    assert discards == [None, 13, None]


# --- reproducible decisions -----------------------------------------------------------------------


@dataclass
class Position:
    """A table's state and its log so far, as the builders keep them."""

    state: Any
    log: list[Any]


def a_choice(game_id: str) -> tuple[Position, int]:
    """A seeded table of the game (its default variant, smallest table, quick options)
    played by seeded random legal actions until, in a deal, a seat has more than one."""
    spec, rules = SPECS[game_id], game(game_id)
    variant = spec.default_variant
    seats = tuple(SeatSpec(name=f"P{i}") for i in range(min(spec.players[variant])))
    table = Table(game_id, variant, seats, MatchRules(None, 1), seed="a choice",
                  options=dict(spec.quick_options))  # fmt: skip
    state, log, rng = rules.initial_state(table), [], random.Random(game_id)
    while True:
        seat = rules.to_act(state)[0]
        legal = rules.legal_actions(state, seat)
        if log and len(legal) > 1:
            return Position(state, log), seat
        for event in rules.decide(state, legal[rng.randrange(len(legal))]):
            state = rules.evolve(state, event)
            log.append(event)


@pytest.mark.parametrize("game_id", SPECS)
@pytest.mark.parametrize("name", BOT_NAMES)
def test_a_seeded_decision_is_reproducible(game_id: str, name: str) -> None:
    g, seat = a_choice(game_id)
    view = seen_by(game_id, g, seat)
    first = [choose(name, game_id, view, seed=f"s{i}") for i in range(3)]
    again = [choose(name, game_id, json.loads(json.dumps(view)), seed=f"s{i}") for i in range(3)]
    assert first == again
    legal = view["legal_actions"]
    assert all(choice in legal for choice in first)


# --- every variant plays to the end ---------------------------------------------------------------

SMALL = Bot(
    "montecarlo-small",
    "Monte Carlo with a tiny budget, for tests",
    {s.id: partial(import_module(s.bots).montecarlo, budget=6) for s in SPECS.values()},
)


@pytest.mark.parametrize(
    ("game_id", "variant", "players"),
    [
        (spec.id, variant, n)
        for spec in SPECS.values()
        for variant, counts in spec.players.items()
        for n in sorted({min(counts), max(n for n in counts if n <= 5)})
    ],
)
def test_every_bot_plays_every_variant_to_the_end(game_id: str, variant: str, players: int) -> None:
    """Each registered game, variant and its smallest and largest table up to five: a
    two-deal match of the Monte Carlo, heuristic and random bots, with its quick options."""
    rules = game(game_id)
    bots = [SMALL, bot("heuristic"), bot("random"), SMALL, bot("heuristic")][:players]
    table = Table(
        game_id,
        variant,
        tuple(SeatSpec(bot=b.name) for b in bots),
        MatchRules(None, 2),
        seed=f"variants-{variant}",
        options=dict(SPECS[game_id].quick_options),
    )
    totals, ranking = play_match(rules, table, bots)
    assert len(totals) == len(ranking) and 1 in ranking


# --- simulations --------------------------------------------------------------------------------


def test_a_simulation_is_the_same_however_it_is_chunked() -> None:
    sim = Simulation("bottle-imp", ("heuristic", "random", "random"), 12, "chunks", max_deals=1)
    whole = run_chunk(sim, range(sim.matches))
    pieces = [m for chunk in reversed(sim.chunks()) for m in reversed(run_chunk(sim, chunk))]
    assert result(sim, whole) == result(sim, list(reversed(pieces)))


def test_heuristic_beats_random_on_a_fixed_seed() -> None:
    """A modest sample; the strength table with its intervals is in bench/bots.py."""
    sim = Simulation("bottle-imp", ("heuristic", "random", "random"), 30, "strength", max_deals=2)
    summary = result(sim, run_chunk(sim, range(sim.matches)))
    heuristic = summary["seats"][0]
    assert heuristic["win_rate_ci95"][0] > 1 / 3


def test_wilson_interval() -> None:
    assert wilson(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-5)
    assert wilson(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    assert wilson(0, 0) == (0.0, 1.0)


def test_a_tie_for_first_shares_the_win() -> None:
    assert win_shares([1, 1, 3]) == [0.5, 0.5, 0.0]
    assert win_shares([2, 1, None]) == [0.0, 1.0, 0.0]


def test_a_simulation_refuses_what_cannot_run() -> None:
    with pytest.raises(RuleViolation) as refused:
        Simulation("bottle-imp", ("heuristic", "random"), 3, "x").check()
    assert refused.value.code == "wrong_player_count"
    with pytest.raises(RuleViolation) as unknown:
        Simulation("oh-quay", ("heuristic", "nobody"), 3, "x").check()
    assert unknown.value.code == "unknown_bot"
