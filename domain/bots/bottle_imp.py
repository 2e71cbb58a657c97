"""The Bottle Imp's bots (``docs/rules/bottle-imp.md``, Strategy notes).

The heuristic weighs each legal card by what it does to the trick and the bottle: a
card below the price that buys the bottle is worth its trick only if enough lower cards
are still out for someone else to buy it back; a low card dropped under somebody else's
purchase is a danger shed for free; a high card wins coins when nobody can go under.
Before the tricks it passes its lowest cards, lays a low card in the devil's trick when
it expects to keep the bottle and a rich one when it expects to escape.

The Monte Carlo bot samples the unseen cards (the other hands and the devil's trick)
consistently with everything the seat saw: its own cards, passes and discard, the
cards played, the open hands, and the suits a hand showed void of. It plays every
candidate out to the end of the deal with a quick rule-of-thumb policy and keeps the
best average score margin. Preparing (discards, passes, open hands) follows the
heuristic: the search is about the tricks.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any

from domain.bots.common import legal_bodies, search, weighted_fill
from domain.games.bottle_imp import layout
from domain.games.bottle_imp.actions import legal_actions
from domain.games.bottle_imp.cards import COINS, DECK, START_CARD, SUIT, mask_of
from domain.games.bottle_imp.decide import decide
from domain.games.bottle_imp.evolve import _turn, evolve
from domain.games.bottle_imp.model import DealScored, Play, State
from domain.match import MatchRules
from domain.table import SeatSpec, Table

View = Mapping[str, Any]
Body = dict[str, Any]

#: Playouts per decision, per variant: ``bench/bots.py`` keeps the 95th percentile of a
#: decision under 50 ms (Lopaka's automatic plays make its playouts dearer).
BUDGETS = {layout.STANDARD: 96, layout.LOPAKA: 60, layout.BRIGHT_HOUSE: 96}
#: Average coins of a card (126 coins / 36 cards).
MEAN_COINS = 3.5


# --- what the seat knows --------------------------------------------------------------------


class Knowledge:
    """The seat's observation, read once into the game's terms (and what every card's
    value shares, counted once: the heuristic weighs each legal card with it)."""

    def __init__(self, view: View) -> None:
        self.view = view
        me = self.me = view["seat"]
        variant = self.variant = view["variant"]
        bottle = view["bottle"]
        price = self.price = bottle["price"]
        self.owner: int | None = bottle["owner"]
        trick = self.trick = [c["card"] for c in view["trick"]["cards"]]
        seats = len(view["totals"])
        self.players = 2 if variant != layout.STANDARD else seats
        self.trick_size = {layout.LOPAKA: 3, layout.BRIGHT_HOUSE: 4}.get(variant, seats)
        hands = view["hands"]
        self.mine: list[int] = sorted(_cards(hands[me]))
        won = view["won"]
        played: set[int] = set(trick)
        for pile in won:
            played.update(pile)
        if price != START_CARD:
            played.add(price)
        self.played = played
        discarded = _cards(view["discards"][me])
        known = set(self.mine) | played | set(discarded)
        known |= set(_cards(view["passes"][me]))
        seen_in_hands = 0
        for seat, hand in enumerate(hands):
            if hand is not None:
                cards = _cards(hand)
                seen_in_hands += len(cards)
                if seat != me:
                    known |= set(cards)
        #: In the deck's (ascending) order, so ``bisect`` counts the unseen cards under one.
        self.unseen = [c for c in DECK if c not in known]
        hidden_in_hands = sum(_total(view["hand_sizes"])) - seen_in_hands
        devil_size = view["devil_trick_size"]
        devil_unknown = devil_size - len(discarded)
        total = max(1, hidden_in_hands + devil_unknown)
        #: Of the unseen cards, the share that lies in somebody's hand (the rest: devil).
        self.in_hands = max(0.0, hidden_in_hands) / total
        #: What ending with the bottle costs: the coins won so far and to come, and the
        #: devil's trick.
        self.cost = sum(COINS[c] for c in won[me]) + MEAN_COINS * (len(self.mine) + devil_size) + 10
        self.trick_coins = sum(COINS[c] for c in trick)
        #: The card under the price that buys the bottle in this trick so far, if any.
        self.buyer = max((c for c in trick if c < price), default=None)
        self.top = max(trick, default=0)
        self.baseline = self.risk(price) if self.owner == me else 0.0

    def below(self, card: int) -> int:
        """How many unseen cards are lower than ``card``."""
        return bisect_left(self.unseen, card)

    def lower_out(self, card: int) -> float:
        """How many cards below ``card`` others may still play: they can buy the bottle
        back from whoever buys it with ``card``."""
        return bisect_left(self.unseen, card) * self.in_hands

    def risk(self, price: int) -> float:
        """Rough chance of ending the deal with the bottle bought at ``price``."""
        return 1.0 / (1.0 + 0.8 * self.lower_out(price))

    def bottle_cost(self) -> float:
        """What ending with the bottle costs: the coins won so far and to come, and
        the devil's trick."""
        return self.cost


def _cards(value: Any) -> list[int]:
    """Cards of a per-seat entry: a list, a card, ``None``, or Bright House's piles."""
    if value is None:
        return []
    if type(value) is list:  # the usual entry first: no abstract-class checks
        return [c for c in value if c is not None]
    if isinstance(value, int):
        return [value]
    if isinstance(value, Mapping):
        return [c for pile in value.values() for c in _cards(pile)]
    return [c for c in value if c is not None]


def _total(sizes: Sequence[Any]) -> list[int]:
    return [sum(s.values()) if isinstance(s, Mapping) else s for s in sizes]


# --- the heuristic ------------------------------------------------------------------------


def _card_value(k: Knowledge, card: int) -> float:
    """The heuristic worth of playing ``card`` to the current trick."""
    price = k.price
    after = k.trick_size - len(k.trick) - 1  # hands still to play after this card
    coins = k.trick_coins + COINS[card]
    cost = k.cost
    buyer = k.buyer
    if buyer is not None and card < buyer:
        # Rule 4: the higher card under the price buys it, not mine: a low card shed free.
        return 0.6 * cost * k.risk(card) / (1 + len(k.mine)) - 0.3 * COINS[card]
    if card < price:
        # I would buy the bottle at ``card``, unless somebody after me plays between.
        between = (k.below(price) - k.below(card + 1)) * k.in_hands
        overtaken = min(0.9, after * between / max(1, len(k.unseen))) if after else 0.0
        keep = 1.0 - overtaken
        risk = k.risk(card)
        return keep * ((1 - risk) * coins - (risk - k.baseline) * cost)
    if buyer is not None:
        return -0.5 * COINS[card] - 0.5  # the buyer takes it; a good card given away
    if card > k.top:
        # Highest so far and nobody under the price: mine unless someone goes higher
        # or under the price.
        chance = 1.0 if not after else 0.35 + 0.1 * (card - price) / (37 - price + 1)
        return chance * coins - 0.3 * COINS[card]
    return -0.4 * COINS[card] + 0.2  # a card that loses the trick: cheap ones best


def _lead_value(k: Knowledge, card: int) -> float:
    """Leading: a card just under a high price sheds early while others can still buy
    back; a high card is safe but may hand the trick to a card under the price."""
    if card < k.price:
        return _card_value(k, card) - 1.0
    return 0.25 * MEAN_COINS * k.trick_size - 0.3 * COINS[card] - 0.05 * (card - k.price)


def _best_play(k: Knowledge, plays: Sequence[Body]) -> list[Body]:
    """The legal plays, best first by the heuristic."""
    value = _lead_value if not k.trick else _card_value
    return sorted(plays, key=lambda b: (-value(k, b["card"]), b["card"]))


def _dealt(view: View, me: int, pile: str | None) -> list[int]:
    """The cards a hand was dealt (for planning the preparation): what it holds now,
    less what it received, plus what it laid down or passed already."""

    def part(entry: Any) -> list[int]:
        if pile is not None and isinstance(entry, Mapping):
            return _cards(entry.get(pile))
        return _cards(entry)

    received = set(part(view["received"][me]))
    held = [c for c in part(view["hands"][me]) if c not in received]
    return sorted(held + part(view["discards"][me]) + part(view["passes"][me]))


def _plan(cards: list[int], passes: int) -> tuple[int | None, list[int]]:
    """(the devil's-trick card, the cards to pass) for a dealt hand.

    Pass the lowest cards (low yellows above all): they are the ones that buy the bottle
    at a low price. Lay down a low card when the hand is still full of low cards (likely
    to keep the bottle: a poor devil's trick loses less), else the richest card that is
    not a trick winner, which costs whoever ends with the bottle."""
    by_danger = sorted(cards, key=lambda c: (c + (4 if SUIT[c] else 0), c))
    passed = by_danger[:passes]
    rest = [c for c in cards if c not in passed]
    low = sum(1 for c in rest if c < 10)
    if low >= 3:
        devil = min(rest, key=lambda c: (COINS[c], c))
    else:
        middle = [c for c in rest if c < 30] or rest
        devil = max(middle, key=lambda c: (COINS[c], -c))
    return devil, passed


def _prepare(view: View, legal: Sequence[Body]) -> Body:
    """Rule 2 and the variants' exchanges, from the plan of each hand."""
    me = view["seat"]
    for body in legal:
        pile = body.get("hand")
        dealt = _dealt(view, me, pile)
        passes = 2 if view["variant"] == layout.STANDARD else 1
        devil, passed = _plan(dealt, passes)
        if body["type"] == "discard":
            return {"type": "discard", "seat": me, "card": devil, **_pile(pile)}
        if body["type"] == "pass":
            if view["variant"] == layout.STANDARD:
                return {"type": "pass", "seat": me, "left": passed[0], "right": passed[1]}
            key = "card" if view["variant"] == layout.BRIGHT_HOUSE else "opponent"
            return {"type": "pass", "seat": me, key: passed[0], **_pile(pile)}
    return legal[0]


def _pile(pile: str | None) -> dict[str, str]:
    return {"hand": pile} if pile is not None else {}


def _choose_open(view: View) -> Body:
    """Bright House: show the pile with the higher cards; the low, dangerous cards play
    from the hidden pile, after seeing more of each trick."""
    piles = view["hands"][view["seat"]]
    hand = max(("A", "B"), key=lambda p: (sum(piles[p]) / max(1, len(piles[p])), p == "A"))
    return {"type": "choose_open", "seat": view["seat"], "hand": hand}


def heuristic(view: View, rng: random.Random) -> Body:
    """The ``heuristic`` bot for The Bottle Imp."""
    legal = legal_bodies(view)
    kind = legal[0]["type"]
    if kind == "play":
        return _best_play(Knowledge(view), legal)[0]
    if kind == "choose_open":
        return _choose_open(view)
    if kind in ("discard", "pass"):
        return _prepare(view, legal)
    return legal[0]


# --- Monte Carlo ----------------------------------------------------------------------------


def _voids(view: View) -> dict[int, set[int]]:
    """Suits each hand slot showed it lacks this deal (rule 3: it did not follow)."""
    variant = view["variant"]
    out: dict[int, set[int]] = {}
    led: int | None = None
    for event in view["log"]:
        kind, data = event["type"], event["data"]
        if kind == "CardPlayed":
            suit = SUIT[data["card"]]
            if led is None:
                led = suit
            elif suit != led:
                slot = layout.slot_of(variant, data["seat"], data.get("hand"))
                out.setdefault(slot, set()).add(led)
        elif kind == "TrickCompleted":
            led = None
    return out


class World:
    """A sampler of full deals consistent with the seat's knowledge."""

    def __init__(self, view: View) -> None:
        k = Knowledge(view)
        self.k = k
        variant, me = k.variant, k.me
        players = k.players
        self.table = Table(
            "bottle-imp",
            variant,
            tuple(SeatSpec(name=str(i)) for i in range(players)),
            MatchRules(target_score=None, max_deals=10**6),
            seed="determinized",
        )
        nslots = layout.slots(variant, players)
        sizes: list[int] = []
        known: list[list[int]] = []
        for slot in range(nslots):
            seat, pile = layout.owner(variant, slot), layout.hand_name(variant, slot)
            size = view["hand_sizes"][seat]
            entry = view["hands"][seat]
            if pile is not None:
                size, entry = size[pile], (entry or {}).get(pile) if entry else None
            sizes.append(size)
            known.append(list(entry) if entry is not None else [])
        # Cards this seat passed sit in the receiver's hand until played.
        for slot, cards in self._passed(view).items():
            known[slot] += [c for c in cards if c not in k.played and c not in known[slot]]
        self.known = known
        self.open = [len(known[s]) == sizes[s] for s in range(nslots)]
        self.capacity = [sizes[s] - len(known[s]) for s in range(nslots)]
        my_discards = _cards(view["discards"][me])
        self.devil_known = my_discards if variant != layout.LOPAKA else []
        self.capacity.append(view["devil_trick_size"] - len(self.devil_known))
        placed = {c for cards in known for c in cards}
        self.pool = [c for c in k.unseen if c not in placed]
        if sum(self.capacity) != len(self.pool):
            raise ValueError("the observation does not add up to a deck")
        self.voids = _voids(view)
        self.nslots = nslots
        trick = view["trick"]
        self.base = dict(
            deal=view["deal"],
            dealer=view["dealer"],
            totals=tuple(view["totals"]),
            leader=trick["leader"],
            trick=tuple(k.trick),
            tricks=view["tricks_played"],
            price=k.price,
            owner=k.owner,
            won=tuple(mask_of(w) for w in view["won"]),
            open_hands=tuple(view["open_hands"] or (None,) * players),
        )

    def _passed(self, view: View) -> dict[int, list[int]]:
        k = self.k
        me, variant = k.me, k.variant
        mine = view["passes"][me]
        if not mine or view["phase"] == "preparing":
            return {}
        if variant == layout.STANDARD:
            return {(me + 1) % k.players: [mine[0]], (me - 1) % k.players: [mine[1]]}
        if variant == layout.LOPAKA:
            return {1 - me: list(mine)}
        return {
            layout.slot_of(variant, 1 - me, pile): list(cards)
            for pile, cards in mine.items()
            if cards
        }

    def allowed(self, slot: int, card: int) -> bool:
        return slot >= self.nslots or SUIT[card] not in self.voids.get(slot, ())

    def sample(self, rng: random.Random) -> State:
        bins = weighted_fill(self.pool, self.capacity, self.allowed, rng)
        hands = tuple(mask_of(self.known[s] + bins[s]) for s in range(self.nslots))
        devil = tuple(sorted(self.devil_known + bins[-1]))
        b = self.base
        t = self.table
        order = layout.trick_order(t.variant, t.players, b["dealer"], b["leader"], b["open_hands"])
        return State(
            table=t,
            phase="playing",
            deal=b["deal"],
            dealer=b["dealer"],
            totals=b["totals"],
            hands=hands,
            received=(0,) * self.nslots,
            discards=(None,) * self.nslots,
            passes=(None,) * self.nslots,
            devil=devil,
            open_hands=b["open_hands"],
            leader=b["leader"],
            order=order,
            turn=_turn(t.variant, order),
            trick=b["trick"],
            tricks=b["tricks"],
            price=b["price"],
            owner=b["owner"],
            won=b["won"],
            scores=None,
            ranking=None,
        )


def rollout_policy(s: State, actions: Sequence[Play], rng: random.Random) -> Play:
    """The quick policy playouts use: shed under another's purchase, keep clear of the
    bottle with a card at or above the price, win a trick when last, buy only with the
    highest card under the price. One move in five is random, to keep it humble."""
    if len(actions) == 1:
        return actions[0]
    if rng.random() < 0.2:
        return actions[rng.randrange(len(actions))]
    price, trick = s.price, s.trick
    buyer = 0
    for c in trick:
        if buyer < c < price:
            buyer = c
    low = high = None
    shed = None
    for a in actions:
        c = a.card
        if c < buyer:
            if shed is None or c < shed.card:
                shed = a
        elif c >= price:
            if low is None or c < low.card:
                low = a
            if high is None or c > high.card:
                high = a
    if shed is not None:
        return shed
    if low is not None:
        last = len(trick) == len(s.order) - 1
        return high if last and not buyer and high is not None else low
    return max(actions, key=lambda a: a.card)


def _playout(world: State, me: int, first: Play, rng: random.Random) -> float:
    """Play ``first`` then everything to the deal's score: my score less the others' mean."""
    s = world
    action: Any = first
    while True:
        for e in decide(s, action):
            if type(e) is DealScored:
                scores = e.scores
                ranked = range(s.table.players)
                others = [scores[o] for o in ranked if o != me]
                return scores[me] - sum(others) / len(others)
            s = evolve(s, e)
        seat = s.turn[len(s.trick)]
        action = rollout_policy(s, legal_actions(s, seat), rng)  # type: ignore[arg-type]


def montecarlo(view: View, rng: random.Random, budget: int | None = None) -> Body:
    """The ``montecarlo`` bot for The Bottle Imp (``budget``: playouts, else the
    variant's default)."""
    legal = legal_bodies(view)
    budget = BUDGETS.get(view["variant"], 64) if budget is None else budget
    if legal[0]["type"] != "play" or len(legal) == 1:
        return heuristic(view, rng)
    k = Knowledge(view)
    ranked = _best_play(k, legal)
    try:
        world = World(view)
    except ValueError:
        return ranked[0]
    me = k.me
    candidates = [Play(me, b["card"], b.get("hand")) for b in ranked]
    choice = search(candidates, world.sample, lambda w, c, r: _playout(w, me, c, r), budget, rng)
    return ranked[candidates.index(choice)]
