"""Oh Quay's bots (``docs/rules/oh-quay.md``, Strategy notes).

A canal is worth the rafts it can launch: the heuristic reads it front to back as a
chain of rafts (a common suit, rising ranks), counts a raft of three or more for the
points it will score, a short one as dead weight, and every card as a little debt
(an empty canal ends the game and scores the opponent's leftovers). It loads the known
top of the opponent's quay where it lengthens a raft most, or its own blind top where a
card of the unseen rest would do best on average, and launches what scores most now.

The Monte Carlo bot rebuilds the quays and the opponent's canal from the deal's log as
the seat saw it (every launched card's place is public, every card it loaded or saw on
the opponent's quay is known), deals the unseen cards into the blanks, and plays each
candidate a few turns ahead with a quick policy before scoring the position.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from domain.bots.common import legal_bodies, search
from domain.games.oh_quay.cards import DECK, RANK, raft_length
from domain.games.oh_quay.decide import decide
from domain.games.oh_quay.evolve import evolve
from domain.games.oh_quay.model import (
    LAUNCHING,
    LOADING,
    OPPONENT,
    OWN,
    TAKING,
    DealScored,
    Launch,
    Load,
    State,
    Take,
)
from domain.match import MatchRules
from domain.table import SeatSpec, Table

View = Mapping[str, Any]
Body = dict[str, Any]

#: Playouts per decision (``bench/bots.py``: under 50 ms at the 95th percentile).
DEFAULT_BUDGET = 112
#: Turns a playout looks ahead before the position is scored.
HORIZON = 4
#: Candidates the search compares, the heuristic's best first.
WIDTH = 10
CARD_DEBT = 0.25


# --- the value of a canal -------------------------------------------------------------------


def canal_value(canal: Sequence[str]) -> float:
    """The canal read as a chain of rafts: points to come for rafts of three or more,
    a little debt for each card (the canal must empty)."""
    value = -CARD_DEBT * len(canal)
    i = 0
    while i < len(canal):
        n = raft_length(canal[i:])
        value += 0.85 * (n - 2) if n >= 3 else (-0.3 if n == 2 else -0.6)
        i += n
    return value


def best_launch(canal: Sequence[str], opponent_canal: int) -> tuple[float, int]:
    """(value, count) of the best launch from ``canal``: the points it scores now
    (``count - 2`` for a raft of three or more) plus what the rest is worth; emptying the
    canal ends the game and scores the opponent's canal too."""
    longest = raft_length(canal)
    best, count = float("-inf"), 1
    for n in range(1, longest + 1):
        points = n - 2 if n >= 3 else 0
        if n == len(canal):
            value = points + opponent_canal + 2.0
        else:
            value = points + canal_value(canal[n:])
        if value > best:
            best, count = value, n
    return best, count


def _inserted(canal: Sequence[str], position: int, card: str) -> list[str]:
    return [*canal[:position], card, *canal[position:]]


class Knowledge:
    """The seat's observation in the game's terms."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.me: int = view["seat"]
        me, opp = self.me, 1 - self.me
        self.canal: list[str] = list(view["canals"][me])
        self.opponent_canal: list[str | None] = list(view["canals"][opp])
        self.top: str | None = view["quays"][opp]["top"]
        known = set(self.canal) | {c for c in self.opponent_canal if c}
        for pile in view["score_piles"]:
            known.update(pile)
        if self.top:
            known.add(self.top)
        launch = view.get("launch")
        if launch:
            known.update(launch["cards"])
        self.unseen = [c for c in DECK if c not in known]


def _load_values(k: Knowledge, legal: Sequence[Body]) -> list[tuple[float, Body]]:
    """Each legal load with the value of the best launch after it; a load from one's
    own quay (blind) is averaged over the cards it could bring."""
    opponent_canal = len(k.opponent_canal)
    out = []
    for body in legal:
        pos = body["position"]
        if body["from"] == OPPONENT and k.top is not None:
            value = best_launch(_inserted(k.canal, pos, k.top), opponent_canal)[0]
        else:
            pool = k.unseen or [k.top or DECK[0]]
            value = sum(
                best_launch(_inserted(k.canal, pos, c), opponent_canal)[0] for c in pool
            ) / len(pool)
        out.append((value, body))
    return out


def _keep_value(card: str) -> float:
    """A low card starts rafts: the one worth keeping (or taking) for one's quay."""
    return -RANK[card]


def ranked(view: View, legal: Sequence[Body]) -> list[Body]:
    """The legal actions, best first by the heuristic."""
    kind = legal[0]["type"]
    if kind == "load":
        k = Knowledge(view)
        scored = _load_values(k, legal)
        order = sorted(range(len(scored)), key=lambda i: (-scored[i][0], i))
        return [scored[i][1] for i in order]
    if kind == "launch":
        k = Knowledge(view)
        opponent_canal = len(k.opponent_canal)

        def launch_value(b: Body) -> tuple[float, float]:
            n = b["count"]
            canal = k.canal
            points = n - 2 if n >= 3 else 0
            rest = opponent_canal + 2.0 if n == len(canal) else canal_value(canal[n:])
            keep = _keep_value(b["keep"]) if "keep" in b else 0.0
            return (points + rest, keep)

        return sorted(legal, key=lambda b: tuple(-x for x in launch_value(b)))
    if kind == "take":
        return sorted(legal, key=lambda b: (-_keep_value(b["card"]), b["card"]))
    return list(legal)


def heuristic(view: View, rng: random.Random) -> Body:
    """The ``heuristic`` bot for Oh Quay."""
    return dict(ranked(view, legal_bodies(view))[0])


# --- Monte Carlo ------------------------------------------------------------------------------


def _rebuild(view: View) -> tuple[list[list[str | None]], list[list[str | None]]] | None:
    """The quays (top first) and canals (front first) as the seat knows them, from the
    deal's log: ``None`` where a card is unknown. ``None`` if the log does not agree
    with the view (then the view alone is used)."""
    log = view["log"]
    if not log or log[0]["type"] != "DealStarted":
        return None
    start = log[0]["data"]
    quays = [list(q) for q in start["quays"]]
    canals = [list(c) for c in start["canals"]]
    for event in log[1:]:
        kind, d = event["type"], event["data"]
        if kind == "CargoLoaded":
            seat = d["seat"]
            source = seat if d["from"] == OWN else 1 - seat
            if not quays[source]:
                return None
            top = quays[source].pop(0)
            canals[seat].insert(d["position"], d["card"] if d["card"] is not None else top)
        elif kind == "RaftLaunched":
            seat = d["seat"]
            canals[seat] = canals[seat][len(d["cards"]) :]
            quays[seat].append(d["kept"])
        elif kind == "RaftCardTaken":
            quays[d["seat"]].append(d["card"])
    me, opp = view["seat"], 1 - view["seat"]
    if canals[me] != list(view["canals"][me]):
        return None
    if len(canals[opp]) != len(view["canals"][opp]):
        return None
    for i, c in enumerate(view["canals"][opp]):
        if c is not None:
            canals[opp][i] = c
    top = view["quays"][opp]["top"]
    if top is not None and quays[opp]:
        quays[opp][0] = top
    for seat in (0, 1):
        if len(quays[seat]) != view["quays"][seat]["size"]:
            return None
    return quays, canals


class World:
    """A sampler of full positions consistent with the seat's knowledge."""

    def __init__(self, view: View) -> None:
        self.me = view["seat"]
        rebuilt = _rebuild(view)
        if rebuilt is None:
            quays: list[list[str | None]] = [
                [q["top"]] + [None] * (q["size"] - 1) if q["top"] else [None] * q["size"]
                for q in view["quays"]
            ]
            canals: list[list[str | None]] = [list(c) for c in view["canals"]]
        else:
            quays, canals = rebuilt
        launch = view.get("launch")
        known = {c for pile in (*quays, *canals) for c in pile if c is not None}
        for pile in view["score_piles"]:
            known.update(pile)
        if launch:
            known.update(launch["cards"])
        self.pool = [c for c in DECK if c not in known]
        self.quays, self.canals = quays, canals
        blanks = sum(1 for pile in (*quays, *canals) for c in pile if c is None)
        if blanks != len(self.pool):
            raise ValueError("the observation does not add up to a deck")
        self.table = Table(
            "oh-quay",
            view["variant"],
            (SeatSpec(name="0"), SeatSpec(name="1")),
            MatchRules(target_score=None, max_deals=10**6),
            seed="determinized",
        )
        self.view = view
        self.launch = launch

    def sample(self, rng: random.Random) -> State:
        pool = self.pool[:]
        rng.shuffle(pool)
        it = iter(pool)

        def fill(pile: list[str | None]) -> tuple[str, ...]:
            return tuple(c if c is not None else next(it) for c in pile)

        quays = (fill(self.quays[0]), fill(self.quays[1]))
        canals = (fill(self.canals[0]), fill(self.canals[1]))
        v, launch = self.view, self.launch
        return State(
            table=self.table,
            max_turns=v["max_turns"],
            phase=v["phase"],
            deal=v["deal"],
            starter=v["starter"],
            player=v["player"],
            turns=v["turn"],
            quays=quays,
            canals=canals,
            known=(0, 0),
            piles=tuple(tuple(p) for p in v["score_piles"]),
            raft=tuple(launch["cards"]) if launch else (),
            kept=launch["kept"] if launch else None,
            taken=launch["taken"] if launch else None,
            totals=tuple(v["totals"]),
            scores=None,
            emptied_by=None,
            ranking=None,
        )


def rollout_policy(s: State, rng: random.Random) -> Any:
    """The quick policy playouts use, the heuristic without its averaging: load the
    opponent's known top where it does most, unless a blind card at the back of one's
    own canal promises as much; launch what scores most now; take a low card."""
    seat = s.player
    phase = s.phase
    if phase == TAKING:
        kept = s.kept
        return Take(1 - seat, min((c for c in s.raft if c != kept), key=RANK.__getitem__))
    canal = s.canals[seat]
    other = len(s.canals[1 - seat])
    if phase == LOADING:
        top = s.quays[1 - seat][0] if s.quays[1 - seat] else None
        if not s.quays[seat] and top is None:
            raise AssertionError("both quays empty")
        if top is None:
            return Load(seat, OWN, len(canal))
        best, where = float("-inf"), 0
        for pos in range(len(canal) + 1):
            value = best_launch(_inserted(canal, pos, top), other)[0]
            if value > best:
                best, where = value, pos
        blind = best_launch(canal, other)[0] - CARD_DEBT - 0.3 if canal else best
        if s.quays[seat] and blind > best:
            return Load(seat, OWN, len(canal))
        return Load(seat, OPPONENT, where)
    count = best_launch(canal, other)[1]
    if count == 1:
        return Launch(seat, 1)
    return Launch(seat, count, min(canal[:count], key=RANK.__getitem__))


def _playout(world: State, me: int, first: Any, rng: random.Random) -> float:
    """``first``, then ``HORIZON`` turns of the quick policy; the score margin so far
    plus what the two canals promise (exact once the game ends)."""
    s = world
    action = first
    start = s.turns
    while True:
        for e in decide(s, action):
            if type(e) is DealScored:
                return float(e.scores[me] - e.scores[1 - me])
            s = evolve(s, e)
        if s.turns - start >= HORIZON and s.phase == LOADING:
            break
        action = rollout_policy(s, rng)
    mine, theirs = s.canals[me], s.canals[1 - me]
    return len(s.piles[me]) - len(s.piles[1 - me]) + canal_value(mine) - canal_value(theirs)


def _action(me: int, body: Body) -> Any:
    kind = body["type"]
    if kind == "load":
        return Load(me, body["from"], body["position"])
    if kind == "launch":
        return Launch(me, body["count"], body.get("keep"))
    return Take(me, body["card"])


def montecarlo(view: View, rng: random.Random, budget: int = DEFAULT_BUDGET) -> Body:
    """The ``montecarlo`` bot for Oh Quay."""
    legal = legal_bodies(view)
    if view["phase"] not in (LOADING, LAUNCHING, TAKING) or len(legal) == 1:
        return dict(legal[0])
    best = ranked(view, legal)[:WIDTH]
    try:
        world = World(view)
    except ValueError:
        return dict(best[0])
    me = view["seat"]
    candidates = [_action(me, b) for b in best]
    choice = search(candidates, world.sample, lambda w, c, r: _playout(w, me, c, r), budget, rng)
    return dict(best[candidates.index(choice)])
