"""The Bottle Imp, rule by rule (``docs/rules/bottle-imp.md``): given / when / then."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.events import MatchEnded
from domain.games import bottle_imp as g
from domain.games.bottle_imp.cards import COINS, DECK, SUIT, SUIT_CARDS, coins, mask_of
from domain.games.bottle_imp.model import (
    CardPlayed,
    ChooseOpen,
    Deal,
    DealScored,
    DealStarted,
    Discard,
    Pass,
    PassesDelivered,
    Play,
    TrickCompleted,
)
from domain.shuffle import shuffle
from tests.domain.bottle_imp_builders import (
    Game,
    bright_house_prepared,
    lopaka_ready,
    play_cards,
    standard_ready,
    table,
)


def refused(game: Game, action: object, code: str) -> RuleViolation:
    """The action is refused with ``code`` and the state is unchanged."""
    before = game.state
    with pytest.raises(RuleViolation) as caught:
        g.decide(game.state, action)
    assert caught.value.code == code, caught.value.message
    assert game.state is before
    return caught.value


# The worked example's table: seat 2 holds no blue card.
WORKED_HANDS = [
    [32, 4, 6, 8, 1, 11, 14, 16],
    [24, 10, 13, 20, 2, 3, 21, 23],
    [15, 5, 7, 9, 12, 18, 26, 29],
    [17, 27, 30, 34, 22, 25, 28, 31],
]
WORKED_DEVIL = [33, 35, 36, 37]


@pytest.fixture
def worked() -> Game:
    return standard_ready(WORKED_HANDS, WORKED_DEVIL, dealer=0)


class TestDeck:
    def test_36_cards_in_three_suits_of_12_worth_42_coins_each(self) -> None:
        assert len(DECK) == 36 and 19 not in DECK
        assert [len(cards) for cards in SUIT_CARDS] == [12, 12, 12]
        assert [sum(COINS[c] for c in cards) for cards in SUIT_CARDS] == [42, 42, 42]
        assert coins(mask_of(DECK)) == 126

    def test_suits_and_coins_follow_the_table(self) -> None:
        assert (SUIT[1], COINS[1]) == (0, 1)  # yellow, 1 coin
        assert (SUIT[30], COINS[30]) == (1, 5)  # blue, 5 coins
        assert (SUIT[37], COINS[37]) == (2, 6)  # red, 6 coins

    @pytest.mark.parametrize("value", [19, 0, 38, "7", 7.0, True, None])
    def test_a_card_outside_the_deck_is_refused_by_name(self, value: object) -> None:
        game = standard_ready(WORKED_HANDS, WORKED_DEVIL)
        error = refused(game, Play(1, value), "unknown_card")  # type: ignore[arg-type]
        assert repr(value) in error.message or str(value) in error.message


class TestRule1Deal:
    @pytest.mark.parametrize("players,dealer", [(3, 0), (3, 2), (4, 0), (4, 3)])
    def test_seeded_deal_gives_card_i_to_the_seat_dealer_plus_1_plus_i(
        self, players: int, dealer: int
    ) -> None:
        game = Game(table("standard", players, seed="club-night", first_dealer=dealer))
        (started,) = game.act(Deal())
        deck = shuffle(DECK, "club-night/1")
        expected = [
            sorted(deck[i] for i in range(36) if (dealer + 1 + i) % players == s)
            for s in range(players)
        ]
        assert started == DealStarted(1, dealer, "club-night/1", tuple(map(tuple, expected)))
        assert all(len(h) == 36 // players for h in started.hands)

    def test_only_the_dealer_is_asked_to_deal(self) -> None:
        game = Game(table("standard", 4, first_dealer=2))
        assert g.to_act(game.state) == (2,)
        assert g.legal_actions(game.state, 2) == [Deal()]
        assert g.legal_actions(game.state, 1) == []

    def test_a_recorded_deal_is_taken_as_given(self) -> None:
        game = Game(table("standard", 3))
        hands = (DECK[:12], DECK[12:24], DECK[24:])
        (started,) = game.act(Deal(hands=hands))
        assert started.hands == hands and started.seed is None

    @pytest.mark.parametrize(
        "hands,code,words",
        [
            ((DECK[:12], DECK[12:24]), "invalid_deal", "3 hands"),
            ((DECK[:11], DECK[11:24], DECK[24:]), "invalid_deal", "seat 0 must get 12"),
            ((DECK[:12], DECK[12:24], (*DECK[24:35], 1)), "invalid_deal", "card 1 is dealt twice"),
            ((DECK[:12], DECK[12:24], (*DECK[24:35], 19)), "unknown_card", "19"),
            ((DECK[:12], DECK[12:24], (*DECK[24:35], 40)), "unknown_card", "40"),
        ],
    )
    def test_a_recorded_deal_must_be_exactly_the_deck(
        self, hands: tuple, code: str, words: str
    ) -> None:
        game = Game(table("standard", 3))
        error = refused(game, Deal(hands=hands), code)
        assert words in error.message


class TestRule2DevilsTrickAndPassing:
    def test_discard_and_pass_in_either_order_then_passes_are_delivered(self) -> None:
        game = Game(table("standard", 3, seed="r2"))
        (started,) = game.act(Deal())
        hands = started.hands
        game.act(Pass(0, left=hands[0][0], right=hands[0][1]))
        game.act(Discard(0, hands[0][2]))
        game.act(Discard(1, hands[1][0]))
        game.act(Pass(1, left=hands[1][1], right=hands[1][2]))
        game.act(Discard(2, hands[2][0]))
        assert game.state.phase == "preparing"
        assert g.to_act(game.state) == (2,)
        events = game.act(Pass(2, left=hands[2][1], right=hands[2][2]))
        # seat s receives the left pass of s-1 and the right pass of s+1
        assert events[-1] == PassesDelivered(
            ((hands[2][1], hands[1][2]), (hands[0][0], hands[2][2]), (hands[1][1], hands[0][1]))
        )
        assert game.state.phase == "playing"
        assert [h.bit_count() for h in game.state.hands] == [11, 11, 11]
        assert sorted(game.state.devil) == sorted([hands[0][2], hands[1][0], hands[2][0]])

    def test_four_players_keep_eight_cards(self, worked: Game) -> None:
        assert [h.bit_count() for h in worked.state.hands] == [8, 8, 8, 8]
        assert len(worked.state.devil) == 4

    def test_nothing_is_delivered_until_every_seat_has_done_both(self) -> None:
        game = Game(table("standard", 3, seed="r2"))
        (started,) = game.act(Deal())
        for s in range(3):
            events = game.act(Pass(s, left=started.hands[s][0], right=started.hands[s][1]))
            assert not any(isinstance(e, PassesDelivered) for e in events)
        assert game.state.phase == "preparing"
        assert not any(game.state.received)

    def test_each_action_once(self) -> None:
        game = Game(table("standard", 3, seed="r2"))
        (started,) = game.act(Deal())
        h = started.hands[0]
        game.act(Discard(0, h[0]))
        game.act(Pass(0, left=h[1], right=h[2]))
        refused(game, Discard(0, h[3]), "already_discarded")
        refused(game, Pass(0, left=h[3], right=h[4]), "already_passed")

    def test_three_different_dealt_cards(self) -> None:
        game = Game(table("standard", 3, seed="r2"))
        (started,) = game.act(Deal())
        h = started.hands[0]
        refused(game, Pass(0, left=h[0], right=h[0]), "same_card")
        game.act(Discard(0, h[0]))
        error = refused(game, Pass(0, left=h[0], right=h[1]), "card_not_in_hand")
        assert error.message == f"seat 0 does not hold {h[0]}"

    def test_a_pass_names_left_and_right(self) -> None:
        game = Game(table("standard", 3, seed="r2"))
        (started,) = game.act(Deal())
        refused(game, Pass(0, opponent=started.hands[0][0]), "invalid_pass")

    def test_no_play_before_preparing_is_done(self) -> None:
        game = Game(table("standard", 3, seed="r2"))
        (started,) = game.act(Deal())
        refused(game, Play(1, started.hands[1][0]), "wrong_phase")


class TestRule3Tricks:
    def test_the_dealers_left_leads_and_play_goes_clockwise(self, worked: Game) -> None:
        assert g.to_act(worked.state) == (1,)
        play_cards(worked, 24)
        assert g.to_act(worked.state) == (2,)

    def test_must_follow_suit_names_the_suit_and_the_card(self, worked: Game) -> None:
        play_cards(worked, 2)  # seat 1 leads yellow
        error = refused(worked, Play(2, 26), "must_follow_suit")
        assert error.message == "seat 2 holds yellow cards and must follow yellow; 26 is red"

    def test_without_the_suit_led_any_card_may_be_played(self, worked: Game) -> None:
        play_cards(worked, 24)  # blue; seat 2 holds none
        legal = {a.card for a in g.legal_actions(worked.state, 2)}
        assert legal == set(WORKED_HANDS[2])
        play_cards(worked, 29)

    def test_legal_plays_are_the_suit_led(self, worked: Game) -> None:
        play_cards(worked, 24, 15)
        assert {a.card for a in g.legal_actions(worked.state, 3)} == {17, 27, 30, 34}

    def test_only_the_seat_in_turn_plays(self, worked: Game) -> None:
        error = refused(worked, Play(2, 15), "not_your_turn")
        assert error.message == "it is seat 1's turn, not seat 2's"

    def test_a_card_not_in_hand(self, worked: Game) -> None:
        error = refused(worked, Play(1, 15), "card_not_in_hand")
        assert error.message == "seat 1 does not hold 15"
        assert "seat 2" not in error.message  # who holds it stays secret


class TestRule4WhoWins:
    def test_worked_example(self, worked: Game) -> None:
        events = play_cards(worked, 24, 15, 17, 32)
        assert events[-1] == TrickCompleted(1, (1, 2, 3, 0), (24, 15, 17, 32), 3, 17, 3)
        assert worked.state.price == 17 and worked.state.owner == 3
        assert g.to_act(worked.state) == (3,)

    def test_no_card_below_the_price_the_highest_wins_and_the_bottle_stays(
        self, worked: Game
    ) -> None:
        play_cards(worked, 24, 15, 17, 32)  # seat 3 owns the bottle at 17
        events = play_cards(worked, 31, 11, 21, 29)  # 11 is below 17 …
        assert events[-1].winner == 0 and events[-1].price == 11  # … so it buys
        events = play_cards(worked, 14, 23, 26, 28)  # seat 0 leads; nothing below 11
        assert events[-1] == TrickCompleted(3, (0, 1, 2, 3), (14, 23, 26, 28), 3, 11, 0)
        assert worked.state.owner == 0

    def test_the_owner_may_buy_the_bottle_again(self, worked: Game) -> None:
        play_cards(worked, 24, 15, 17, 32)  # seat 3 buys at 17
        events = play_cards(worked, 22, 1, 3, 12)  # 12 buys: seat 2
        assert (events[-1].winner, events[-1].price) == (2, 12)
        events = play_cards(worked, 9, 25, 6, 2)  # seat 2 leads 9: buys again
        assert (events[-1].winner, events[-1].price, events[-1].owner) == (2, 9, 2)


class TestRule5CardsWon:
    def test_the_buying_card_lies_under_the_bottle(self, worked: Game) -> None:
        play_cards(worked, 24, 15, 17, 32)
        assert worked.state.price == 17
        assert sorted(g.cards_of(worked.state.won[3])) == [15, 24, 32]

    def test_the_old_price_card_goes_to_the_previous_owner(self, worked: Game) -> None:
        play_cards(worked, 24, 15, 17, 32)
        play_cards(worked, 22, 1, 3, 12)
        assert sorted(g.cards_of(worked.state.won[3])) == [15, 17, 24, 32]
        assert sorted(g.cards_of(worked.state.won[2])) == [1, 3, 22]
        assert worked.state.price == 12


def lowest_legal_deal(game: Game) -> list:
    """Play the deal to its end, every seat playing its lowest legal card."""
    events: list = []
    while game.state.phase == "playing":
        seat = g.to_act(game.state)[0]
        events += game.act(min(g.legal_actions(game.state, seat), key=lambda a: a.card))
    return events


class TestRule6Scoring:
    def test_the_owner_loses_the_devils_trick_others_score_their_tricks(self, worked: Game) -> None:
        events = lowest_legal_deal(worked)
        scored = events[-1]
        assert isinstance(scored, DealScored)
        # Independent count: every card to its trick's winner (rule 5's note).
        won = [0, 0, 0, 0]
        for e in events:
            if isinstance(e, TrickCompleted):
                won[e.winner] += sum(COINS[c] for c in e.cards)
        devil = sum(COINS[c] for c in WORKED_DEVIL)
        expected = tuple(-devil if s == scored.owner else won[s] for s in range(4))
        assert scored.scores == expected
        assert scored.totals == expected
        assert scored.devil_trick == tuple(WORKED_DEVIL)
        assert sum(won) + devil == 126

    def test_scoring_a_hand_computed_deal(self) -> None:
        # The worked example's devil's trick is 33, 35, 36, 37: 5 + 5 + 6 + 6 coins.
        game = standard_ready(WORKED_HANDS, WORKED_DEVIL, dealer=0)
        events = lowest_legal_deal(game)
        scored = events[-1]
        assert scored.owner == game.state.owner
        assert scored.scores[scored.owner] == -sum(COINS[c] for c in WORKED_DEVIL) == -22


class TestRule7NextDeal:
    def test_the_dealer_moves_one_seat_clockwise(self, worked: Game) -> None:
        lowest_legal_deal(worked)
        assert worked.state.phase == "waiting_for_deal"
        assert worked.state.dealer == 1
        (started,) = worked.act(Deal())
        assert started.dealer == 1 and started.deal == 2
        assert g.to_act(worked.state) == (0, 1, 2, 3)


class TestMatch:
    def test_max_deals_ends_the_match_with_a_ranking(self) -> None:
        game = standard_ready(WORKED_HANDS, WORKED_DEVIL, target=None, max_deals=1)
        events = lowest_legal_deal(game)
        ended = events[-1]
        assert isinstance(ended, MatchEnded)
        assert game.state.phase == "finished"
        totals = events[-2].totals
        assert ended.totals == totals
        assert ended.ranking == tuple(1 + sum(t > x for t in totals) for x in totals)
        refused(game, Deal(), "match_finished")

    def test_a_target_ends_the_match_after_the_deal_that_reaches_it(self) -> None:
        game = standard_ready(WORKED_HANDS, WORKED_DEVIL, target=10)
        events = lowest_legal_deal(game)
        assert isinstance(events[-1], MatchEnded)
        assert max(events[-1].totals) >= 10

    def test_below_the_target_the_match_goes_on(self) -> None:
        game = standard_ready(WORKED_HANDS, WORKED_DEVIL, target=500)
        events = lowest_legal_deal(game)
        assert isinstance(events[-1], DealScored)
        assert game.state.phase == "waiting_for_deal"


# Lopaka's table: seat 1 (non-dealer) leads, then Lopaka (seat 2), then the dealer (seat 0).
LOPAKA_HANDS = [
    [15, 22, 25, 28, 13, 17, 24, 27, 32, 26, 31],
    [2, 3, 5, 7, 9, 4, 8, 10, 14, 21, 23],
    [1, 12, 18, 6, 20, 30, 11, 16, 29, 33, 37],
]
LOPAKA_DEVIL = [34, 35, 36]


class TestLopaka:
    def test_deal_non_dealer_lopaka_dealer_then_the_devils_trick(self) -> None:
        game = Game(table("lopaka", 2, seed="lp", first_dealer=1))
        (started,) = game.act(Deal())
        deck = shuffle(DECK, "lp/1")
        assert started.hands[0] == tuple(sorted(deck[0:33:3]))  # non-dealer
        assert started.hands[2] == tuple(sorted(deck[1:33:3]))  # Lopaka
        assert started.hands[1] == tuple(sorted(deck[2:33:3]))  # dealer
        assert started.devil == tuple(sorted(deck[33:]))
        assert g.to_act(game.state) == (0, 1)

    def test_nobody_discards_and_lopaka_neither_gives_nor_receives(self) -> None:
        game = Game(table("lopaka", 2, seed="lp"))
        (started,) = game.act(Deal())
        refused(game, Discard(0, started.hands[0][0]), "not_in_this_variant")
        refused(game, Pass(2, opponent=started.hands[2][0]), "lopaka_plays_itself")
        game.act(Pass(0, opponent=started.hands[0][0]))
        assert game.state.phase == "preparing"
        events = game.act(Pass(1, opponent=started.hands[1][0]))
        assert events[-1] == PassesDelivered(((started.hands[1][0],), (started.hands[0][0],), ()))
        assert game.state.hands[2] == mask_of(started.hands[2])

    def test_lopakas_hand_is_public_after_the_exchange(self) -> None:
        game = lopaka_ready(LOPAKA_HANDS, LOPAKA_DEVIL)
        assert g.view(game.state, None)["hands"][2] == sorted(LOPAKA_HANDS[2])
        assert g.view(game.state, None)["hands"][0] is None

    def test_plays_the_highest_card_that_would_win(self) -> None:
        game = lopaka_ready(LOPAKA_HANDS, LOPAKA_DEVIL)
        events = play_cards(game, 9)  # seat 1 leads yellow 9 below 19
        # 12 and 18 would win (highest below the price); Lopaka plays the highest
        assert events == [CardPlayed(1, 9), CardPlayed(2, 18)]

    def test_leads_its_highest_card_after_winning(self) -> None:
        game = lopaka_ready(LOPAKA_HANDS, LOPAKA_DEVIL)
        play_cards(game, 9)
        events = play_cards(game, 15)  # dealer under: Lopaka's 18 wins and buys
        assert events[1] == TrickCompleted(1, (1, 2, 0), (9, 18, 15), 2, 18, 2)
        assert events[2] == CardPlayed(2, 37)
        assert g.to_act(game.state) == (0,)

    def test_plays_its_lowest_legal_card_when_it_cannot_win(self) -> None:
        game = lopaka_ready(LOPAKA_HANDS, LOPAKA_DEVIL)
        play_cards(game, 9, 15, 31, 14)  # seat 1 buys the bottle with 14
        assert (game.state.owner, game.state.price) == (1, 14)
        events = play_cards(game, 10)  # blue 10 below 14: Lopaka's 6 cannot win
        assert events[-1] == CardPlayed(2, 6)  # lowest of its blues 6, 20, 30

    def test_lopaka_is_not_ranked_and_its_total_does_not_reach_the_target(self) -> None:
        game = lopaka_ready(LOPAKA_HANDS, LOPAKA_DEVIL, target=None, max_deals=1)
        events = lowest_legal_deal(game)
        assert isinstance(events[-1], MatchEnded)
        assert events[-1].ranking[2] is None
        assert len(events[-1].totals) == 3

    def test_the_target_counts_only_the_two_players(self) -> None:
        t = table("lopaka", 2, target=10)
        assert not t.match.is_over((5, 9, 80), 1, (0, 1))
        assert t.match.is_over((5, 10, 80), 1, (0, 1))


# Bright House piles per slot (seat 0 A, seat 0 B, seat 1 A, seat 1 B); seat 0's B has
# no yellow.
BH_PILES = [
    [1, 2, 3, 4, 6, 11, 14, 16],
    [8, 10, 13, 17, 21, 23, 26, 29],
    [5, 7, 9, 12, 20, 24, 31, 33],
    [15, 18, 27, 30, 32, 34, 35, 36],
]
BH_DEVIL = [22, 25, 28, 37]


class TestBrightHouse:
    def test_deal_two_nine_card_piles_each(self) -> None:
        game = Game(table("bright-house", 2, seed="bh", first_dealer=0))
        (started,) = game.act(Deal())
        deck = shuffle(DECK, "bh/1")
        assert started.hands[1] == {"A": tuple(sorted(deck[0:9])), "B": tuple(sorted(deck[18:27]))}
        assert started.hands[0] == {"A": tuple(sorted(deck[9:18])), "B": tuple(sorted(deck[27:]))}

    def test_each_pile_lays_one_and_passes_one_into_the_same_pile(self) -> None:
        game = Game(table("bright-house", 2, seed="bh"))
        (started,) = game.act(Deal())
        a0, a1 = started.hands[0]["A"], started.hands[1]["A"]
        game.act(Pass(0, hand="A", card=a0[0]))
        events = game.act(Pass(1, hand="A", card=a1[0]))
        assert events[-1] == PassesDelivered(((a1[0],), (a0[0],)), hand="A")
        assert game.state.hands[0] & mask_of([a1[0]])  # seat 0's pile A
        # a received card is not a dealt card: it cannot go to the devil's trick
        refused(game, Discard(0, a1[0], "A"), "card_was_received")
        refused(game, Discard(0, a0[1], "B"), "card_not_in_hand")
        refused(game, Discard(0, a0[1]), "unknown_hand")

    def test_piles_end_with_eight_cards_and_the_devil_with_four(self) -> None:
        game = bright_house_prepared(BH_PILES, BH_DEVIL)
        assert [h.bit_count() for h in game.state.hands] == [8, 8, 8, 8]
        assert sorted(game.state.devil) == BH_DEVIL

    def test_open_hands_are_public_once_chosen(self) -> None:
        game = bright_house_prepared(BH_PILES, BH_DEVIL)
        refused(game, Play(1, 9), "wrong_phase")
        game.act(ChooseOpen(1, "A"))
        public = g.view(game.state, None)["hands"]
        assert public == [{"A": None, "B": None}, {"A": sorted(BH_PILES[2]), "B": None}]
        refused(game, ChooseOpen(1, "B"), "already_chosen")
        game.act(ChooseOpen(0, "B"))
        assert game.state.phase == "playing"

    def test_four_card_tricks_follow_suit_per_hand(self) -> None:
        game = bright_house_prepared(BH_PILES, BH_DEVIL)
        game.act(ChooseOpen(1, "A"))
        game.act(ChooseOpen(0, "B"))
        assert g.to_act(game.state) == (1,)  # the non-dealer leads from the open hand
        refused(game, Play(1, 15), "wrong_hand")  # 15 is in seat 1's hidden pile
        game.act(Play(1, 9))  # yellow from open A
        # seat 0's open B holds no yellow: any card, though its pile A holds yellow
        assert {a.card for a in g.legal_actions(game.state, 0)} == set(BH_PILES[1])
        error = refused(game, Play(0, 1), "wrong_hand")
        assert "pile A" in error.message
        game.act(Play(0, 29))
        error = refused(game, Play(1, 27), "must_follow_suit")
        assert (
            error.message == "seat 1's pile B holds yellow cards and must follow yellow; 27 is blue"
        )
        game.act(Play(1, 15))
        events = game.act(Play(0, 3))
        assert events[-1] == TrickCompleted(1, (1, 0, 1, 0), (9, 29, 15, 3), 1, 15, 1)
        assert g.to_act(game.state) == (1,)

    def test_a_whole_deal_scores_like_the_standard_game(self) -> None:
        game = bright_house_prepared(BH_PILES, BH_DEVIL, target=None, max_deals=1)
        game.act(ChooseOpen(1, "A"))
        game.act(ChooseOpen(0, "B"))
        events = lowest_legal_deal(game)
        scored, ended = events[-2], events[-1]
        assert isinstance(scored, DealScored) and isinstance(ended, MatchEnded)
        assert scored.scores[scored.owner] == -sum(COINS[c] for c in BH_DEVIL)
        assert sum(1 for e in events if isinstance(e, TrickCompleted)) == 8


class TestReplay:
    def test_replaying_the_log_gives_the_live_state(self, worked: Game) -> None:
        lowest_legal_deal(worked)
        assert worked.replayed() == worked.state

    def test_the_same_seed_deals_the_same_cards(self) -> None:
        one, two = Game(table(seed="same")), Game(table(seed="same"))
        assert one.act(Deal()) == two.act(Deal())
        assert Game(table(seed="other")).act(Deal()) != one.log
