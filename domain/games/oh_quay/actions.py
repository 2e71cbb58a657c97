"""Actions as JSON bodies (``docs/api.md``) and the legal actions of a seat.

``legal_actions`` returns complete actions, each of which ``decide`` accepts now: every
``load`` with its quay and position, every ``launch`` with each valid ``keep``, every
``take``. The action objects are built once and shared (the loads even as whole
tuples), since self-play asks for them millions of times.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.actions import action_body, parse_action
from domain.games.action_specs import (
    CARD,
    NUMBER,
    PILES,
    SEAT,
    ActionSpec,
    kinds_of,
    renamed_of,
    word,
)
from domain.games.oh_quay.cards import DECK, RANK, SUIT_MASK
from domain.games.oh_quay.model import (
    LAUNCHING,
    LOADING,
    OPPONENT,
    OWN,
    SOURCES,
    TAKING,
    WAITING_FOR_DEAL,
    Action,
    CargoLoaded,
    Deal,
    DealStarted,
    Launch,
    Load,
    RaftCardTaken,
    RaftLaunched,
    State,
    Take,
)

#: Every kind of action, its fields and their JSON types (``docs/api.md``, Acting at a table).
ACTIONS: Mapping[str, ActionSpec] = {
    "deal": ActionSpec(Deal, {"quays": PILES, "canals": PILES}),
    "load": ActionSpec(Load, {"seat": SEAT, "from": word(*SOURCES), "position": NUMBER}),
    "launch": ActionSpec(Launch, {"seat": SEAT, "count": NUMBER, "keep": CARD}),
    "take": ActionSpec(Take, {"seat": SEAT, "card": CARD}),
}
_KINDS = kinds_of(ACTIONS)
TYPE_OF: dict[type, str] = {cls: name for name, cls in _KINDS.items()}
#: JSON names Python claims (a keyword, a tuple method) → tuple field: ``from`` → ``from_``.
_RENAMED = renamed_of(ACTIONS)


def parse(body: Mapping[str, Any]) -> Action:
    """An action from its JSON body; unknown types and fields are refused by name."""
    return parse_action("Oh Quay", _KINDS, body, renamed=_RENAMED)


def body(action: Action) -> dict[str, Any]:
    """The JSON body of an action (fields left at ``None`` are omitted)."""
    return action_body(TYPE_OF, action, _RENAMED)


# --- shared action objects ------------------------------------------------------------------

_MAX_CANAL = len(DECK)  # far above the real bound (ten cards after a load)
_DEAL = (Deal(),)


def _loads(seat: int, sources: int, size: int) -> tuple[Load, ...]:
    """Every load into a canal of ``size`` cards; ``sources``: bit 0 own quay, bit 1
    the opponent's quay holds cards."""
    return tuple(
        Load(seat, source, pos)
        for bit, source in ((1, OWN), (2, OPPONENT))
        if sources & bit
        for pos in range(size + 1)
    )


#: ``_LOADS[seat][sources][size]``
_LOADS = tuple(
    tuple(
        tuple(_loads(seat, sources, size) for size in range(_MAX_CANAL + 1)) for sources in range(4)
    )
    for seat in (0, 1)
)
_LAUNCH_ONE = (Launch(0, 1), Launch(1, 1))
#: ``_LAUNCHES[seat][count][card]``: launch ``count`` keeping ``card``.
_LAUNCHES = tuple(
    tuple({c: Launch(seat, count, c) for c in DECK} for count in range(11)) for seat in (0, 1)
)
_TAKES = tuple({c: Take(seat, c) for c in DECK} for seat in (0, 1))


def legal_actions(state: State, seat: int) -> Sequence[Action]:
    """Every action ``seat`` may take now (empty when it is not theirs to act)."""
    s = state
    phase = s.phase
    if phase == LOADING:
        if seat != s.player:
            return ()
        quays = s.quays
        sources = (1 if quays[seat] else 0) | (2 if quays[1 - seat] else 0)
        return _LOADS[seat][sources][len(s.canals[seat])]
    if phase == LAUNCHING:
        if seat != s.player:
            return ()
        canal = s.canals[seat]
        out: list[Action] = [_LAUNCH_ONE[seat]]
        first = canal[0]
        common, rank = SUIT_MASK[first], RANK[first]
        rows = _LAUNCHES[seat]
        for count in range(2, len(canal) + 1):
            c = canal[count - 1]
            common &= SUIT_MASK[c]
            r = RANK[c]
            if not common or r <= rank:
                break
            rank = r
            row = rows[count]
            out += [row[k] for k in canal[:count]]
        return out
    if phase == TAKING:
        if seat == s.player or len(s.raft) == 2:
            return ()
        kept, takes = s.kept, _TAKES[seat]
        return [takes[c] for c in s.raft if c != kept]
    if phase == WAITING_FOR_DEAL:
        return _DEAL if seat == s.starter else ()
    return ()


def to_act(state: State) -> tuple[int, ...]:
    """The seats the table waits for: the starter to deal, the player in turn to load
    and launch, the launcher's opponent to take; nobody while the engine moves."""
    s = state
    phase = s.phase
    if phase in (LOADING, LAUNCHING):
        return (s.player,)
    if phase == TAKING:
        return () if len(s.raft) == 2 else (1 - s.player,)
    if phase == WAITING_FOR_DEAL:
        return (s.starter,)
    return ()


def action_of(event: Any, state: State) -> Action | None:
    """The action an event records (for re-checking a log), or None for an event the engine
    causes by itself (the take of a two-card raft, ``RaftScored``, ``DealScored``, the
    match's end). ``state`` is the state just before ``event``."""
    kind = type(event)
    if kind is DealStarted:
        if event.seed is not None:
            return Deal()
        return Deal(quays=event.quays, canals=event.canals)
    if kind is CargoLoaded:
        return Load(event.seat, event.from_, event.position)
    if kind is RaftLaunched:
        n = len(event.cards)
        return Launch(event.seat, n, event.kept if n > 1 else None)
    if kind is RaftCardTaken:
        return None if len(state.raft) == 2 else Take(event.seat, event.card)
    return None
