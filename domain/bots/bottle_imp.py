"""The Bottle Imp's bots (``docs/rules/bottle-imp.md``, Strategy notes).

The heuristic weighs each legal card by what it does to the trick and the bottle: a
card below the price that buys the bottle is worth its trick only if enough lower cards
are still out for someone else to buy it back; a low card dropped under somebody else's
purchase is a danger shed for free; a high card wins coins when nobody can go under.
Before the tricks it passes its lowest cards, lays a low card in the devil's trick when
it expects to keep the bottle and a rich one when it expects to escape.

The Monte Carlo bot samples the unseen cards consistently with everything the seat saw
(``domain.bots.bottle_imp_world``). It plays every
candidate out to the end of the deal with a quick rule-of-thumb policy and keeps the
best average score margin. Preparing (discards, passes, open hands) follows the
heuristic: the search is about the tricks.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from domain.bots.bottle_imp_world import MEAN_COINS, Knowledge, View, World, cards_in
from domain.bots.common import legal_bodies, search
from domain.games.bottle_imp import layout
from domain.games.bottle_imp.actions import legal_actions
from domain.games.bottle_imp.cards import COINS, SUIT
from domain.games.bottle_imp.decide import decide
from domain.games.bottle_imp.evolve import evolve
from domain.games.bottle_imp.model import DealScored, Play, State

Body = dict[str, Any]

#: Playouts per decision, per variant: ``bench/bots.py`` keeps the 95th percentile of a
#: decision under 50 ms (Lopaka's automatic plays make its playouts dearer).
BUDGETS = {layout.STANDARD: 96, layout.LOPAKA: 60, layout.BRIGHT_HOUSE: 96}


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
            return cards_in(entry.get(pile))
        return cards_in(entry)

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
