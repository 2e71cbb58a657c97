"""Actions as JSON bodies (``docs/api.md``), the legal actions of a seat, and who is to act.

``legal_actions`` returns complete actions, each of which ``decide`` accepts now. Play
and declare actions are built once and shared, since self-play asks for them millions
of times; the exchanges (every subset of the hand up to ``max_exchange``) are built
only when looked at.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from itertools import combinations
from typing import Any, overload

from domain.actions import action_body, parse_action
from domain.games.action_specs import CARD, CARDS, PILES, SEAT, ActionSpec, kinds_of, word
from domain.games.bestia.cards import NAMES, names_of
from domain.games.bestia.model import Action, Deal, Declare, Exchange, Play, State
from domain.games.bestia.options import MAX_PLAYERS
from domain.games.bestia.settle import match_over
from domain.games.bestia.tricks import legal_mask

#: Every kind of action, its fields and their JSON types (``docs/api.md``, Acting at a table).
ACTIONS: Mapping[str, ActionSpec] = {
    "deal": ActionSpec(Deal, {"hands": PILES, "muestra": CARD}),
    "declare": ActionSpec(Declare, {"seat": SEAT, "call": word("play", "pass")}),
    "exchange": ActionSpec(Exchange, {"seat": SEAT, "discard": CARDS, "drawn": CARDS}),
    "play": ActionSpec(Play, {"seat": SEAT, "card": CARD}),
}
_KINDS = kinds_of(ACTIONS)
TYPE_OF: dict[type, str] = {cls: name for name, cls in _KINDS.items()}


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def parse(body: Mapping[str, Any]) -> Action:
    """An action from its JSON body; unknown types and fields are refused by name."""
    return parse_action("Bestia", _KINDS, body, convert=_frozen)


def body(action: Action) -> dict[str, Any]:
    """The JSON body of an action (fields left at ``None`` are omitted)."""
    return action_body(TYPE_OF, action)


_DEAL = Deal()
_PLAYS = tuple(tuple(Play(seat, name) for name in NAMES) for seat in range(MAX_PLAYERS))
_DECLARES = tuple((Declare(seat, "play"), Declare(seat, "pass")) for seat in range(MAX_PLAYERS))


@cache
def _subsets(size: int, limit: int) -> tuple[tuple[int, ...], ...]:
    """Positions of every discard of up to ``limit`` of ``size`` cards, smallest first."""
    return tuple(c for k in range(min(size, limit) + 1) for c in combinations(range(size), k))


class _Exchanges(Sequence[Exchange]):
    """Every discard of up to ``max_exchange`` of the hand's cards (the empty one
    first), built only when looked at: a random player looks at one of 31."""

    def __init__(self, seat: int, cards: tuple[str, ...], limit: int) -> None:
        self.seat, self.cards = seat, cards
        self.subsets = _subsets(len(cards), limit)

    def __len__(self) -> int:
        return len(self.subsets)

    @overload
    def __getitem__(self, i: int) -> Exchange: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Exchange]: ...
    def __getitem__(self, i: int | slice) -> Exchange | Sequence[Exchange]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        cards = self.cards
        return Exchange(self.seat, tuple(cards[p] for p in self.subsets[i]))


def legal_actions(state: State, seat: int) -> Sequence[Action]:
    """Every action ``seat`` may take now (empty when it is not theirs to act)."""
    s = state
    phase = s.phase
    if phase == "playing":  # the hot path: rule 6
        trick = s.trick
        i = len(trick)
        order = s.order
        if i >= len(order) or order[i] != seat:
            return []
        held = s.hands[seat]
        row = _PLAYS[seat]
        mask = legal_mask(s, held) if i else held
        plays = []
        while mask:
            low = mask & -mask
            plays.append(row[low.bit_length() - 1])
            mask ^= low
        return plays
    if phase == "declaring":
        return _DECLARES[seat] if s.queue[0] == seat else []
    if phase == "exchanging":
        if s.queue[0] != seat:
            return []
        if not s.seeded:
            # Decision: in a recorded deal the drawn cards are facts of the physical
            # table; listing candidates would tell the seat which cards lie in the unseen
            # stock rather than in other hands, so only the empty exchange is listed.
            return [Exchange(seat, (), ())]
        return _Exchanges(seat, tuple(names_of(s.hands[seat])), s.rules.max_exchange)
    if phase == "waiting_for_deal" and seat == s.dealer and not match_over(s):
        return [_DEAL]
    return []


def to_act(state: State) -> tuple[int, ...]:
    """The seats the table waits for: one at a time in Bestia."""
    s = state
    phase = s.phase
    if phase == "playing":
        i = len(s.trick)
        return (s.order[i],) if i < len(s.order) else ()
    if phase in ("declaring", "exchanging"):
        return s.queue[:1]
    if phase == "waiting_for_deal" and not match_over(s):
        return (s.dealer,)
    return ()
