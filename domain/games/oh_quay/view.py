"""What each viewer may see (``docs/rules/oh-quay.md`` and ``docs/rules/common.md``, Hidden
information).

- The organiser sees everything.
- A seat sees its own canal; the top of the **opponent's** quay (never of its own: it
  faces away); sizes of every quay and canal; both score piles; every launched card and
  where it went. Of the opponent's canal it knows the cards the opponent loaded from the
  opponent's own quay (their top faced this seat), in place; ``null`` elsewhere.
- The public sees sizes, launched cards and score piles.
- Once a game is scored all its cards are public; the seed and salt stay secret until the
  match ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.games.common import headline_of, visible_events_by
from domain.games.oh_quay import layout
from domain.games.oh_quay.actions import body, legal_actions, to_act
from domain.games.oh_quay.cards import BIT
from domain.games.oh_quay.model import (
    FINISHED,
    OWN,
    WAITING_FOR_DEAL,
    CargoLoaded,
    DealScored,
    DealStarted,
    State,
    Viewer,
)
from domain.table import ORGANISER


def headline(state: State) -> dict[str, Any]:
    """What a table's summary shows that play changes (``common.headline_of``)."""
    s = state
    return headline_of(s.phase, s.deal, s.totals, s.ranking)


def view(state: State, viewer: Viewer = None, legal: bool = True) -> dict[str, Any]:
    """The state as ``viewer`` may see it, JSON-ready (``legal=False``: no legal actions,
    which a bot's observation makes one at a time: ``domain.bots.observation``)."""
    s = state
    head = headline(s)
    everything = viewer == ORGANISER or s.phase in (WAITING_FOR_DEAL, FINISHED)
    canals: list[list[str | None]] = []
    hands: list[list[str] | None] = []
    quays: list[dict[str, Any]] = []
    for seat in layout.SEATS:
        canal = s.canals[seat]
        if everything or viewer == seat:
            canals.append(list(canal))
            hands.append(list(canal))
        else:
            known = s.known[seat] if viewer == 1 - seat else 0
            canals.append([c if known & BIT[c] else None for c in canal])
            hands.append(None)
        quay = s.quays[seat]
        sees_top = everything or viewer == 1 - seat
        quays.append(
            {
                "size": len(quay),
                "top": quay[0] if quay and sees_top else None,
                "cards": list(quay) if everything else None,
            }
        )
    if viewer == ORGANISER:
        actors: Iterable[int] = layout.SEATS
    elif isinstance(viewer, int):
        actors = (viewer,)
    else:
        actors = ()
    launch = None
    if s.raft:
        awaiting = to_act(s)
        launch = {
            "seat": s.player,
            "cards": list(s.raft),
            "kept": s.kept,
            "taken": s.taken,
            "awaiting": awaiting[0] if awaiting else None,
        }
    return {
        "game": "oh-quay",
        "variant": s.table.variant,
        "status": head["status"],
        "phase": s.phase,
        "deal": head["deal"],
        "dealer": s.starter,
        "starter": s.starter,
        "player": s.player if s.deal else None,
        "to_act": list(to_act(s)),
        "hands": hands,
        "hand_sizes": [len(c) for c in s.canals],
        "trick": {"leader": None, "cards": []},
        "quays": quays,
        "canals": canals,
        "score_piles": [list(p) for p in s.piles],
        "launch": launch,
        "turn": s.turns,
        "max_turns": s.max_turns,
        "scores": list(s.scores) if s.scores is not None else None,
        "emptied_by": s.emptied_by,
        "totals": head["totals"],
        "ranking": head["ranking"],
        "legal_actions": [body(a) for seat in actors for a in legal_actions(s, seat)]
        if legal
        else [],
    }


def _hidden(pile: Sequence[Any], shown: int = 0) -> tuple[Any, ...]:
    """``pile`` with every card after the first ``shown`` replaced by ``None``."""
    return (*pile[:shown], *(None,) * (len(pile) - shown))


def _hide_cards(events: Sequence[Any], viewer: Viewer) -> list[Any]:
    """The log as a seat or the public sees its cards: a game's cards are public once it is
    scored, and each card drawn from a quay uncovers the next top for the quay holder's
    opponent (``visible_events``)."""
    scored: set[int] = set()
    # per deal, per quay: cards drawn from it (each draw shows the next top)
    drawn: dict[int, list[int]] = {}
    deal = 0
    for e in events:
        kind = type(e)
        if kind is DealStarted:
            deal = e.deal
            drawn[deal] = [0, 0]
        elif kind is CargoLoaded:
            drawn[deal][e.seat if e.from_ == OWN else 1 - e.seat] += 1
        elif kind is DealScored:
            scored.add(deal)
    out: list[Any] = []
    for e in events:
        kind = type(e)
        if kind is DealStarted:
            deal = e.deal
            if deal in scored:
                out.append(e)
                continue
            quays, canals = [], []
            for seat in layout.SEATS:
                # a quay's original cards, top first, each seen by the holder's opponent
                # while on top
                opponent_sees = min(layout.PILE, drawn[deal][seat] + 1)
                quays.append(_hidden(e.quays[seat], opponent_sees if viewer == 1 - seat else 0))
                canal = e.canals[seat]
                canals.append(tuple(canal) if viewer == seat else _hidden(canal))
            out.append(e._replace(quays=tuple(quays), canals=tuple(canals)))
        elif kind is CargoLoaded and deal not in scored:
            # the loader saw the card; so did its opponent if it came from the loader's own
            # quay, whose top faced them; the public never
            seen = viewer == e.seat or (viewer == 1 - e.seat and e.from_ == OWN)
            out.append(e if seen else e._replace(card=None))
        else:
            out.append(e)
    return out


#: The whole log as a viewer may see it (the seed and salt: ``domain.games.common``).
visible_events = visible_events_by(_hide_cards)
