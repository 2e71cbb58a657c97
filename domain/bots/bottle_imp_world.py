"""What a Bottle Imp seat knows, and the deals consistent with it, for the Monte Carlo bot to
play out (``domain.bots.bottle_imp``; ``docs/rules/bottle-imp.md``, Strategy notes).

``Knowledge`` reads the seat's observation once into the game's terms (the heuristic weighs
every legal card with it). A ``World`` samples the unseen cards (the other hands and the
devil's trick) consistently with everything the seat saw: its own cards, passes and
discard, the cards played, the open hands, and the suits a hand showed void of.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any

from domain.bots.common import weighted_fill
from domain.games.bottle_imp import layout
from domain.games.bottle_imp.cards import COINS, DECK, START_CARD, SUIT, mask_of
from domain.games.bottle_imp.evolve import _turn
from domain.games.bottle_imp.model import State
from domain.match import MatchRules
from domain.table import SeatSpec, Table

View = Mapping[str, Any]

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
        self.mine: list[int] = sorted(cards_in(hands[me]))
        won = view["won"]
        played: set[int] = set(trick)
        for pile in won:
            played.update(pile)
        if price != START_CARD:
            played.add(price)
        self.played = played
        discarded = cards_in(view["discards"][me])
        known = set(self.mine) | played | set(discarded)
        known |= set(cards_in(view["passes"][me]))
        seen_in_hands = 0
        for seat, hand in enumerate(hands):
            if hand is not None:
                cards = cards_in(hand)
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


def cards_in(value: Any) -> list[int]:
    """Cards of a per-seat entry: a list, a card, ``None``, or Bright House's piles."""
    if value is None:
        return []
    if type(value) is list:  # the usual entry first: no abstract-class checks
        return [c for c in value if c is not None]
    if isinstance(value, int):
        return [value]
    if isinstance(value, Mapping):
        return [c for pile in value.values() for c in cards_in(pile)]
    return [c for c in value if c is not None]


def _total(sizes: Sequence[Any]) -> list[int]:
    return [sum(s.values()) if isinstance(s, Mapping) else s for s in sizes]


# --- the deals it may be ------------------------------------------------------------------


def voids(view: View) -> dict[int, set[int]]:
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
        my_discards = cards_in(view["discards"][me])
        self.devil_known = my_discards if variant != layout.LOPAKA else []
        self.capacity.append(view["devil_trick_size"] - len(self.devil_known))
        placed = {c for cards in known for c in cards}
        self.pool = [c for c in k.unseen if c not in placed]
        if sum(self.capacity) != len(self.pool):
            raise ValueError("the observation does not add up to a deck")
        self.voids = voids(view)
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
