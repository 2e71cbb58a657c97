"""Bestia's bots (``docs/rules/bestia.md``): the heuristic plays by the rules of thumb of
``domain.bots.bestia_cards``; the Monte Carlo bot deals the cards it cannot see as its
observation allows (``domain.bots.bestia_world``: the facts of play and what the others'
calls and exchanges say), plays each candidate out to the deal's settlement with the
heuristic for every seat, and keeps the best average change of its balance.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any

from domain.bots.bestia_cards import (
    declare,
    discard,
    ids,
    play,
    strength,
    trumps_of,
)
from domain.bots.bestia_world import World
from domain.bots.common import legal_bodies, search
from domain.games.bestia.cards import CARD_ID, NAMES, Trumps, ids_of
from domain.games.bestia.decide import decide
from domain.games.bestia.evolve import evolve
from domain.games.bestia.model import DealSettled, Declare, Exchange, Play, State
from domain.games.bestia.tricks import legal_mask

View = Mapping[str, Any]
Body = dict[str, Any]

#: Playouts per decision by players at the table (a playout grows with the table):
#: ``bench/bots.py`` keeps a decision's 95th percentile under 50 ms.
PLAYOUTS = {3: 270, 4: 230, 5: 200, 6: 185, 7: 170, 8: 160}
#: A player's balance moves by about ``SWING[0] + SWING[1] * pot`` chips a deal (its
#: standard deviation in heuristic play at 5 and 8 players: 6 to 27 chips for pots of 5
#: to 60).
SWING = (3.0, 0.4)
#: Standard errors by which a candidate must beat the heuristic's choice (``search``).
DOUBT = 1.0


def heuristic(view: View, rng: random.Random) -> Body:
    """The ``heuristic`` bot for Bestia."""
    legal = legal_bodies(view)
    kind = legal[0]["type"]
    me = view["seat"]
    if kind == "deal":
        return dict(legal[0])
    tt = trumps_of(view)
    hand = ids(view["hands"][me])
    if kind == "declare":
        calls = view["calls"]
        last = me == view["dealer"]
        call = declare(tt, hand, calls, last, view["pot"], len(calls))
        return {"type": "declare", "seat": me, "call": call}
    if kind == "exchange":
        return _matching_exchange(legal, discard(tt, hand, view["rules"]["max_exchange"]))
    cards = [CARD_ID[b["card"]] for b in legal]
    trick = [CARD_ID[c["card"]] for c in view["trick"]["cards"]]
    last = len(trick) == len(view["active"]) - 1
    need = view["tricks_won"][me] == 0
    return {"type": "play", "seat": me, "card": NAMES[play(tt, cards, trick, last, need)]}


def _matching_exchange(legal: Sequence[Body], laid: Sequence[int]) -> Body:
    """The legal exchange laying aside exactly ``laid`` (else the smallest one)."""
    wanted = {NAMES[c] for c in laid}
    for body in legal:
        if set(body["discard"]) == wanted:
            return dict(body)
    return dict(legal[0])


def _exchange_candidates(view: View, legal: Sequence[Body]) -> list[Body]:
    """The heuristic's discard and its shorter and longer neighbours, best first; then,
    for each suit the hand holds three or more of, everything else laid aside: a try
    for a mosca (rule 5), which takes the whole pot at once."""
    tt = trumps_of(view)
    me = view["seat"]
    hand = ids(view["hands"][me])
    limit = view["rules"]["max_exchange"]
    order = sorted(hand, key=lambda c: (strength(tt, c), c))
    preferred = len(discard(tt, hand, limit))
    sizes = sorted(range(limit + 1), key=lambda k: (abs(k - preferred), k))
    tries = []
    for suit in range(4):
        others = [c for c in order if tt.suit_of[c] != suit]
        if 0 < len(others) <= min(2, limit):
            tries.append(others)
    out: list[Body] = []
    for laid in [order[:k] for k in sizes] + tries:
        body = _matching_exchange(legal, laid)
        if body not in out:
            out.append(body)
    return out


# --- Monte Carlo ------------------------------------------------------------------------------


def rollout_policy(s: State) -> Any:
    """The heuristic on the state's own terms, cheap enough for playouts. It is
    deterministic: every candidate then meets the same replies in the same world, and
    only the worlds vary."""
    tt: Trumps = s.trumps  # type: ignore[assignment]
    phase = s.phase
    if phase == "playing":
        trick = s.trick
        seat = s.order[len(trick)]
        held = s.hands[seat]
        allowed = ids_of(legal_mask(s, held) if trick else held)
        last = len(trick) == len(s.order) - 1
        need = seat not in s.winners
        return Play(seat, NAMES[play(tt, allowed, trick, last, need)])
    seat = s.queue[0]
    cards = ids_of(s.hands[seat])
    if phase == "declaring":
        call = declare(tt, cards, s.calls, len(s.queue) == 1, s.pot, s.table.players)
        return Declare(seat, call)
    return Exchange(seat, tuple(NAMES[c] for c in discard(tt, cards, s.rules.max_exchange)))


def win_chance(balances: Sequence[int], me: int, pot: int, deals_left: int) -> float:
    """The chance that ``me`` ends the match first, from the balances after a deal: the
    whole point of a match, where chips are only the means. Each deal left moves a
    balance by about ``SWING`` of the pot it starts with (measured in heuristic play; a
    bestia pays the pot), independently per player: ``me`` wins when its own move beats
    every other's, averaged over its own move (``_MOVES``). After the last deal it is who
    is first (a tie shares)."""
    mine = balances[me]
    if deals_left <= 0:
        top = max(balances)
        return 1.0 / balances.count(top) if mine == top else 0.0
    spread = (SWING[0] + SWING[1] * pot) * math.sqrt(deals_left)
    leads = [(mine - other) / spread for seat, other in enumerate(balances) if seat != me]
    total = 0.0
    for move in _MOVES:
        chance = 1.0
        for lead in leads:
            chance *= _CDF(lead + move)
        total += chance
    return total / len(_MOVES)


_NORMAL = NormalDist()
_CDF = _NORMAL.cdf
#: ``me``'s own move in standard deviations: the midpoints of 16 equally likely slices.
_MOVES = tuple(_NORMAL.inv_cdf((k + 0.5) / 16) for k in range(16))


def deals_left(view: View) -> int:
    """Deals after the current one (a match to a target score: as many as a default
    match has)."""
    players = len(view["hand_sizes"])
    most = view["match"]["max_deals"] or 2 * players
    return max(0, most - view["deal"])


def _playout(world: State, me: int, first: Any, left: int) -> float:
    """``first``, then the heuristic for everyone to the deal's settlement; how likely
    ``me`` then is to win the match (``win_chance``)."""
    s = world
    action = first
    while True:
        for e in decide(s, action):
            if type(e) is DealSettled:
                ante = s.ante * s.table.players
                return win_chance(e.balances, me, e.pot + ante, left)
            s = evolve(s, e)
        action = rollout_policy(s)


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
    budget = PLAYOUTS[len(view["hand_sizes"])] if budget is None else budget
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
    left = deals_left(view)
    actions = [_action(me, b) for b in candidates]
    choice = search(
        actions, world.sample, lambda w, c, _: _playout(w, me, c, left), budget, rng, DOUBT
    )
    return candidates[actions.index(choice)]
