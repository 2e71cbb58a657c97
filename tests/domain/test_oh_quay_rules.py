"""Oh Quay, rule by rule (``docs/rules/oh-quay.md``): given / when / then."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import RuleViolation
from domain.events import MatchEnded, TableOpened, from_data, to_data
from domain.games import oh_quay as g
from domain.games.oh_quay.cards import DECK, RANK, SUIT_MASK, SUITS, suits_of
from domain.games.oh_quay.model import (
    CargoLoaded,
    Deal,
    DealScored,
    DealStarted,
    Launch,
    Load,
    RaftCardTaken,
    RaftLaunched,
    RaftScored,
    Take,
)
from domain.match import MatchRules
from domain.shuffle import shuffle
from domain.table import ORGANISER
from tests.domain.oh_quay_builders import Game, dealt, piles, table, turn


def refused(game: Game, action: object, code: str) -> RuleViolation:
    """The action is refused with ``code`` and the state is unchanged."""
    before = game.state
    with pytest.raises(RuleViolation) as caught:
        g.decide(game.state, action)
    assert caught.value.code == code, caught.value.message
    assert game.state is before
    return caught.value


# The worked example: seat 0 loads ace-knots (its quay's top) to the front of its canal.
WORKED_CANAL = ["ace-knots", "painter", "market", "windfall", "sailor"]


@pytest.fixture
def worked() -> Game:
    game = dealt(quay0=["ace-knots"], canal0=WORKED_CANAL[1:])
    game.act(Load(0, "own", 0))
    assert game.state.canals[0][:5] == tuple(WORKED_CANAL)
    return game


#: Every Knots card, rank 1 to 10: the longest raft there is.
KNOTS = ["ace-knots", "author", "painter", "battle", "soldier", "market", "castle", "betrayal",
         "merchant", "windfall"]  # fmt: skip


def empty_canal_in_one_turn(**table_kw: Any) -> Game:
    """Seat 0 loads ``windfall`` behind nine Knots and launches all ten."""
    game = dealt(quay0=KNOTS[9:], canal0=KNOTS[:9], **table_kw)
    game.act(Load(0, "own", 9))
    game.act(Launch(0, 10, "ace-knots"))
    return game


class TestWorkedExample:
    def test_a_launch_of_4_is_legal_a_launch_of_5_is_not(self, worked: Game) -> None:
        error = refused(worked, Launch(0, 5, "ace-knots"), "not_a_raft")
        assert "sailor" in error.message and "shares no suit" in error.message
        launches = {(a.count_, a.keep) for a in g.legal_actions(worked.state, 0)}
        assert (4, "windfall") in launches and not any(n == 5 for n, _ in launches)
        assert launches == {(1, None)} | {(n, c) for n in (2, 3, 4) for c in WORKED_CANAL[:n]}

    def test_keep_ace_knots_the_opponent_takes_windfall_two_points(self, worked: Game) -> None:
        launched = worked.act(Launch(0, 4, "ace-knots"))
        assert launched == [RaftLaunched(0, tuple(WORKED_CANAL[:4]), "ace-knots")]
        assert g.to_act(worked.state) == (1,)
        assert worked.state.quays[0][-1] == "ace-knots"
        taken = worked.act(Take(1, "windfall"))
        assert taken == [RaftCardTaken(1, "windfall"), RaftScored(0, ("painter", "market"))]
        assert worked.state.quays[1][-1] == "windfall"
        assert worked.state.piles == (("painter", "market"), ())
        assert g.view(worked.state, None)["score_piles"] == [["painter", "market"], []]
        assert worked.state.canals[0][0] == "sailor"
        assert g.to_act(worked.state) == (1,) and worked.state.phase == "loading"


class TestDeck:
    def test_36_cards_in_canonical_order(self) -> None:
        assert DECK == (
            "ace-moons", "ace-suns", "ace-waves", "ace-leaves", "ace-wyrms", "ace-knots",
            "author", "desert", "origin", "journey", "painter", "savage",
            "mountain", "sailor", "battle", "forest", "discovery", "soldier",
            "lunatic", "penitent", "market", "chance-meeting", "castle", "cave",
            "diplomat", "mill", "betrayal", "pact", "darkness", "merchant",
            "huntress", "bard", "sea", "end", "calamity", "windfall",
        )  # fmt: skip
        assert g.DECK is DECK

    def test_ranks_and_suits_follow_the_table(self) -> None:
        assert [RANK[c] for c in DECK] == [1] * 6 + [r for r in range(2, 10) for _ in "abc"] + [
            10
        ] * 6
        assert suits_of("author") == ("moons", "knots")
        assert suits_of("chance-meeting") == ("moons", "leaves")
        assert suits_of("darkness") == ("waves", "wyrms")
        assert suits_of("huntress") == ("moons",) and suits_of("ace-knots") == ("knots",)
        for c in DECK:
            assert len(suits_of(c)) == (1 if RANK[c] in (1, 10) else 2), c

    def test_each_suit_holds_one_card_of_every_rank(self) -> None:
        for i, suit in enumerate(SUITS):
            ranks = sorted(RANK[c] for c in DECK if SUIT_MASK[c] >> i & 1)
            assert ranks == list(range(1, 11)), suit

    @pytest.mark.parametrize("value", ["the-author", "Author", "ace_moons", "AS", 17, ["author"]])
    def test_a_card_outside_the_deck_is_refused_by_name(self, worked: Game, value: Any) -> None:
        error = refused(worked, Launch(0, 2, value), "unknown_card")
        assert repr(value) in error.message


class TestSetup:
    @pytest.mark.parametrize(
        "options,first_dealer,starter",
        [({}, 0, 0), ({}, 1, 1), ({"first_player": 1}, 0, 1), ({"first_player": 0}, 1, 0)],
    )
    def test_seeded_deal_positions_0_to_35(
        self, options: dict[str, int], first_dealer: int, starter: int
    ) -> None:
        game = Game(table(seed="harbour", first_dealer=first_dealer, **options))
        assert g.to_act(game.state) == (starter,)
        assert g.legal_actions(game.state, starter) == (Deal(),)
        assert g.legal_actions(game.state, 1 - starter) == ()
        (started,) = game.act(Deal())
        deck = shuffle(DECK, "harbour/1")
        quays, canals = [(), ()], [(), ()]
        quays[starter], canals[starter] = tuple(deck[0:9]), tuple(deck[9:18])
        quays[1 - starter], canals[1 - starter] = tuple(deck[18:27]), tuple(deck[27:36])
        assert started == DealStarted(1, starter, tuple(quays), tuple(canals), "harbour/1")
        assert game.state.phase == "loading" and g.to_act(game.state) == (starter,)

    def test_a_recorded_deal_is_taken_as_given(self) -> None:
        game = Game(table())
        quays, canals = piles()
        (started,) = game.act(g.parse({"type": "deal", "quays": quays, "canals": canals}))
        assert started == DealStarted(1, 0, quays, canals)
        assert started.seed is None
        assert game.state.quays == quays and game.state.canals == canals

    @pytest.mark.parametrize(
        "change,code,words",
        [
            (lambda q, c: (q[:1], c), "invalid_deal", "2 quays"),
            (lambda q, c: ((q[0][:8], q[1]), c), "invalid_deal", "seat 0's quay must hold 9"),
            (lambda q, c: (q, (c[0], (*c[1][:8], "author"))), "invalid_deal", "dealt twice"),
            (lambda q, c: (q, (c[0], (*c[1][:8], "fool"))), "unknown_card", "'fool'"),
            (lambda q, c: (q, None), "invalid_deal", "both"),
        ],
    )
    def test_a_recorded_deal_must_be_exactly_the_deck(
        self, change: Any, code: str, words: str
    ) -> None:
        quays, canals = change(*piles())
        error = refused(Game(table()), Deal(quays, canals), code)
        assert words in error.message

    def test_a_seeded_deal_needs_a_seed(self) -> None:
        refused(Game(table(seed=None)), Deal(), "no_seed")


class TestLoadCargo:
    @pytest.mark.parametrize("position", range(10))
    def test_from_the_own_quay_at_any_position(self, position: int) -> None:
        game = dealt(quay0=["mill"])
        canal = game.state.canals[0]
        (loaded,) = game.act(Load(0, "own", position))
        assert loaded == CargoLoaded(0, "own", "mill", position)
        assert game.state.canals[0] == (*canal[:position], "mill", *canal[position:])
        assert game.state.quays[0] == piles(quay0=["mill"])[0][0][1:]

    @pytest.mark.parametrize("position", [0, 4, 9])
    def test_from_the_opponents_quay(self, position: int) -> None:
        game = dealt(quay1=["sea"])
        (loaded,) = game.act(Load(0, "opponent", position))
        assert loaded == CargoLoaded(0, "opponent", "sea", position)
        assert game.state.canals[0][position] == "sea"
        assert len(game.state.quays[1]) == 8 and len(game.state.quays[0]) == 9

    def test_every_position_and_both_quays_are_legal(self) -> None:
        game = dealt()
        legal = g.legal_actions(game.state, 0)
        assert sorted((a.from_, a.position) for a in legal) == sorted(
            (q, p) for q in ("own", "opponent") for p in range(10)
        )

    @pytest.mark.parametrize("position", [-1, 10, "3", True, None])
    def test_a_position_outside_the_canal(self, position: Any) -> None:
        error = refused(dealt(), Load(0, "own", position), "invalid_position")
        assert "from 0 (front) to 9 (back)" in error.message

    def test_a_quay_is_own_or_opponent(self) -> None:
        refused(dealt(), Load(0, "mine", 0), "unknown_quay")

    def test_an_empty_quay_forces_the_other(self) -> None:
        game = dealt()
        for _ in range(9):  # seat 0's quay turns over; seat 1 draws it dry
            turn(game, "own", 0)
            turn(game, "opponent", 0)
        assert game.state.quays[0] == () and g.to_act(game.state) == (0,)
        assert {a.from_ for a in g.legal_actions(game.state, 0)} == {"opponent"}
        error = refused(game, Load(0, "own", 0), "empty_quay")
        assert "load from the other one" in error.message
        game.act(Load(0, "opponent", 0))


class TestLaunch:
    def test_one_card_goes_to_the_bottom_of_the_own_quay(self) -> None:
        game = dealt(canal0=["lunatic"])
        game.act(Load(0, "own", 9))
        events = game.act(Launch(0, 1))
        assert events == [RaftLaunched(0, ("lunatic",), "lunatic")]
        assert game.state.quays[0][-1] == "lunatic" and len(game.state.quays[0]) == 9
        assert len(game.state.canals[0]) == 9
        assert g.to_act(game.state) == (1,) and game.state.turns == 1

    def test_a_raft_shares_a_suit_and_rises_strictly(self) -> None:
        # journey (3, Moons Waves), lunatic (6, Moons Waves), mill (8, Waves Leaves)
        game = dealt(canal0=["journey", "lunatic", "mill", "sea", "cave"])
        game.act(Load(0, "own", 9))
        assert {a.count_ for a in g.legal_actions(game.state, 0)} == {1, 2, 3, 4}
        error = refused(game, Launch(0, 5, "sea"), "not_a_raft")
        assert error.message.endswith("cave (rank 7) does not rank above sea (rank 10)")

    def test_a_card_without_the_common_suit_breaks_the_raft(self) -> None:
        # author (Moons Knots), journey (Moons Waves): Moons; then mill (Waves Leaves)
        game = dealt(canal0=["author", "journey", "mill"])
        game.act(Load(0, "own", 9))
        error = refused(game, Launch(0, 3, "author"), "not_a_raft")
        assert "mill (waves/leaves) shares no suit with author, journey" in error.message

    def test_equal_ranks_are_no_raft(self) -> None:
        game = dealt(canal0=["ace-moons", "ace-suns"])
        game.act(Load(0, "own", 9))
        refused(game, Launch(0, 2, "ace-moons"), "not_a_raft")

    def test_a_raft_needs_a_keep_from_among_its_cards(self, worked: Game) -> None:
        refused(worked, Launch(0, 3), "keep_required")
        error = refused(worked, Launch(0, 3, "windfall"), "card_not_in_raft")
        assert "windfall" in error.message
        refused(worked, Launch(0, 1, "ace-knots"), "invalid_keep")

    @pytest.mark.parametrize("count", [0, 11, -1, "2", True])
    def test_count_is_1_to_the_canals_length(self, worked: Game, count: Any) -> None:
        error = refused(worked, Launch(0, count, "ace-knots"), "invalid_count")
        assert "from 1 to 10" in error.message

    def test_a_two_card_rafts_last_card_goes_to_the_opponent(self, worked: Game) -> None:
        events = worked.act(Launch(0, 2, "painter"))
        assert events == [
            RaftLaunched(0, ("ace-knots", "painter"), "painter"),
            RaftCardTaken(1, "ace-knots"),
        ]
        assert worked.state.quays[0][-1] == "painter"
        assert worked.state.quays[1][-1] == "ace-knots"
        assert worked.state.piles == ((), ())  # a two-card raft scores nothing
        assert g.to_act(worked.state) == (1,) and worked.state.phase == "loading"

    def test_only_the_opponent_takes_and_not_the_kept_card(self, worked: Game) -> None:
        worked.act(Launch(0, 4, "market"))
        assert worked.state.phase == "taking" and g.to_act(worked.state) == (1,)
        assert [a.card for a in g.legal_actions(worked.state, 1)] == [
            "ace-knots",
            "painter",
            "windfall",
        ]
        assert list(g.legal_actions(worked.state, 0)) == []
        refused(worked, Take(0, "painter"), "not_your_turn")
        error = refused(worked, Take(1, "market"), "card_not_in_raft")
        assert error.message == "seat 0 kept market for its quay"
        refused(worked, Take(1, "sailor"), "card_not_in_raft")
        refused(worked, Take(1, "joker"), "unknown_card")
        refused(worked, Load(1, "own", 0), "wrong_phase")

    def test_score_piles_grow_raft_by_raft(self, worked: Game) -> None:
        worked.act(Launch(0, 4, "ace-knots"))
        worked.act(Take(1, "painter"))
        assert worked.state.piles[0] == ("market", "windfall")
        # seat 1 launches a three-card raft of Moons: ace-moons, author, journey
        game = dealt(quay1=["journey"], canal1=["ace-moons", "author"])
        turn(game)
        game.act(Load(1, "own", 2))
        game.act(Launch(1, 3, "author"))
        assert game.act(Take(0, "journey")) == [
            RaftCardTaken(0, "journey"),
            RaftScored(1, ("ace-moons",)),
        ]
        assert game.state.piles == ((), ("ace-moons",))


class TestEndAndScoring:
    def test_the_game_ends_when_the_canal_empties_with_the_bonus(self) -> None:
        game = empty_canal_in_one_turn()
        events = game.act(Take(1, "windfall"))
        assert events == [
            RaftCardTaken(1, "windfall"),
            RaftScored(0, tuple(KNOTS[1:9])),
            DealScored(1, (8 + 9, 0), (17, 0), 0),  # 8 in the pile, 9 left in seat 1's canal
        ]
        assert game.state.phase == "waiting_for_deal"
        assert game.state.emptied_by == 0 and game.state.totals == (17, 0)

    def test_the_cap_scores_score_piles_only(self) -> None:
        # Decision: after max_turns turns (both players' counted), piles only.
        game = dealt(canal0=["ace-moons", "author"], quay0=["journey"], max_turns=2)
        game.act(Load(0, "own", 2))
        game.act(Launch(0, 3, "ace-moons"))
        game.act(Take(1, "author"))
        assert game.state.turns == 1
        events = turn(game)
        assert events[-1] == DealScored(1, (1, 0), (1, 0), None)
        assert game.state.turns == 2 and game.state.phase == "waiting_for_deal"

    def test_an_emptied_canal_on_the_last_allowed_turn_still_earns_the_bonus(self) -> None:
        game = empty_canal_in_one_turn(max_turns=1)
        events = game.act(Take(1, "betrayal"))
        assert events[-1] == DealScored(1, (17, 0), (17, 0), 0)

    def test_max_turns_defaults_to_200(self) -> None:
        assert g.initial_state(table()).max_turns == 200
        assert g.initial_state(table(max_turns=7)).max_turns == 7


class TestMatch:
    def test_two_games_by_default(self) -> None:
        assert g.default_match(2) == MatchRules(target_score=None, max_deals=2)

    def test_the_loser_starts_the_next_game(self) -> None:
        game = empty_canal_in_one_turn()
        game.act(Take(1, "windfall"))  # seat 0 wins 17–0
        assert g.to_act(game.state) == (1,) and g.view(game.state, None)["dealer"] == 1
        quays, canals = piles()
        (started,) = game.act(Deal(quays, canals))
        assert started.starter == 1 and started.deal == 2
        assert g.to_act(game.state) == (1,)
        refused(game, Load(0, "own", 0), "not_your_turn")

    def test_after_a_tie_the_other_player_starts(self) -> None:
        game = dealt(max_turns=2, max_deals=3)
        turn(game)
        events = turn(game)
        assert events[-1] == DealScored(1, (0, 0), (0, 0), None)
        assert g.to_act(game.state) == (1,)
        (started,) = game.act(Deal())
        assert started.starter == 1
        turn(game)
        turn(game)
        assert g.to_act(game.state) == (0,)

    def test_the_match_ends_after_the_last_game(self) -> None:
        game = empty_canal_in_one_turn(max_deals=2, max_turns=20)
        game.act(Take(1, "windfall"))
        game.act(Deal())  # seeded; seat 1 starts
        for _ in range(100):
            if game.state.phase == "finished":
                break
            seat = g.to_act(game.state)[0]
            game.act(g.legal_actions(game.state, seat)[0])
        ended = game.log[-1]
        assert isinstance(ended, MatchEnded) and isinstance(game.log[-2], DealScored)
        totals = game.log[-2].totals
        assert ended.totals == totals
        assert ended.ranking == tuple(1 + sum(t > x for t in totals) for x in totals)
        assert g.view(game.state, None)["status"] == "finished"
        refused(game, Deal(), "match_finished")
        refused(game, Load(1, "own", 0), "match_finished")

    def test_nobody_acts_between_the_events_of_one_decision(self) -> None:
        """The engine's own steps (the automatic take, a raft's scoring, the game's
        scoring) show at intermediate versions as phases where nobody is to act."""
        game = empty_canal_in_one_turn()
        state = game.state
        phases = []
        for event in g.decide(state, Take(1, "windfall")):
            state = g.evolve(state, event)
            phases.append((state.phase, g.to_act(state), len(g.legal_actions(state, 1))))
        assert phases == [
            ("scoring_raft", (), 0),
            ("scoring_deal", (), 0),
            ("waiting_for_deal", (1,), 1),
        ]
        two = dealt(canal0=["ace-moons", "author"])
        two.act(Load(0, "own", 9))
        launched, _taken = g.decide(two.state, Launch(0, 2, "author"))
        middle = g.evolve(two.state, launched)
        assert (middle.phase, g.to_act(middle), list(g.legal_actions(middle, 1))) == (
            "taking",
            (),
            [],
        )

    def test_replaying_the_log_gives_the_live_state(self) -> None:
        game = empty_canal_in_one_turn()
        game.act(Take(1, "windfall"))
        game.act(Deal())
        turn(game, "opponent", 3)
        assert game.replayed() == game.state


class TestTurnOrder:
    def test_load_then_launch_then_the_other_player(self, worked: Game) -> None:
        refused(worked, Load(0, "own", 0), "wrong_phase")
        refused(worked, Take(1, "painter"), "wrong_phase")
        fresh = dealt()
        refused(fresh, Launch(0, 1), "wrong_phase")
        refused(fresh, Load(1, "own", 0), "not_your_turn")
        refused(fresh, Deal(), "wrong_phase")
        turn(fresh)
        refused(fresh, Load(0, "own", 0), "not_your_turn")
        assert g.to_act(fresh.state) == (1,)

    @pytest.mark.parametrize("seat", [2, -1, True, "0", None])
    def test_unknown_seats(self, seat: Any) -> None:
        refused(dealt(), Load(seat, "own", 0), "unknown_seat")

    def test_wrong_time_codes_are_the_409_ones(self) -> None:
        from domain.errors import WRONG_TIME_CODES

        assert {"wrong_phase", "match_finished"} <= WRONG_TIME_CODES


class TestOptions:
    def test_options_are_checked(self) -> None:
        g.check_options(table(max_turns=1, first_player=1))
        with pytest.raises(RuleViolation) as caught:
            g.check_options(table(max_rounds=3))
        assert caught.value.code == "unknown_option" and "max_rounds" in caught.value.message
        for bad in ({"max_turns": 0}, {"max_turns": "5"}, {"max_turns": True},
                    {"first_player": 2}, {"first_player": None}):  # fmt: skip
            with pytest.raises(RuleViolation) as caught:
                g.check_options(table(**bad))
            assert caught.value.code == "invalid_option", bad

    def test_first_dealer_must_be_a_seat(self) -> None:
        with pytest.raises(RuleViolation) as caught:
            g.initial_state(table(first_dealer=2))
        assert caught.value.code == "invalid_rules"

    def test_one_variant_two_players(self) -> None:
        t = table()
        with pytest.raises(RuleViolation) as caught:
            g.initial_state(t.__class__(**{**_fields(t), "variant": "solo"}))
        assert caught.value.code == "unknown_variant"
        with pytest.raises(RuleViolation) as caught:
            g.initial_state(t.__class__(**{**_fields(t), "seats": t.seats * 2}))
        assert caught.value.code == "wrong_player_count"


def _fields(t: Any) -> dict[str, Any]:
    return {f: getattr(t, f) for f in t.__slots__}


class TestBodies:
    @pytest.mark.parametrize(
        "body",
        [
            {"type": "deal"},
            {"type": "load", "seat": 0, "from": "own", "position": 3},
            {"type": "load", "seat": 1, "from": "opponent", "position": 0},
            {"type": "launch", "seat": 0, "count": 3, "keep": "author"},
            {"type": "launch", "seat": 1, "count": 1},
            {"type": "take", "seat": 1, "card": "mill"},
        ],
    )
    def test_api_bodies_round_trip(self, body: dict[str, Any]) -> None:
        assert g.body(g.parse(body)) == body

    def test_parse_names_fields(self) -> None:
        assert g.parse({"type": "load", "seat": 0, "from": "own", "position": 3}) == Load(
            0, "own", 3
        )
        for bad, code in [
            ({"type": "play", "seat": 0}, "unknown_action"),
            ({"type": "load", "seat": 0, "from": "own"}, "invalid_action"),
            ({"type": "take", "seat": 0, "card": "mill", "hand": "A"}, "invalid_action"),
        ]:
            with pytest.raises(RuleViolation) as caught:
                g.parse(bad)
            assert caught.value.code == code
        with pytest.raises(RuleViolation) as caught:
            g.parse({"type": "load", "seat": 0, "position": 1})
        assert "needs from" in caught.value.message

    def test_events_keep_the_rules_field_names_in_json(self) -> None:
        event = CargoLoaded(0, "own", "mill", 3)
        assert to_data(event) == {"seat": 0, "from": "own", "card": "mill", "position": 3}
        assert from_data(g.EVENT_TYPES["CargoLoaded"], to_data(event)) == event
        assert set(g.EVENT_TYPES) == {"DealStarted", "CargoLoaded", "RaftLaunched",
                                      "RaftCardTaken", "RaftScored", "DealScored"}  # fmt: skip


class TestHiddenInformation:
    def test_a_seat_never_sees_its_own_quays_top(self, worked: Game) -> None:
        top0, top1 = worked.state.quays[0][0], worked.state.quays[1][0]
        assert g.view(worked.state, 0)["quays"] == [
            {"size": 8, "top": None, "cards": None},
            {"size": 9, "top": top1, "cards": None},
        ]
        assert g.view(worked.state, 1)["quays"][0]["top"] == top0
        assert g.view(worked.state, 1)["quays"][1]["top"] is None
        assert [q["top"] for q in g.view(worked.state, None)["quays"]] == [None, None]
        assert [q["top"] for q in g.view(worked.state, ORGANISER)["quays"]] == [top0, top1]

    def test_a_card_loaded_from_the_own_quay_is_known_in_place(self) -> None:
        game = dealt(quay0=["mill"])
        game.act(Load(0, "own", 3))
        assert g.view(game.state, 1)["canals"][0] == [None] * 3 + ["mill"] + [None] * 6
        assert g.cards_of(game.state.known[0]) == ("mill",)
        game.act(Launch(0, 1))  # the front card leaves: mill moves up
        assert g.view(game.state, 1)["canals"][0] == [None] * 2 + ["mill"] + [None] * 6
        assert g.view(game.state, 1)["hands"][0] is None
        assert g.view(game.state, 0)["hands"][0] == list(game.state.canals[0])
        assert g.view(game.state, None)["canals"][0] == [None] * 9

    def test_a_card_loaded_from_the_opponents_quay_is_not(self) -> None:
        game = dealt(quay1=["sea"])
        game.act(Load(0, "opponent", 3))
        assert g.view(game.state, 1)["canals"][0] == [None] * 10
        assert g.view(game.state, 0)["canals"][0][3] == "sea"

    def test_the_log_is_redacted_the_same_way(self) -> None:
        game = dealt(quay0=["mill"], quay1=["sea", "bard"])
        game.act(Load(0, "opponent", 0))  # sea: seen by seat 0 only
        game.act(Launch(0, 1))
        game.act(Load(1, "own", 0))  # bard: from seat 1's quay, seen by seat 0
        opened = TableOpened.of(game.table)
        log = [opened, *game.log]
        for viewer, sea, bard in [(0, "sea", "bard"), (1, None, "bard"), (None, None, None)]:
            shown = g.visible_events(log, viewer)
            assert shown[0].seed is None, "the seed is secret until the match ends"
            started = shown[1]
            assert started.seed is None
            assert shown[2].card == sea and shown[4].card == bard
            assert shown[3] == log[3]  # launches are public
            if viewer is not None:
                own, other = viewer, 1 - viewer
                assert started.canals[own] == game.log[0].canals[own]
                assert started.canals[other] == (None,) * 9
                assert started.quays[own] == (None,) * 9
                seen = 3 if viewer == 0 else 1  # seat 1's quay lost sea and bard
                assert started.quays[other][:seen] == game.log[0].quays[other][:seen]
                assert started.quays[other][seen:] == (None,) * (9 - seen)
            else:
                assert started.quays == ((None,) * 9,) * 2
        assert g.visible_events(log, ORGANISER) == log

    def test_legal_actions_in_the_view(self, worked: Game) -> None:
        assert len(g.view(worked.state, 0)["legal_actions"]) == 10
        assert g.view(worked.state, 1)["legal_actions"] == []
        assert g.view(worked.state, None)["legal_actions"] == []
        assert g.view(worked.state, ORGANISER)["legal_actions"][0] == {
            "type": "launch",
            "seat": 0,
            "count": 1,
        }

    def test_a_scored_game_is_public(self) -> None:
        game = empty_canal_in_one_turn()
        game.act(Take(1, "windfall"))
        public = g.view(game.state, None)
        assert public["hands"][1] == list(game.state.canals[1])
        assert public["quays"][0]["top"] == game.state.quays[0][0]
        shown = g.visible_events([TableOpened.of(game.table), *game.log], None)
        assert shown[1] == game.log[0]._replace(seed=None)

    def test_the_view_has_the_common_fields(self, worked: Game) -> None:
        v = g.view(worked.state, 0)
        for key in ("game", "variant", "status", "phase", "deal", "dealer", "to_act", "hands",
                    "hand_sizes", "trick", "totals", "legal_actions", "ranking", "quays",
                    "canals", "score_piles", "turn", "launch"):  # fmt: skip
            assert key in v, key
        assert (v["game"], v["variant"], v["status"], v["phase"]) == (
            "oh-quay",
            "standard",
            "in_deal",
            "launching",
        )
        assert v["trick"] == {"leader": None, "cards": []}
        assert v["hand_sizes"] == [10, 9]
        worked.act(Launch(0, 3, "painter"))
        assert g.view(worked.state, 1)["launch"] == {
            "seat": 0,
            "cards": ["ace-knots", "painter", "market"],
            "kept": "painter",
            "taken": None,
            "awaiting": 1,
        }
