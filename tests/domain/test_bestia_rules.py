"""Bestia, rule by rule (``docs/rules/bestia.md``): given / when / then.

Positions come from recorded deals (``bestia_builders.recorded``) through the real
``decide``/``evolve``. In the 3-player tables below the dealer is seat 0, so seat 2 (the
dealer's right) declares, exchanges and leads first, then seat 1, then seat 0.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import pytest

from domain.errors import RuleViolation
from domain.events import MatchEnded, TableOpened
from domain.games import bestia as g
from domain.games.bestia.cards import NAMES
from domain.games.bestia.model import (
    CardPlayed,
    CardsExchanged,
    Deal,
    DealSettled,
    DealStarted,
    Declare,
    Declared,
    Exchange,
    MoscaWon,
    Play,
    TrickCompleted,
)
from domain.match import MatchRules
from domain.shuffle import shuffle
from domain.table import ORGANISER
from tests.domain.bestia_builders import (
    Game,
    declare,
    exchange,
    legal_cards,
    play_cards,
    recorded,
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


def canonical(cards: Any) -> tuple[str, ...]:
    return tuple(sorted(cards, key=NAMES.index))


def ante(seats: list[int], chips: int = 2) -> list[dict[str, Any]]:
    return [{"from": s, "to": "pot", "chips": chips, "reason": "ante"} for s in seats]


def line(frm: Any, to: Any, chips: int, reason: str) -> dict[str, Any]:
    return {"from": frm, "to": to, "chips": chips, "reason": reason}


# The worked example (3 players, defaults, trump hearts): seat 2 leads KS.
WORKED = [
    ["8H", "10H", "QC", "9C", "7D"],  # seat 0, the dealer: the muestra 10H
    ["7S", "AS", "9H", "7C", "8C"],
    ["KS", "8S", "KD", "QD", "AC"],
]

# Settlement deals (trump hearts, dealer 0). ONE_BESTIA: seat 2 takes three tricks,
# seat 0 two, seat 1 none. CAPOT: seat 2 takes all five.
ONE_BESTIA = [
    ["10H", "AS", "KS", "AC", "KC"],
    ["7C", "8C", "9C", "7D", "8D"],
    ["AH", "KH", "QH", "7S", "8S"],
]
ONE_BESTIA_PLAY = ["AH", "7D", "10H", "KH", "8D", "KC", "QH", "7C", "KS", "7S", "8C", "AS",
                   "AC", "8S", "9C"]  # fmt: skip
CAPOT = [
    ["10H", "AC", "KC", "AD", "KD"],
    ["7C", "8C", "9C", "7D", "8D"],
    ["AH", "KH", "QH", "AS", "KS"],
]
CAPOT_PLAY = ["AH", "7D", "10H", "KH", "8D", "AD", "QH", "7C", "KD", "AS", "8C", "KC", "KS",
              "9C", "AC"]  # fmt: skip


def played_out(hands: list[list[str]], plays: list[str], **kw: Any) -> tuple[Game, DealSettled]:
    game = recorded(hands, hands[0][0], **kw)
    events = play_cards(game, *plays)
    settled = next(e for e in events if isinstance(e, DealSettled))
    return game, settled


def first_legal_deal(game: Game) -> list[Any]:
    """Play the deal out, every seat playing its first legal card."""
    events: list[Any] = []
    while game.state.phase == "playing":
        seat = game.to_act()
        events += game.act(g.legal_actions(game.state, seat)[0])
    return events


class TestWorkedExample:
    def test_follow_and_beat_then_trump_with_either_heart(self) -> None:
        game = recorded(WORKED, "10H")
        assert g.view(game.state)["trump"] == "H" and g.to_act(game.state) == (2,)  # seat 2 leads
        play_cards(game, "KS")
        assert legal_cards(game) == {"AS"}  # seat 1: follow spades and beat the king
        error = refused(game, Play(1, "7S"), "must_beat")
        assert "KS" in error.message
        play_cards(game, "AS")
        assert legal_cards(game) == {"8H", "10H"}  # seat 0: no spade, so trump
        error = refused(game, Play(0, "QC"), "must_trump")
        assert "QC" in error.message
        events = play_cards(game, "8H")
        assert events == [
            CardPlayed(0, "8H"),
            TrickCompleted(1, (2, 1, 0), ("KS", "AS", "8H"), 0),
        ]
        assert g.to_act(game.state) == (0,)  # the winner leads the next trick


class TestDeck:
    @pytest.mark.parametrize(("players", "size"), [(3, 32), (4, 36), (5, 40), (6, 44), (7, 48),
                                                   (8, 52)])  # fmt: skip
    def test_the_short_deck_adds_a_rank_per_player_beyond_three(
        self, players: int, size: int
    ) -> None:
        game = Game(table(players))
        (started,) = game.act(Deal())
        assert len(game.state.rules.deck) == size
        dealt = [c for h in started.hands for c in h]
        assert len(dealt) == 5 * players
        assert len(set(dealt) | set(started.stock)) == size
        ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
        in_use = ranks[ranks.index("7") - (players - 3) :]  # A down to 7, one more per player
        assert {c[:-1] for c in dealt + list(started.stock)} == set(in_use)

    @pytest.mark.parametrize("players", [3, 5, 8])
    def test_the_full_deck_has_52_cards(self, players: int) -> None:
        game = Game(table(players, options={"deck": "full"}))
        (started,) = game.act(Deal())
        assert len(game.state.rules.deck) == 52
        assert len({c for h in started.hands for c in h} | set(started.stock)) == 52

    def test_canonical_order_is_suits_c_d_h_s_then_ranks_up_to_the_ace(self) -> None:
        short = [NAMES[c] for c in g.initial_state(table(3)).rules.deck]
        assert short[:9] == ["7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "7D"]
        assert short[-1] == "AS" and len(short) == 32
        full = [NAMES[c] for c in g.initial_state(table(3, options={"deck": "full"})).rules.deck]
        assert full[:3] == ["2C", "3C", "4C"] and full[13] == "2D" and full[-1] == "AS"

    @pytest.mark.parametrize("value", ["6H", "2C", "1H", "10X", "jc", "", 7, None, ["AS"]])
    def test_a_card_outside_the_deck_in_use_is_refused_by_name(self, value: object) -> None:
        game = recorded(WORKED, "10H")
        error = refused(game, Play(2, value), "unknown_card")  # type: ignore[arg-type]
        assert repr(value) in error.message or str(value) in error.message

    def test_six_of_hearts_is_a_card_at_four_players(self) -> None:
        hands = [["6H", "AS", "KS", "AC", "KC"], ["7C", "8C", "9C", "7D", "8D"],
                 ["AH", "KH", "QH", "7S", "8S"], ["6C", "6D", "9D", "10D", "JD"]]  # fmt: skip
        game = recorded(hands, "6H")
        assert game.state.phase == "playing"


class TestRule2Deal:
    @pytest.mark.parametrize(("players", "dealer"), [(3, 0), (3, 2), (5, 2), (8, 7)])
    def test_seeded_deal_one_at_a_time_from_the_dealers_right_the_last_card_face_up(
        self, players: int, dealer: int
    ) -> None:
        game = Game(table(players, seed="club-night", first_dealer=dealer))
        (started,) = game.act(Deal())
        deck = shuffle([NAMES[c] for c in game.state.rules.deck], "club-night/1")
        hands: list[list[str]] = [[] for _ in range(players)]
        for i in range(5 * players):
            hands[(dealer - 1 - i) % players].append(deck[i])  # anticlockwise from the right
        muestra = deck[5 * players - 1]  # the dealer's last card
        assert started == DealStarted(
            deal=1,
            dealer=dealer,
            trump=muestra[-1],
            muestra=muestra,
            hands=tuple(canonical(h) for h in hands),
            ante=2,
            stock=tuple(deck[5 * players :]),
            seed="club-night/1",
        )
        assert muestra in started.hands[dealer]

    def test_a_jack_of_clubs_muestra_makes_clubs_trump(self) -> None:
        hands = [["JC", "AS", "KS", "AC", "KC"], ["7C", "8C", "9C", "7D", "8D"],
                 ["AH", "KH", "QH", "7S", "8S"]]  # fmt: skip
        game = Game(table(3))
        (started,) = game.act(Deal(hands=tuple(map(tuple, hands)), muestra="JC"))
        assert started.trump == "C"
        assert g.view(game.state)["trump"] == "C"

    def test_only_the_dealer_is_asked_to_deal(self) -> None:
        game = Game(table(4, first_dealer=2))
        assert g.to_act(game.state) == (2,)
        assert list(g.legal_actions(game.state, 2)) == [Deal()]
        assert list(g.legal_actions(game.state, 1)) == []

    def test_a_recorded_deal_is_taken_as_given_with_an_unseen_stock(self) -> None:
        game = Game(table(3))
        (started,) = game.act(Deal(hands=tuple(map(tuple, WORKED)), muestra="10H"))
        assert started == DealStarted(1, 0, "H", "10H", tuple(canonical(h) for h in WORKED), 2)
        assert started.stock is None and started.seed is None
        assert g.view(game.state)["stock_size"] == 32 - 15

    @pytest.mark.parametrize(
        ("hands", "muestra", "code", "words"),
        [
            (WORKED[:2], "10H", "invalid_deal", "3 hands"),
            ([WORKED[0][:4], WORKED[1], WORKED[2]], "10H", "invalid_deal", "seat 0 must get 5"),
            ([WORKED[0], WORKED[1], [*WORKED[2][:4], "8H"]], "10H", "invalid_deal",
             "8H is dealt twice"),
            ([WORKED[0], WORKED[1], [*WORKED[2][:4], "6H"]], "10H", "unknown_card", "6H"),
            ([WORKED[0], WORKED[1], [*WORKED[2][:4], 14]], "10H", "unknown_card", "14"),
            (WORKED, "KS", "invalid_deal", "the muestra KS must be a card of the dealer's"),
            (WORKED, None, "invalid_deal", "names the muestra"),
            (WORKED, "6H", "unknown_card", "6H"),
        ],
    )  # fmt: skip
    def test_a_recorded_deal_must_be_five_distinct_cards_each_and_the_dealers_muestra(
        self, hands: list, muestra: Any, code: str, words: str
    ) -> None:
        game = Game(table(3))
        error = refused(game, Deal(hands=tuple(map(tuple, hands)), muestra=muestra), code)
        assert words in error.message

    def test_a_seeded_deal_turns_its_own_muestra(self) -> None:
        refused(Game(table(3)), Deal(muestra="AS"), "invalid_deal")

    def test_without_a_seed_the_deal_must_be_recorded(self) -> None:
        refused(Game(table(3, seed=None)), Deal(), "no_seed")


class TestRule1Ante:
    def test_every_player_pays_the_ante_into_the_pot_when_the_deal_starts(self) -> None:
        game = Game(table(4, options={"ante": 3}))
        (started,) = game.act(Deal())
        assert started.ante == 3
        assert game.state.balances == (-3, -3, -3, -3) and game.state.pot == 12

    def test_the_pot_carries_over_from_deal_to_deal(self) -> None:
        game = Game(table(3))
        game.act(Deal())
        declare(game, {0: "pass", 1: "pass", 2: "pass"})  # void: the pot stays
        game.act(Deal())
        assert game.state.pot == 12 and game.state.balances == (-4, -4, -4)

    def test_no_ante_no_ante_lines(self) -> None:
        game = Game(table(3, options={"ante": 0}))
        game.act(Deal())
        events = declare(game, {0: "pass", 1: "pass", 2: "pass"})
        assert events[-1] == DealSettled(1, (), (0, 0, 0), 0, "void")


class TestRule3Declaring:
    def test_from_the_dealers_right_anticlockwise_the_dealer_last(self) -> None:
        game = Game(table(4, first_dealer=1))
        game.act(Deal())
        order = []
        while game.state.phase == "declaring":
            order.append(game.to_act())
            assert set(g.legal_actions(game.state, order[-1])) == {
                Declare(order[-1], "play"), Declare(order[-1], "pass")}  # fmt: skip
            game.act(Declare(order[-1], "play"))
        assert order == [0, 3, 2, 1]

    def test_in_turn_and_only_play_or_pass(self) -> None:
        game = Game(table(3))
        game.act(Deal())
        error = refused(game, Declare(0, "play"), "not_your_turn")
        assert error.message == "it is seat 2's turn to declare, not 0's"
        refused(game, Declare(2, "fold"), "invalid_call")
        refused(game, Declare(3, "play"), "unknown_seat")

    def test_everyone_passes_the_deal_is_void_and_the_pot_stays(self) -> None:
        game = Game(table(3))
        game.act(Deal())
        events = declare(game, {0: "pass", 1: "pass", 2: "pass"})
        assert events[-1] == DealSettled(1, tuple(ante([2, 1, 0])), (-2, -2, -2), 6, "void")
        assert game.state.phase == "waiting_for_deal" and game.state.dealer == 2

    def test_exactly_one_plays_and_takes_the_pot_uncontested(self) -> None:
        game = Game(table(3))
        game.act(Deal())
        events = declare(game, {2: "pass", 1: "play", 0: "pass"})
        assert [type(e) for e in events] == [Declared, Declared, Declared, DealSettled]
        settled = events[-1]
        assert settled.payments == (*ante([2, 1, 0]), line("pot", 1, 6, "uncontested"))
        assert (settled.balances, settled.pot, settled.outcome) == ((-2, 4, -2), 0, "uncontested")

    def test_the_dealer_playing_alone_after_everyone_passed_takes_the_pot(self) -> None:
        # Decision: "the dealer may always play" is the dealer's right, not a duty; alone,
        # the dealer takes the pot uncontested like any sole player.
        game = Game(table(3))
        game.act(Deal())
        events = declare(game, {2: "pass", 1: "pass", 0: "play"})
        assert events[-1].payments[-1] == line("pot", 0, 6, "uncontested")

    def test_a_passer_lays_the_hand_aside_and_is_out_of_the_deal(self) -> None:
        game = Game(table(4))
        game.act(Deal())
        declare(game, {2: "pass"})
        assert game.state.phase == "exchanging" and game.state.active == (3, 1, 0)
        assert game.state.hands[2] == 0 and game.state.laid_aside.bit_count() == 5
        v = g.view(game.state, 2)
        assert v["hand_sizes"][2] == 0 and v["calls"] == ["play", "play", "pass", "play"]
        exchange(game)
        refused(game, Play(2, "AS"), "not_your_turn")


class TestRule4Exchange:
    def test_from_the_dealers_right_players_in_only(self) -> None:
        game = Game(table(4))
        game.act(Deal())
        declare(game, {2: "pass"})
        order = []
        while game.state.phase == "exchanging":
            order.append(game.to_act())
            game.act(Exchange(order[-1], ()))
        assert order == [3, 1, 0]

    @pytest.mark.parametrize(("limit", "count"), [(4, 31), (5, 32), (2, 16), (1, 6)])
    def test_every_discard_up_to_max_exchange_is_legal(self, limit: int, count: int) -> None:
        game = Game(table(3, options={"max_exchange": limit}))
        game.act(Deal())
        declare(game)
        legal = g.legal_actions(game.state, 2)
        assert len(legal) == count and legal[0] == Exchange(2, ())
        assert all(len(a.discard) <= limit for a in legal)  # type: ignore[union-attr]
        assert len({a.discard for a in legal}) == count  # type: ignore[union-attr]

    def test_more_than_max_exchange_is_refused(self) -> None:
        game = Game(table(3))
        (started,) = game.act(Deal())
        declare(game)
        error = refused(game, Exchange(2, started.hands[2]), "too_many_cards")
        assert "at most 4" in error.message

    def test_max_exchange_zero_goes_straight_to_the_tricks(self) -> None:
        game = Game(table(3, options={"max_exchange": 0}))
        game.act(Deal(hands=tuple(map(tuple, WORKED)), muestra="10H"))
        declare(game)
        assert game.state.phase == "playing" and g.to_act(game.state) == (2,)

    def test_seeded_draws_come_from_the_top_of_the_stock(self) -> None:
        game = Game(table(3, seed="draws"))
        (started,) = game.act(Deal())
        declare(game)
        h = started.hands
        events = exchange(game, {2: h[2][:2], 1: (), 0: h[0][:3]})
        exchanged = [e for e in events if isinstance(e, CardsExchanged)]
        assert exchanged == [
            CardsExchanged(2, h[2][:2], started.stock[:2]),
            CardsExchanged(1, (), ()),
            CardsExchanged(0, h[0][:3], started.stock[2:5]),
        ]
        assert set(g.cards_of(game.state.hands[0])) == set(h[0][3:]) | set(started.stock[2:5])
        assert game.state.stock == started.stock[5:]

    def test_the_dealer_may_exchange_the_muestra_and_the_trump_stays(self) -> None:
        game = Game(table(3, seed="muestra"))
        (started,) = game.act(Deal())
        declare(game)
        exchange(game, {0: (started.muestra,)})
        assert started.muestra not in g.cards_of(game.state.hands[0])
        assert g.view(game.state)["trump"] == started.trump
        v = g.view(game.state, 1)
        assert (v["trump"], v["muestra"]) == (started.trump, started.muestra)

    def test_an_empty_stock_is_renewed_from_the_laid_aside_cards_with_the_restock_seed(
        self,
    ) -> None:
        game = Game(table(8, seed="restock", options={"max_exchange": 5}))
        (started,) = game.act(Deal())
        declare(game)
        hands, stock = started.hands, started.stock
        assert len(stock) == 12
        ring = [7, 6, 5, 4, 3]
        events = [e for s in ring for e in game.act(Exchange(s, hands[s]))]
        x7, x6, x5, x4, x3 = (e for e in events if isinstance(e, CardsExchanged))
        assert x7.drawn == stock[:5] and x6.drawn == stock[5:10]
        # Seat 5 draws the stock's last two, then from the laid-aside cards (seats 7 and
        # 6's discards, never its own), shuffled in canonical order with ".../restock".
        restock = shuffle(canonical(hands[7] + hands[6]), "restock/1/restock")
        assert x5.restock == tuple(restock) and x5.drawn == (*stock[10:], *restock[:3])
        assert not set(x5.restock) & set(hands[5])
        assert x4.restock is None and x4.drawn == tuple(restock[3:8])
        # Seat 3: the new stock's last two, then a second restock ("/restock2") of what
        # was laid aside since: seats 5 and 4's discards.
        restock2 = shuffle(canonical(hands[5] + hands[4]), "restock/1/restock2")
        assert x3.restock == tuple(restock2) and x3.drawn == (*restock[8:], *restock2[:3])
        assert game.state.restocks == 2

    def test_a_seeded_deal_draws_by_itself(self) -> None:
        game = Game(table(3))
        (started,) = game.act(Deal())
        declare(game)
        refused(game, Exchange(2, started.hands[2][:1], ("AS",)), "invalid_exchange")

    def test_the_discard_is_of_distinct_held_cards(self) -> None:
        game = Game(table(3))
        (started,) = game.act(Deal())
        declare(game)
        own = started.hands[2][0]
        refused(game, Exchange(2, (own, own)), "invalid_exchange")
        foreign = started.hands[1][0]
        error = refused(game, Exchange(2, (foreign,)), "card_not_in_hand")
        assert error.message == f"seat 2 does not hold {foreign}"
        refused(game, Exchange(1, ()), "not_your_turn")


# Eight players, full deck, recorded: seat s holds the canonical cards s, s+8, …, s+32;
# the stock is the last twelve (2S … AS minus the dealt ones).
FULL = [NAMES[i] for i in range(52)]
EIGHT = [[FULL[s + 8 * k] for k in range(5)] for s in range(8)]
EIGHT_STOCK = FULL[40:]


class TestRule4RecordedExchange:
    def start(self, calls: dict[int, str] | None = None) -> Game:
        game = Game(table(8, options={"deck": "full"}))
        game.act(Deal(hands=tuple(map(tuple, EIGHT)), muestra=EIGHT[0][0]))
        declare(game, calls)
        return game

    def test_the_drawn_cards_are_named(self) -> None:
        game = self.start()
        refused(game, Exchange(7, (EIGHT[7][0],)), "invalid_exchange")
        refused(game, Exchange(7, (EIGHT[7][0],), ()), "invalid_exchange")
        refused(game, Exchange(7, (EIGHT[7][0],), ("1S",)), "unknown_card")
        game.act(Exchange(7, (EIGHT[7][0],), (EIGHT_STOCK[5],)))  # any unseen stock card
        assert EIGHT_STOCK[5] in g.cards_of(game.state.hands[7])

    def test_from_the_stock_while_it_lasts_then_the_laid_aside_cards(self) -> None:
        game = self.start({7: "pass"})  # seat 7's hand is laid aside
        error = refused(game, Exchange(6, (EIGHT[6][0],), (EIGHT[7][0],)), "card_not_available")
        assert "stock" in error.message
        for seat, k in ((6, 4), (5, 4), (4, 4)):  # twelve cards: the stock is empty
            stock = list(game.state.stock)
            game.act(Exchange(seat, tuple(EIGHT[seat][:k]), tuple(stock[:k])))
        assert game.state.stock == ()
        refused(game, Exchange(3, (EIGHT[3][0],), (EIGHT[3][0],)), "card_not_available")
        refused(game, Exchange(3, (EIGHT[3][0],), (EIGHT[2][0],)), "card_not_available")
        game.act(Exchange(3, (EIGHT[3][0],), (EIGHT[7][0],)))  # a passer's card
        game.act(Exchange(2, (EIGHT[2][0],), (EIGHT[6][0],)))  # an earlier discard
        assert EIGHT[3][0] in g.cards_of(game.state.laid_aside)
        assert EIGHT[6][0] in g.cards_of(game.state.hands[2])

    def test_legal_actions_offer_only_the_empty_exchange(self) -> None:
        # Decision: listing draws would show a seat which cards are in the unseen stock.
        game = self.start()
        assert list(g.legal_actions(game.state, 7)) == [Exchange(7, (), ())]


class TestRule5Mosca:
    def test_five_of_a_suit_wins_the_pot_at_once(self) -> None:
        hands = [["10H", "JC", "KC", "AD", "KD"], ["AS", "KS", "QS", "JS", "10S"],
                 ["AH", "KH", "QH", "7C", "8C"]]  # fmt: skip
        game = Game(table(3))
        game.act(Deal(hands=tuple(map(tuple, hands)), muestra="10H"))
        declare(game)
        events = exchange(game)
        assert events[-2:] == [
            MoscaWon((1,), (("10S", "JS", "QS", "KS", "AS"),)),
            DealSettled(1, (*ante([2, 1, 0]), line("pot", 1, 6, "mosca")), (-2, 4, -2), 0,
                        "mosca"),
        ]  # fmt: skip
        assert game.state.phase == "waiting_for_deal"  # no tricks, no bestia, no pánfilo

    def test_a_mosca_made_by_the_exchange_counts(self) -> None:
        game = Game(table(3))
        hands = [["10H", "JC", "KC", "AD", "KD"], ["AS", "KS", "QS", "JS", "7D"],
                 ["AH", "KH", "QH", "7C", "8C"]]  # fmt: skip
        game.act(Deal(hands=tuple(map(tuple, hands)), muestra="10H"))
        declare(game)
        game.act(Exchange(2, (), ()))
        game.act(Exchange(1, ("7D",), ("10S",)))
        events = game.act(Exchange(0, (), ()))
        assert isinstance(events[1], MoscaWon) and events[1].seats == (1,)

    def test_the_panfilo_counts_as_a_trump_never_as_a_club(self) -> None:
        trump = [["10H", "AS", "KS", "AD", "KD"], ["JC", "AH", "KH", "QH", "JH"],
                 ["AC", "KC", "QC", "10C", "7S"]]  # fmt: skip
        events = recorded(trump, "10H").log
        assert MoscaWon((1,), (("JC", "JH", "QH", "KH", "AH"),)) in events
        clubs = [["10H", "AS", "KS", "AD", "KD"], ["JC", "AC", "KC", "QC", "10C"],
                 ["AH", "KH", "QH", "7C", "7S"]]  # fmt: skip
        assert not any(isinstance(e, MoscaWon) for e in recorded(clubs, "10H").log)

    def test_without_the_panfilo_the_jack_of_clubs_is_a_club(self) -> None:
        clubs = [["10H", "AS", "KS", "AD", "KD"], ["JC", "AC", "KC", "QC", "10C"],
                 ["AH", "KH", "QH", "7C", "7S"]]  # fmt: skip
        events = recorded(clubs, "10H", options={"panfilo": False}).log
        assert MoscaWon((1,), (("10C", "JC", "QC", "KC", "AC"),)) in events

    def test_a_trump_mosca_beats_a_higher_plain_one(self) -> None:
        hands = [["QH", "AC", "KC", "AD", "KD"], ["AS", "KS", "QS", "JS", "10S"],
                 ["7H", "8H", "9H", "10H", "JH"]]  # fmt: skip
        events = recorded(hands, "QH").log
        assert [e.seats for e in events if isinstance(e, MoscaWon)] == [(2,)]

    def test_otherwise_the_higher_cards_from_the_highest_down(self) -> None:
        hands = [["QH", "AC", "KC", "7H", "8H"], ["AS", "KS", "QS", "JS", "9S"],
                 ["AD", "KD", "QD", "JD", "10D"]]  # fmt: skip
        events = recorded(hands, "QH").log
        assert [e.seats for e in events if isinstance(e, MoscaWon)] == [(2,)]

    def test_equal_moscas_share_the_pot_and_the_odd_chip_stays(self) -> None:
        hands = [["QH", "AC", "KC", "7H", "8H"], ["AS", "KS", "QS", "JS", "10S"],
                 ["AD", "KD", "QD", "JD", "10D"]]  # fmt: skip
        events = recorded(hands, "QH", options={"ante": 1}).log
        won = next(e for e in events if isinstance(e, MoscaWon))
        assert won.seats == (2, 1)
        settled = events[-1]
        assert settled.payments[-2:] == (line("pot", 2, 1, "mosca"), line("pot", 1, 1, "mosca"))
        assert settled.pot == 1

    def test_checked_after_the_declarations_when_nobody_exchanges(self) -> None:
        hands = [["10H", "JC", "KC", "AD", "KD"], ["AS", "KS", "QS", "JS", "10S"],
                 ["AH", "KH", "QH", "7C", "8C"]]  # fmt: skip
        game = Game(table(3, options={"max_exchange": 0}))
        game.act(Deal(hands=tuple(map(tuple, hands)), muestra="10H"))
        events = declare(game)
        assert isinstance(events[-2], MoscaWon) and events[-1].outcome == "mosca"

    def test_a_passers_five_of_a_suit_is_no_mosca(self) -> None:
        hands = [["10H", "JC", "KC", "AD", "KD"], ["AS", "KS", "QS", "JS", "10S"],
                 ["AH", "KH", "QH", "7C", "8C"]]  # fmt: skip
        game = recorded(hands, "10H", calls={1: "pass"})
        assert game.state.phase == "playing"


class TestRule6Tricks:
    def test_the_first_player_in_to_the_dealers_right_leads(self) -> None:
        game = Game(table(4))
        game.act(Deal())
        declare(game, {3: "pass"})
        exchange(game)
        assert g.to_act(game.state) == (2,)
        assert game.state.order == (2, 1, 0)

    def test_asistir_follow_the_suit_led(self) -> None:
        game = recorded(WORKED, "10H")
        play_cards(game, "8S")  # seat 2 leads a low spade
        error = refused(game, Play(1, "9H"), "must_follow_suit")
        assert "spades" in error.message and "9H" in error.message

    def test_matar_unable_to_beat_any_card_of_the_suit(self) -> None:
        game = recorded(WORKED, "10H")
        play_cards(game, "KS")
        play_cards(game, "AS", "8H")  # seat 0 trumps, wins
        play_cards(game, "QC")  # seat 0 leads clubs; seat 2 holds AC: must beat
        assert legal_cards(game) == {"AC"}
        refused(game, Play(2, "KD"), "must_follow_suit")

    def test_no_need_to_beat_once_the_trick_is_trumped(self) -> None:
        hands = [["10H", "7S", "AS", "AD", "KD"], ["8H", "7C", "8C", "9C", "7D"],
                 ["KS", "8S", "AH", "KH", "QD"]]  # fmt: skip
        game = recorded(hands, "10H")
        play_cards(game, "KS", "8H")  # seat 1 has no spade: trumps
        assert legal_cards(game) == {"7S", "AS"}  # seat 0 follows, need not beat the king

    def test_fallar_without_the_suit_led_a_trump(self) -> None:
        game = recorded(WORKED, "10H")
        play_cards(game, "KS", "AS")
        error = refused(game, Play(0, "7D"), "must_trump")
        assert "fallar" in error.message

    def test_pisar_overtrump_when_able(self) -> None:
        hands = [["10H", "QH", "7C", "AD", "KD"], ["9H", "7D", "8C", "9C", "JD"],
                 ["KS", "8S", "AS", "QS", "QD"]]  # fmt: skip
        game = recorded(hands, "10H")
        play_cards(game, "KS", "9H")  # seat 1 trumps with the nine
        assert legal_cards(game) == {"10H", "QH"}
        error = refused(game, Play(0, "7C"), "must_overtrump")
        assert "pisar" in error.message

    def test_subfallar_unable_to_overtrump_any_card_may_be_played(self) -> None:
        hands = [["8H", "7H", "7C", "AD", "KD"], ["9H", "7D", "8C", "9C", "JD"],
                 ["KS", "8S", "AS", "QS", "QD"]]  # fmt: skip
        game = recorded(hands, "8H")
        play_cards(game, "KS", "9H")
        assert legal_cards(game) == {"8H", "7H", "7C", "AD", "KD"}

    def test_must_undertrump_option_then_a_lower_trump(self) -> None:
        hands = [["8H", "7H", "7C", "AD", "KD"], ["9H", "7D", "8C", "9C", "JD"],
                 ["KS", "8S", "AS", "QS", "QD"]]  # fmt: skip
        game = recorded(hands, "8H", options={"must_undertrump": True})
        play_cards(game, "KS", "9H")
        assert legal_cards(game) == {"8H", "7H"}
        refused(game, Play(0, "7C"), "must_undertrump")

    def test_a_trump_lead_is_followed_with_trump_and_beaten_if_possible(self) -> None:
        hands = [["10H", "JH", "7C", "AD", "KD"], ["9H", "7D", "8C", "9C", "JD"],
                 ["QH", "8S", "AS", "QS", "QD"]]  # fmt: skip
        game = recorded(hands, "10H")
        play_cards(game, "QH")
        assert legal_cards(game) == {"9H"}  # cannot beat: any trump
        play_cards(game, "9H")
        assert legal_cards(game) == {"10H", "JH"}  # cannot beat the queen either
        hands[0] = ["10H", "KH", "7C", "AD", "KD"]
        game = recorded(hands, "10H")
        play_cards(game, "QH", "9H")
        assert legal_cards(game) == {"KH"}
        refused(game, Play(0, "10H"), "must_beat")

    def test_the_panfilo_is_the_highest_trump(self) -> None:
        hands = [["10H", "JC", "7C", "AD", "KD"], ["9H", "7D", "8C", "9C", "JD"],
                 ["AH", "8S", "AS", "QS", "QD"]]  # fmt: skip
        game = recorded(hands, "10H")
        play_cards(game, "AH", "9H")
        assert legal_cards(game) == {"JC"}  # a trump that beats the ace
        events = play_cards(game, "JC")
        assert events[-1] == TrickCompleted(1, (2, 1, 0), ("AH", "9H", "JC"), 0)

    def test_the_panfilo_is_no_club(self) -> None:
        hands = [["10H", "JC", "7S", "AD", "KD"], ["9H", "7D", "8C", "9C", "JD"],
                 ["AC", "8S", "AS", "QS", "QD"]]  # fmt: skip
        game = recorded(hands, "10H")
        play_cards(game, "AC", "8C")
        assert legal_cards(game) == {"10H", "JC"}  # no club in hand: trump (JC is one)

    def test_without_the_panfilo_the_jack_of_clubs_is_an_ordinary_club(self) -> None:
        hands = [["10H", "JC", "7S", "AD", "KD"], ["9H", "7D", "8C", "9C", "JD"],
                 ["AC", "8S", "AS", "QS", "QD"]]  # fmt: skip
        game = recorded(hands, "10H", options={"panfilo": False})
        play_cards(game, "AC", "8C")
        assert legal_cards(game) == {"JC"}  # follow clubs
        game = recorded(
            [["10H", "JC", "7S", "AD", "KD"], ["9H", "7D", "8C", "9C", "JD"],
             ["AH", "8S", "AS", "QS", "QD"]], "10H", options={"panfilo": False}
        )  # fmt: skip
        play_cards(game, "AH", "9H")
        assert legal_cards(game) == {"10H"}  # JC is no trump: follow hearts with the 10

    def test_only_the_seat_in_turn_plays_its_own_cards(self) -> None:
        game = recorded(WORKED, "10H")
        error = refused(game, Play(1, "AS"), "not_your_turn")
        assert error.message == "it is seat 2's turn to play, not 1's"
        error = refused(game, Play(2, "AS"), "card_not_in_hand")
        assert error.message == "seat 2 does not hold AS"


class TestRule7Settlement:
    def test_bestia_pays_the_pot_and_each_trick_one_chip(self) -> None:
        _, settled = played_out(ONE_BESTIA, ONE_BESTIA_PLAY)
        assert settled == DealSettled(
            1,
            (
                *ante([2, 1, 0]),
                line(1, "pot", 6, "bestia"),
                *[line("pot", s, 1, "trick") for s in (2, 2, 2, 0, 0)],
            ),
            (0, -8, 1),
            7,
            "played",
        )

    def test_trick_pay_fifth_a_fifth_of_the_pot_after_the_bestia(self) -> None:
        _, settled = played_out(ONE_BESTIA, ONE_BESTIA_PLAY, options={"trick_pay": "fifth"})
        assert settled.payments[4:] == tuple(line("pot", s, 2, "trick") for s in (2, 2, 2, 0, 0))
        assert (settled.balances, settled.pot) == ((2, -8, 4), 2)  # 12 // 5 = 2, 2 stay

    def test_capot_takes_the_whole_pot_after_the_bestias_flat(self) -> None:
        _, settled = played_out(CAPOT, CAPOT_PLAY)
        assert settled.payments[3:] == (
            line(1, "pot", 6, "bestia"),
            line(0, "pot", 6, "bestia"),  # flat: both pay the pot at the end of the tricks
            line("pot", 2, 18, "capot"),
        )
        assert (settled.balances, settled.pot) == ((-8, -8, 16), 0)

    def test_doubling_each_bestia_pays_the_pot_as_it_stands(self) -> None:
        _, settled = played_out(CAPOT, CAPOT_PLAY, options={"multiple_bestia": "doubling"})
        assert settled.payments[3:] == (
            line(1, "pot", 6, "bestia"),  # from the dealer's right: seat 1 first
            line(0, "pot", 12, "bestia"),
            line("pot", 2, 24, "capot"),
        )
        assert (settled.balances, settled.pot) == ((-14, -8, 22), 0)

    @pytest.mark.parametrize(
        ("rule", "bestias", "pot"),
        [("flat", [8, 8], 19), ("doubling", [8, 16], 27)],
    )
    def test_several_bestias_then_the_tricks(self, rule: str, bestias: list[int], pot: int) -> None:
        hands = [["6H", "AC", "KC", "AD", "KD"], ["6D", "7D", "8D", "8C", "9C"],
                 ["AS", "KS", "QS", "6C", "7C"], ["AH", "KH", "QH", "6S", "7S"]]  # fmt: skip
        plays = ["AH", "6C", "6D", "6H", "KH", "7C", "7D", "AC", "QH", "QS", "8D", "KC",
                 "6S", "KS", "8C", "AD", "AS", "9C", "KD", "7S"]  # fmt: skip
        _, settled = played_out(hands, plays, options={"multiple_bestia": rule})
        assert settled.payments[4:] == (
            line(1, "pot", bestias[0], "bestia"),  # from the dealer's right: seat 1, seat 0
            line(0, "pot", bestias[1], "bestia"),
            *[line("pot", s, 1, "trick") for s in (3, 3, 3, 2, 2)],
        )
        assert settled.pot == pot

    def test_a_pot_that_runs_dry_pays_nothing_more(self) -> None:
        hands = [["10H", "AC", "KC", "AD", "KD"], ["AS", "KS", "7C", "8C", "9C"],
                 ["AH", "7S", "8S", "9D", "10D"]]  # fmt: skip
        plays = ["AH", "7C", "10H", "7S", "KS", "KD", "AS", "AD", "8S", "8C", "KC", "9D", "AC",
                 "10D", "9C"]  # fmt: skip
        _, settled = played_out(hands, plays, options={"ante": 1})
        winners = [2, 1, 1]  # tricks 4 and 5 (seat 0's) find the pot empty
        assert settled.payments[3:] == tuple(line("pot", s, 1, "trick") for s in winners)
        assert (settled.balances, settled.pot) == ((-1, 1, 0), 0)

    def test_panfilo_bonus_from_every_other_player_passers_included(self) -> None:
        hands = [["10H", "AS", "KS", "AC", "KC"], ["7C", "8C", "9C", "7D", "8D"],
                 ["AH", "KH", "QH", "JC", "8S"], ["6C", "6D", "9D", "10D", "JD"]]  # fmt: skip
        game = recorded(hands, "10H", calls={3: "pass"}, options={"panfilo_bonus": 3})
        assert game.state.panfilo_holder == 2
        settled = first_legal_deal(game)[-1]
        assert settled.payments[-3:] == (
            line(3, 2, 3, "panfilo"),  # the passer pays too
            line(1, 2, 3, "panfilo"),
            line(0, 2, 3, "panfilo"),
        )

    def test_the_panfilo_holder_is_who_holds_it_at_the_first_lead(self) -> None:
        game = Game(table(3))
        game.act(Deal(hands=tuple(map(tuple, ONE_BESTIA)), muestra="10H"))
        declare(game)
        game.act(Exchange(2, ("8S",), ("JC",)))  # drawn from the unseen stock
        exchange(game)
        settled = first_legal_deal(game)[-1]
        assert [p for p in settled.payments if p["reason"] == "panfilo"] == [
            line(1, 2, 1, "panfilo"), line(0, 2, 1, "panfilo")]  # fmt: skip

    def test_no_panfilo_bonus_without_the_panfilo(self) -> None:
        hands = [["10H", "AS", "KS", "AC", "KC"], ["7C", "8C", "9C", "7D", "8D"],
                 ["AH", "KH", "QH", "JC", "8S"]]  # fmt: skip
        game = recorded(hands, "10H", options={"panfilo": False})
        settled = first_legal_deal(game)[-1]
        assert not [p for p in settled.payments if p["reason"] == "panfilo"]

    def test_payments_sum_to_the_balance_changes(self) -> None:
        _, settled = played_out(ONE_BESTIA, ONE_BESTIA_PLAY)
        change = [0, 0, 0]
        for p in settled.payments:
            if p["from"] != "pot":
                change[p["from"]] -= p["chips"]
            if p["to"] != "pot":
                change[p["to"]] += p["chips"]
        assert tuple(change) == settled.balances
        assert sum(settled.balances) + settled.pot == 0


class TestRule8AndTheMatch:
    def pass_all(self, game: Game) -> list[Any]:
        game.act(Deal())
        return declare(game, dict.fromkeys(range(game.table.players), "pass"))

    def test_the_deal_passes_to_the_right(self) -> None:
        game = Game(table(4, first_dealer=1))
        self.pass_all(game)
        assert game.state.dealer == 0
        (started,) = game.act(Deal())
        assert (started.deal, started.dealer) == (2, 0)
        assert g.to_act(game.state) == (3,)  # the new dealer's right declares first

    def test_everybody_deals_twice_void_deals_count(self) -> None:
        game = Game(table(3))
        assert game.table.match == MatchRules(None, 6) == g.default_match(3)
        dealers = []
        for _ in range(6):
            dealers.append(game.state.dealer)
            events = self.pass_all(game)
        assert dealers == [0, 2, 1, 0, 2, 1]
        assert events[-1] == MatchEnded((-12, -12, -12), (1, 1, 1))  # equal balances share
        assert game.state.phase == "finished" and g.to_act(game.state) == ()
        assert g.view(game.state)["pot"] == 36
        refused(game, Deal(), "match_finished")

    def test_between_the_last_settlement_and_the_match_end_nobody_deals(self) -> None:
        game = Game(table(3, max_deals=1))
        self.pass_all(game)
        assert isinstance(game.log[-1], MatchEnded) and game.state.phase == "finished"
        # The state one version before the end, as a replay to that version gives it:
        state = reduce(g.evolve, game.log[:-1], g.initial_state(game.table))
        assert state.phase == "waiting_for_deal"
        assert g.to_act(state) == () and list(g.legal_actions(state, state.dealer)) == []
        with pytest.raises(RuleViolation) as caught:
            g.decide(state, Deal())
        assert caught.value.code == "match_finished"

    def test_a_target_ends_the_match_with_a_ranking(self) -> None:
        game = Game(table(3, target=4))
        game.act(Deal())
        events = declare(game, {2: "pass", 1: "pass", 0: "play"})
        assert events[-1] == MatchEnded((4, -2, -2), (1, 2, 2))
        assert g.view(game.state)["ranking"] == [1, 2, 2]


class TestOptions:
    @pytest.mark.parametrize(
        ("name", "value"),
        [("deck", "long"), ("ante", -1), ("ante", 1.5), ("ante", True), ("max_exchange", 6),
         ("max_exchange", -1), ("panfilo", "yes"), ("panfilo", 1), ("must_undertrump", None),
         ("multiple_bestia", "triple"), ("trick_pay", "two"), ("panfilo_bonus", -2)],
    )  # fmt: skip
    def test_a_bad_value_is_refused_naming_option_and_value(self, name: str, value: Any) -> None:
        with pytest.raises(RuleViolation) as caught:
            g.check_options(table(3, options={name: value}))
        assert caught.value.code == "invalid_option"
        assert name in caught.value.message and repr(value) in caught.value.message

    def test_an_unknown_option_is_refused_by_name(self) -> None:
        with pytest.raises(RuleViolation) as caught:
            g.check_options(table(3, options={"jokers": True}))
        assert caught.value.code == "unknown_option" and "jokers" in caught.value.message

    def test_every_option_with_a_good_value_is_accepted(self) -> None:
        options = {"deck": "full", "ante": 0, "max_exchange": 5, "panfilo": False,
                   "must_undertrump": True, "multiple_bestia": "doubling", "trick_pay": "fifth",
                   "panfilo_bonus": 0}  # fmt: skip
        g.check_options(table(3, options=options))
        assert g.initial_state(table(3, options=options)).rules.fifth

    def test_one_variant_three_to_eight_players(self) -> None:
        with pytest.raises(RuleViolation) as caught:
            g.initial_state(table(3, variant="lopaka"))
        assert caught.value.code == "unknown_variant"
        for players in (2, 9):
            with pytest.raises(RuleViolation) as caught:
                g.initial_state(table(players))
            assert caught.value.code == "wrong_player_count"
        with pytest.raises(RuleViolation) as caught:
            g.initial_state(table(3, first_dealer=3))
        assert caught.value.code == "invalid_rules"

    def test_the_interface(self) -> None:
        assert (g.GAME_ID, g.DEFAULT_VARIANT) == ("bestia", "standard")
        assert set(g.EVENT_TYPES) == {"DealStarted", "Declared", "MoscaWon", "CardsExchanged",
                                      "CardPlayed", "TrickCompleted", "DealSettled"}  # fmt: skip
        assert g.default_match(5) == MatchRules(target_score=None, max_deals=10)


class TestViews:
    def test_a_seat_sees_its_own_hand_the_muestra_and_the_stock_size(self) -> None:
        game = recorded(WORKED, "10H")
        v = g.view(game.state, 1)
        assert v["hands"] == [None, ["7C", "8C", "9H", "7S", "AS"], None]
        assert (v["muestra"], v["trump"], v["stock_size"], v["stock"]) == ("10H", "H", 17, None)
        assert (v["status"], v["phase"], v["pot"], v["balances"]) == (
            "in_deal", "playing", 6, [-2, -2, -2])  # fmt: skip
        assert v["legal_actions"] == []  # seat 2 leads
        leads = ("AC", "QD", "KD", "8S", "KS")
        assert g.view(game.state, 2)["legal_actions"] == [
            {"type": "play", "seat": 2, "card": c} for c in leads
        ]
        assert v["active"] == [2, 1, 0] and v["calls"] == ["play", "play", "play"]
        assert v["trick"] == {"leader": 2, "cards": []}

    def test_the_public_sees_no_hand_and_no_actions_the_organiser_everything(self) -> None:
        game = recorded(WORKED, "10H")
        play_cards(game, "KS")
        public = g.view(game.state)
        assert public["hands"] == [None, None, None] and public["legal_actions"] == []
        assert public["trick"] == {"leader": 2, "cards": [{"seat": 2, "card": "KS"}]}
        everything = g.view(game.state, ORGANISER)
        assert everything["hands"][0] == ["9C", "QC", "7D", "8H", "10H"]
        assert everything["legal_actions"] == [{"type": "play", "seat": 1, "card": "AS"}]

    def test_discards_and_draws_are_seen_by_their_seat_only(self) -> None:
        game = Game(table(3, seed="seen"))
        (started,) = game.act(Deal())
        declare(game)
        game.act(Exchange(2, started.hands[2][:2]))
        mine, theirs = g.view(game.state, 2), g.view(game.state, 1)
        assert mine["exchanges"][2] == {
            "count": 2,
            "discarded": list(started.hands[2][:2]),
            "drawn": list(started.stock[:2]),
        }
        assert theirs["exchanges"][2] == {"count": 2, "discarded": None, "drawn": None}
        opened = TableOpened.of(game.table)
        log = g.visible_events([opened, *game.log], 1)
        assert log[0].seed is None and log[1].seed is None and log[1].stock is None
        assert log[1].hands == (None, started.hands[1], None)
        assert log[-1] == CardsExchanged(2, (None, None), (None, None))
        assert g.visible_events([opened, *game.log], ORGANISER) == [opened, *game.log]

    def test_a_settled_deal_is_public_the_seed_once_the_match_is_over(self) -> None:
        game = Game(table(3, seed="public", max_deals=1))
        (started,) = game.act(Deal())
        declare(game)
        exchange(game, {2: started.hands[2][:1]})
        first_legal_deal(game)
        assert game.state.phase == "finished"
        v = g.view(game.state)
        assert v["status"] == "finished" and v["laid_aside"] == [started.hands[2][0]]
        opened = TableOpened.of(game.table)
        assert g.visible_events([opened, *game.log], None) == [opened, *game.log]
        unfinished = g.visible_events([opened, *game.log[:-1]], None)
        assert unfinished[1] == started._replace(seed=None) and unfinished[0].seed is None


class TestActionsAsJson:
    @pytest.mark.parametrize(
        "body",
        [{"type": "deal"}, {"type": "deal", "hands": [["AS"]], "muestra": "AS"},
         {"type": "declare", "seat": 0, "call": "play"},
         {"type": "exchange", "seat": 0, "discard": ["2H"]},
         {"type": "exchange", "seat": 0, "discard": [], "drawn": []},
         {"type": "play", "seat": 0, "card": "AS"}],
    )  # fmt: skip
    def test_bodies_round_trip(self, body: dict[str, Any]) -> None:
        assert g.body(g.parse(body)) == body

    def test_unknown_types_and_fields_are_refused(self) -> None:
        for bad, code in (
            ({"type": "bid"}, "unknown_action"),
            ({"type": "play", "seat": 0}, "invalid_action"),
            ({"type": "play", "seat": 0, "card": "AS", "x": 1}, "invalid_action"),
        ):
            with pytest.raises(RuleViolation) as caught:
                g.parse(bad)
            assert caught.value.code == code

    def test_a_whole_deal_through_json_bodies_replays_to_the_same_state(self) -> None:
        game = Game(table(3, seed="json"))
        while game.state.phase != "finished" and game.state.deal < 2:
            seat = game.to_act()
            game.body(g.body(g.legal_actions(game.state, seat)[0]))
        assert game.replayed() == game.state
