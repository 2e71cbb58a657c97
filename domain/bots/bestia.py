"""Bestia's bots (``docs/rules/bestia.md``).

Bestia is about not taking zero tricks: a player in who takes none pays the pot. The
heuristic declares by trump strength (the pánfilo and high trumps are near-certain
tricks, an off-suit ace a likely one), always plays when everyone before it passed and
it speaks last (the pot comes uncontested), exchanges everything that is neither a
trump nor an ace, and in the tricks takes one as cheaply as it can, as early as it can.

The Monte Carlo bot samples the unseen cards (the other active hands, the stock, the
laid-aside cards) consistently with what the seat saw: its hand and exchange, the
muestra in the dealer's hand, the cards played, and the suits a player showed void of
by not following (or not trumping). It plays each candidate out to the deal's
settlement with a quick policy and keeps the best average change of its balance.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from domain.bots.common import legal_bodies, search, weighted_fill
from domain.games.bestia import layout
from domain.games.bestia.cards import BIT, CARD_ID, NAMES, SUITS, TRUMPS, Trumps, deck, mask_of
from domain.games.bestia.decide import decide
from domain.games.bestia.evolve import evolve
from domain.games.bestia.model import (
    DealSettled,
    Declare,
    Exchange,
    Play,
    State,
)
from domain.games.bestia.options import HAND, rules_of
from domain.games.bestia.tricks import legal_mask
from domain.match import MatchRules
from domain.table import SeatSpec, Table

View = Mapping[str, Any]
Body = dict[str, Any]

#: Playouts per decision are ``PLAYOUTS // players`` (a playout's length grows with the
#: table): ``bench/bots.py`` keeps the 95th percentile under 50 ms.
PLAYOUTS = 420
#: Expected tricks of a trump by its power (the pánfilo 13, the ace 12 …).
TRUMP_TRICKS = {13: 1.0, 12: 0.9, 11: 0.75, 10: 0.6, 9: 0.45}


def _trumps(view: View) -> Trumps:
    return TRUMPS[bool(view["rules"]["panfilo"])][SUITS.index(view["trump"])]


def strength(tt: Trumps, card: int) -> int:
    """A card's strength for play: any trump above any other card."""
    return tt.power[card] + (20 if tt.suit_of[card] == tt.suit else 0)


def expected_tricks(tt: Trumps, cards: Sequence[int]) -> float:
    """Rough tricks a hand takes: its trumps by rank, its off-suit aces (and kings)."""
    total = 0.0
    for c in cards:
        p = tt.power[c]
        if tt.suit_of[c] == tt.suit:
            total += TRUMP_TRICKS.get(p, 0.3)
        elif p == 12:
            total += 0.5
        elif p == 11:
            total += 0.2
    return total


def _declare(tt: Trumps, cards: Sequence[int], calls: Sequence[str | None], last: bool, pot: int,
             players: int) -> str:  # fmt: skip
    """Rule 3: play when the hand should take a trick (a higher bar when the pot, the
    bestia's price, is large), and always when speaking last after nothing but passes."""
    if last and "play" not in calls:
        return "play"
    bar = 1.0 if pot > 2 * players else 0.85
    return "play" if expected_tricks(tt, cards) >= bar else "pass"


def _discard(tt: Trumps, cards: Sequence[int], limit: int) -> list[int]:
    """Rule 4: lay aside what is neither a trump nor an ace, weakest first."""
    weak = sorted(
        (c for c in cards if tt.suit_of[c] != tt.suit and tt.power[c] < 12),
        key=lambda c: (tt.power[c], c),
    )
    return weak[:limit]


def _beats(tt: Trumps, card: int, best: int) -> bool:
    return bool(tt.beaten_by[best] & BIT[card])


def _best(tt: Trumps, trick: Sequence[int]) -> int:
    best = trick[0]
    for c in trick[1:]:
        if _beats(tt, c, best):
            best = c
    return best


def _play(tt: Trumps, legal: Sequence[int], trick: Sequence[int], last: bool, need: bool) -> int:
    """Rule 6 by preference: lead the strongest card; take the trick as cheaply as
    possible when last, with the strongest card while still needing a trick, else
    duck with the weakest card."""
    if not trick:
        return max(legal, key=lambda c: (strength(tt, c), c))
    best = _best(tt, trick)
    winners = [c for c in legal if _beats(tt, c, best)]
    if winners:
        if last or not need:
            return min(winners, key=lambda c: (strength(tt, c), c))
        return max(winners, key=lambda c: (strength(tt, c), c))
    return min(legal, key=lambda c: (strength(tt, c), c))


def _ids(names: Sequence[str] | None) -> list[int]:
    return [CARD_ID[n] for n in names or ()]


def heuristic(view: View, rng: random.Random) -> Body:
    """The ``heuristic`` bot for Bestia."""
    legal = legal_bodies(view)
    kind = legal[0]["type"]
    me = view["seat"]
    if kind == "deal":
        return dict(legal[0])
    tt = _trumps(view)
    hand = _ids(view["hands"][me])
    if kind == "declare":
        calls = view["calls"]
        last = me == view["dealer"]
        call = _declare(tt, hand, calls, last, view["pot"], len(calls))
        return {"type": "declare", "seat": me, "call": call}
    if kind == "exchange":
        return _matching_exchange(legal, _discard(tt, hand, view["rules"]["max_exchange"]))
    cards = [CARD_ID[b["card"]] for b in legal]
    trick = [CARD_ID[c["card"]] for c in view["trick"]["cards"]]
    last = len(trick) == len(view["active"]) - 1
    need = view["tricks_won"][me] == 0
    return {"type": "play", "seat": me, "card": NAMES[_play(tt, cards, trick, last, need)]}


def _matching_exchange(legal: Sequence[Body], discard: Sequence[int]) -> Body:
    """The legal exchange laying aside exactly ``discard`` (else the smallest one)."""
    wanted = {NAMES[c] for c in discard}
    for body in legal:
        if set(body["discard"]) == wanted:
            return dict(body)
    return dict(legal[0])


def _exchange_candidates(view: View, legal: Sequence[Body]) -> list[Body]:
    """The heuristic's discard and its shorter and longer neighbours, best first."""
    tt = _trumps(view)
    me = view["seat"]
    hand = _ids(view["hands"][me])
    limit = view["rules"]["max_exchange"]
    order = sorted(hand, key=lambda c: (strength(tt, c), c))
    preferred = len(_discard(tt, hand, limit))
    sizes = sorted(range(limit + 1), key=lambda k: (abs(k - preferred), k))
    out: list[Body] = []
    for k in sizes:
        body = _matching_exchange(legal, order[:k])
        if body not in out:
            out.append(body)
    return out


# --- Monte Carlo ------------------------------------------------------------------------------


class World:
    """A sampler of full deals consistent with the seat's knowledge."""

    def __init__(self, view: View) -> None:
        self.view = view
        me = self.me = view["seat"]
        n = len(view["hand_sizes"])
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
        tt = self.tt = _trumps(view)
        hand = _ids(view["hands"][me])
        self.hand = hand
        played: list[int] = []
        winners: list[int] = []
        voids: dict[int, set[int]] = {}
        trick: list[int] = []
        for event in view["log"]:
            kind, d = event["type"], event["data"]
            if kind == "CardPlayed":
                c = CARD_ID[d["card"]]
                if trick:
                    led = tt.suit_of[trick[0]]
                    if tt.suit_of[c] != led:
                        voids.setdefault(d["seat"], set()).add(led)
                        trumped = any(tt.suit_of[x] == tt.suit for x in trick)
                        if tt.suit_of[c] != tt.suit and not trumped:
                            voids[d["seat"]].add(tt.suit)
                trick.append(c)
                played.append(c)
            elif kind == "TrickCompleted":
                winners.append(d["winner"])
                trick = []
        self.voids = voids
        self.winners = tuple(winners)
        self.trick = tuple(trick)
        mine = view["exchanges"][me]
        discarded = _ids(mine["discarded"]) if mine else []
        muestra = CARD_ID[view["muestra"]]
        dealer = view["dealer"]
        known = set(hand) | set(played)
        first_stock = view["deck_size"] - HAND * n
        drawn = sum(ex["count"] for ex in view["exchanges"] if ex)
        if drawn <= first_stock:
            known |= set(discarded)  # still laid aside: the stock never ran out
        self.pin: int | None = None
        active = view["active"]
        dealer_exchange = view["exchanges"][dealer]
        if (
            dealer != me
            and dealer in active
            and muestra not in known
            and (dealer_exchange is None or dealer_exchange["count"] == 0)
        ):
            self.pin = muestra
        self.holders = [s for s in active if s != me]
        sizes = view["hand_sizes"]
        pool = [c for c in deck(n, options["deck"]) if c not in known and c != self.pin]
        self.capacity = [sizes[s] - (1 if self.pin is not None and s == dealer else 0)
                         for s in self.holders]  # fmt: skip
        self.capacity += [view["stock_size"], len(pool) - sum(self.capacity) - view["stock_size"]]
        if self.capacity[-1] < 0 or min(self.capacity) < 0:
            raise ValueError("the observation does not add up to a deck")
        self.pool = pool
        self.muestra = muestra
        self.played = played

    def allowed(self, b: int, card: int) -> bool:
        if b >= len(self.holders):
            return True
        return self.tt.suit_of[card] not in self.voids.get(self.holders[b], ())

    def sample(self, rng: random.Random) -> State:
        view = self.view
        bins = weighted_fill(self.pool, self.capacity, self.allowed, rng)
        n = len(view["hand_sizes"])
        hands = [0] * n
        hands[self.me] = mask_of(self.hand)
        for b, seat in enumerate(self.holders):
            pinned = [self.pin] if self.pin is not None and seat == view["dealer"] else []
            hands[seat] = mask_of(bins[b] + pinned)
        stock = tuple(NAMES[c] for c in bins[-2])
        laid = mask_of(bins[-1])
        tt = self.tt
        active = tuple(view["active"])
        phase = view["phase"]
        ring = layout.ring(n, view["dealer"])
        order: tuple[int, ...] = ()
        queue: tuple[int, ...] = ()
        holder = None
        if phase == "playing":
            leader = view["trick"]["leader"]
            order = layout.trick_order(active, leader)
            jc = CARD_ID["JC"]
            if self.rules.panfilo:
                owners = [s for s in range(n) if hands[s] & BIT[jc]]
                holder = owners[0] if owners else self._played_by(jc)
        else:
            to_act = view["to_act"][0]
            line = ring if phase == "declaring" else active
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
            stock=stock,
            laid_aside=laid,
            restocks=0,
            exchanges=(None,) * n,
            panfilo_holder=holder,
            hands=tuple(hands),
            order=order,
            trick=self.trick,
            best=_best(tt, self.trick) if self.trick else -1,
            winners=self.winners,
            payments=None,
            outcome=None,
            ranking=None,
        )

    def _played_by(self, card: int) -> int | None:
        for event in self.view["log"]:
            if event["type"] == "CardPlayed" and event["data"]["card"] == NAMES[card]:
                return int(event["data"]["seat"])
        return None


def rollout_policy(s: State, rng: random.Random) -> Any:
    """The heuristic on the state's own terms, cheap enough for playouts. It is
    deterministic: every candidate then meets the same replies in the same world, and
    only the worlds vary."""
    tt: Trumps = s.trumps  # type: ignore[assignment]
    phase = s.phase
    if phase == "playing":
        trick = s.trick
        seat = s.order[len(trick)]
        held = s.hands[seat]
        ids = _ids_of(legal_mask(s, held) if trick else held)
        last = len(trick) == len(s.order) - 1
        need = seat not in s.winners
        return Play(seat, NAMES[_play(tt, ids, trick, last, need)])
    seat = s.queue[0]
    cards = _ids_of(s.hands[seat])
    if phase == "declaring":
        call = _declare(tt, cards, s.calls, len(s.queue) == 1, s.pot, s.table.players)
        return Declare(seat, call)
    return Exchange(seat, tuple(NAMES[c] for c in _discard(tt, cards, s.rules.max_exchange)))


def _ids_of(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _playout(world: State, me: int, first: Any, rng: random.Random) -> float:
    """``first``, then the quick policy to the deal's settlement: my balance's change,
    plus my share of what the pot gained (it carries over to the deals to come)."""
    s = world
    before, pot = s.balances[me], s.pot
    action = first
    while True:
        for e in decide(s, action):
            if type(e) is DealSettled:
                return e.balances[me] - before + (e.pot - pot) / s.table.players
            s = evolve(s, e)
        action = rollout_policy(s, rng)


def _action(me: int, body: Body) -> Any:
    kind = body["type"]
    if kind == "declare":
        return Declare(me, body["call"])
    if kind == "exchange":
        return Exchange(me, tuple(body["discard"]))
    return Play(me, body["card"])


def montecarlo(view: View, rng: random.Random, budget: int | None = None) -> Body:
    """The ``montecarlo`` bot for Bestia (``budget``: playouts, else the default for
    the table's size)."""
    legal = legal_bodies(view)
    budget = PLAYOUTS // len(view["hand_sizes"]) if budget is None else budget
    kind = legal[0]["type"]
    if kind == "deal" or len(legal) == 1:
        return dict(legal[0])
    preferred = heuristic(view, rng)
    if kind == "exchange":
        candidates = _exchange_candidates(view, legal)
    else:
        candidates = [preferred] + [dict(b) for b in legal if b != preferred]
    try:
        world = World(view)
    except ValueError:
        return preferred
    me = view["seat"]
    actions = [_action(me, b) for b in candidates]
    choice = search(actions, world.sample, lambda w, c, r: _playout(w, me, c, r), budget, rng)
    return candidates[actions.index(choice)]
