"""What a Bestia seat may believe of the cards it cannot see: deals consistent with
everything it saw, for the Monte Carlo bot to play out (``domain.bots.bestia``).

Facts (hard, from the rules, ``docs/rules/bestia.md`` rule 6): the seat's own hand and
exchange, the cards played, and what each card played says of its player's hand: a player
who did not follow holds none of the suit led; one who followed without beating the best
card of the suit holds none above it (matar); one who could not follow and did not trump
holds no trump, and one who did not overtrump holds no trump above the best (pisar).

Beliefs (soft, from how the others are taken to play, ``domain.bots.bestia_cards``): the
muestra is still in the dealer's hand until played (nobody lays aside a trump); a player who
declared holds a hand worth a trick (``bar``); one who exchanged fewer cards than the limit
kept nothing but trumps and aces, and one who exchanged none kept the hand it declared with.
A world is dealt player by player, most constrained first, each hand drawn afresh until it
fits the beliefs (a bounded number of times: beliefs are only likely) and always within the
facts; a deal the facts cannot be met by in this way falls back to ``weighted_fill``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from domain.bots.bestia_cards import (
    KING_TRICKS,
    bar,
    beats,
    best_of,
    card_tricks,
    expected_tricks,
    ids,
    is_strong,
    trumps_of,
)
from domain.bots.common import weighted_fill
from domain.games.bestia import layout
from domain.games.bestia.cards import BIT, CARD_ID, NAMES, Trumps, deck, mask_of
from domain.games.bestia.model import State
from domain.games.bestia.options import HAND, rules_of
from domain.match import MatchRules
from domain.table import SeatSpec, Table

View = Mapping[str, Any]
#: How often a player's hand is drawn again until it fits what its calls say.
TRIES = 24
#: How often a whole deal is tried player by player before ``weighted_fill``.
DEALS = 3


def ruled_out(tt: Trumps, trick: Sequence[int], best: int, card: int, undertrump: bool) -> int:
    """The cards the player of ``card`` cannot have held (a mask), since ``card`` was a
    legal play to ``trick`` (whose winning card so far is ``best``): rule 6 read backwards
    (``domain.games.bestia.tricks.legal_mask``)."""
    if not trick:
        return 0  # a lead says nothing
    led = tt.suit_of[trick[0]]
    follow = tt.suit_mask[led]
    bit = BIT[card]
    if bit & follow:  # asistir, and matar unless the trick was trumped
        if tt.suit_of[best] == led and not tt.above[best] & bit:
            return follow & tt.above[best]
        return 0
    trumps = tt.suit_mask[tt.suit]
    out = follow  # none of the suit led
    if tt.suit_of[card] == tt.suit:  # fallar, and pisar if it can
        if tt.suit_of[best] == tt.suit and not tt.above[best] & bit:
            out |= trumps & tt.above[best]
        return out
    if tt.suit_of[best] != tt.suit:
        return out | trumps  # it would have had to trump
    return out | (trumps if undertrump else trumps & tt.above[best])


class World:
    """Deals of the hidden cards consistent with the seat's observation."""

    def __init__(self, view: View) -> None:
        self.view = view
        me = self.me = view["seat"]
        n = self.players = len(view["hand_sizes"])
        options = dict(view["rules"])
        self.table = Table(
            "bestia",
            view["variant"],
            tuple(SeatSpec(name=str(i)) for i in range(n)),
            MatchRules(target_score=None, max_deals=10**6),
            seed="determinized",
            first_dealer=view["dealer"],
            options=options,
        )
        self.rules = rules_of(self.table)
        self.tt = trumps_of(view)
        self.hand = ids(view["hands"][me])
        self._read_play(view, bool(options["must_undertrump"]))
        mine = view["exchanges"][me]
        discarded = ids(mine["discarded"]) if mine else []
        self.muestra = muestra = CARD_ID[view["muestra"]]
        dealer = view["dealer"]
        known = set(self.hand) | set(self.played)
        first_stock = view["deck_size"] - HAND * n
        drawn = sum(ex["count"] for ex in view["exchanges"] if ex)
        #: The seat's own discards, still laid aside while the stock never ran out.
        self.laid_known = discarded if drawn <= first_stock else []
        known |= set(self.laid_known)
        active = view["active"]
        pin = dealer != me and dealer in active and muestra not in known
        self.pin = muestra if pin and not self.ruled_out.get(dealer, 0) & BIT[muestra] else None
        self.holders = [s for s in active if s != me]
        sizes = view["hand_sizes"]
        pool = [c for c in deck(n, options["deck"]) if c not in known and c != self.pin]
        self.capacity = [sizes[s] - (1 if self.pin is not None and s == dealer else 0)
                         for s in self.holders]  # fmt: skip
        self.stock_size = view["stock_size"]
        self.laid_size = len(pool) - sum(self.capacity) - self.stock_size
        if self.laid_size < 0 or min(self.capacity, default=0) < 0:
            raise ValueError("the observation does not add up to a deck")
        self.pool = pool
        self._read_calls(view)

    def _read_play(self, view: View, undertrump: bool) -> None:
        """The deal's cards played, the trick in progress, and what each play rules out."""
        tt = self.tt
        played: list[int] = []
        by_seat: dict[int, list[int]] = {}
        winners: list[int] = []
        out: dict[int, int] = {}
        trick: list[int] = []
        best = -1
        for event in view["log"]:
            kind, d = event["type"], event["data"]
            if kind == "CardPlayed":
                c, seat = CARD_ID[d["card"]], d["seat"]
                out[seat] = out.get(seat, 0) | ruled_out(tt, trick, best, c, undertrump)
                best = c if not trick or beats(tt, c, best) else best
                trick.append(c)
                played.append(c)
                by_seat.setdefault(seat, []).append(c)
            elif kind == "TrickCompleted":
                winners.append(d["winner"])
                trick, best = [], -1
        self.played, self.played_by, self.ruled_out = played, by_seat, out
        self.winners, self.trick = tuple(winners), tuple(trick)

    def _read_calls(self, view: View) -> None:
        """What each other player's call and exchange are taken to say of its hand."""
        calls = view["calls"]
        dealer = view["dealer"]
        others_play = any(c == "play" for s, c in enumerate(calls) if s != dealer)
        self.bar = bar(view["pot"], self.players)
        self.limit = int(view["rules"]["max_exchange"])
        #: seat -> cards exchanged, for the holders whose call says something.
        self.believed: dict[int, int | None] = {}
        for s in self.holders:
            if calls[s] != "play" or (s == dealer and not others_play):
                continue  # not declared yet (the playouts ask it), or it had to play
            ex = view["exchanges"][s]
            self.believed[s] = ex["count"] if ex else None

    def plausible(self, seat: int, hand: list[int]) -> bool:
        """Whether ``hand`` (with what ``seat`` played) fits what its call and exchange
        say: a hand worth a trick, and only trumps and aces kept when it exchanged fewer
        cards than it could."""
        if seat not in self.believed:
            return True
        tt = self.tt
        cards = sorted(hand + self.pin_of(seat) + self.played_by.get(seat, []))
        exchanged = self.believed[seat]
        if not exchanged:  # the hand it declared with
            return expected_tricks(tt, cards) >= self.bar
        kept = len(cards) - exchanged
        if exchanged < self.limit and sum(is_strong(tt, c) for c in cards) < kept:
            return False
        best = sorted((card_tricks(tt, c) for c in cards), reverse=True)[:kept]
        return sum(best) + KING_TRICKS * exchanged >= self.bar - 1e-9

    def pin_of(self, seat: int) -> list[int]:
        return [self.pin] if self.pin is not None and seat == self.view["dealer"] else []

    def _allowed(self, b: int, card: int) -> bool:
        if b >= len(self.holders):
            return True
        return not self.ruled_out.get(self.holders[b], 0) & BIT[card]

    def _deal(self, rng: random.Random) -> list[list[int]] | None:
        """Hands for the holders, then stock and laid-aside cards, player by player."""
        pool = self.pool[:]
        rng.shuffle(pool)
        holders = list(range(len(self.holders)))
        outs = [self.ruled_out.get(s, 0) for s in self.holders]
        room = [sum(1 for c in pool if not outs[b] & BIT[c]) - self.capacity[b] for b in holders]
        holders.sort(key=lambda b: (room[b], -int(self.holders[b] in self.believed), b))
        bins: list[list[int]] = [[] for _ in range(len(self.holders) + 2)]
        for b in holders:
            allowed = [c for c in pool if not outs[b] & BIT[c]]
            size = self.capacity[b]
            if len(allowed) < size:
                return None
            seat = self.holders[b]
            for _ in range(TRIES):
                hand = rng.sample(allowed, size)
                if self.plausible(seat, hand):
                    break
            bins[b] = hand
            taken = set(hand)
            pool = [c for c in pool if c not in taken]
        bins[-2] = pool[: self.stock_size]
        bins[-1] = pool[self.stock_size :]
        return bins

    def sample(self, rng: random.Random) -> State:
        for _ in range(DEALS):
            bins = self._deal(rng)
            if bins is not None:
                break
        else:
            capacity = [*self.capacity, self.stock_size, self.laid_size]
            bins = weighted_fill(self.pool, capacity, self._allowed, rng)
        return self._state(bins)

    def _state(self, bins: list[list[int]]) -> State:
        view = self.view
        n = self.players
        hands = [0] * n
        hands[self.me] = mask_of(self.hand)
        for b, seat in enumerate(self.holders):
            hands[seat] = mask_of(bins[b] + self.pin_of(seat))
        tt = self.tt
        active = tuple(view["active"])
        phase = view["phase"]
        order: tuple[int, ...] = ()
        queue: tuple[int, ...] = ()
        holder = None
        if phase == "playing":
            order = layout.trick_order(active, view["trick"]["leader"])
            if self.rules.panfilo:
                jc = CARD_ID["JC"]
                owners = [s for s in range(n) if hands[s] & BIT[jc]]
                holder = owners[0] if owners else self._played_by(jc)
        else:
            to_act = view["to_act"][0]
            line = layout.ring(n, view["dealer"]) if phase == "declaring" else active
            queue = line[line.index(to_act) :]
        return State(
            table=self.table,
            rules=self.rules,
            phase=phase,
            deal=view["deal"],
            dealer=view["dealer"],
            balances=tuple(view["balances"]),
            pot=view["pot"],
            ante=view["rules"]["ante"],
            trumps=tt,
            muestra=self.muestra,
            seeded=True,
            calls=tuple(view["calls"]),
            active=active,
            queue=queue,
            stock=tuple(NAMES[c] for c in bins[-2]),
            laid_aside=mask_of(bins[-1] + self.laid_known),
            restocks=0,
            exchanges=(None,) * n,
            panfilo_holder=holder,
            hands=tuple(hands),
            order=order,
            trick=self.trick,
            best=best_of(tt, self.trick) if self.trick else -1,
            winners=self.winners,
            payments=None,
            outcome=None,
            ranking=None,
            taken=mask_of(self.played) & ~mask_of(self.trick),
        )

    def _played_by(self, card: int) -> int | None:
        for seat, cards in self.played_by.items():
            if card in cards:
                return seat
        return None
