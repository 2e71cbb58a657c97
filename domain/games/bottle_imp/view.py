"""What each viewer may see (``docs/rules/common.md``, Hidden information).

The organiser sees everything; a seat sees its own hand(s), its own discards and
passes, and all public information; the public sees cards played, prices, owners,
scores and hand sizes. Lopaka's hand is public once the exchange is done, a Bright
House open pile once chosen, and everything of a deal once it is scored. The seed
and salt stay secret until the match ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.events import TableOpened
from domain.games.bottle_imp import layout
from domain.games.bottle_imp.actions import body, legal_actions, to_act
from domain.games.bottle_imp.cards import cards_of
from domain.games.bottle_imp.model import (
    ORGANISER,
    CardDiscarded,
    CardsPassed,
    DealScored,
    DealStarted,
    PassesDelivered,
    State,
    Viewer,
)
from domain.games.common import headline_of, visible_events_by


def _sees_slot(s: State, viewer: Viewer, slot: int) -> bool:
    variant = s.table.variant
    seat = layout.owner(variant, slot)
    if viewer in (ORGANISER, seat) or s.phase in ("waiting_for_deal", "finished"):
        return True
    if variant == layout.LOPAKA:
        return seat == layout.LOPAKA_SEAT and s.phase == "playing"
    if variant == layout.BRIGHT_HOUSE:
        return s.open_hands[seat] == layout.hand_name(variant, slot)
    return False


def _per_seat(s: State, values: Sequence[Any]) -> list[Any]:
    """Per-slot values as per-seat entries (Bright House: ``{"A": …, "B": …}``)."""
    if s.table.variant == layout.BRIGHT_HOUSE:
        return [{"A": values[2 * seat], "B": values[2 * seat + 1]} for seat in range(2)]
    return list(values)


def headline(state: State) -> dict[str, Any]:
    """What a table's summary shows that play changes (``common.headline_of``)."""
    s = state
    return headline_of(s.phase, s.deal, s.totals, s.ranking)


def view(state: State, viewer: Viewer = None, legal: bool = True) -> dict[str, Any]:
    """The state as ``viewer`` may see it, JSON-ready (``legal=False``: no legal actions,
    which a bot's observation makes one at a time: ``domain.bots.observation``)."""
    s = state
    head = headline(s)
    variant = s.table.variant
    slots = range(len(s.hands))
    everything = viewer == ORGANISER or s.phase in ("waiting_for_deal", "finished")
    own = {slot for slot in slots if everything or layout.owner(variant, slot) == viewer}
    hands = [list(cards_of(h)) if _sees_slot(s, viewer, i) else None for i, h in enumerate(s.hands)]
    discards = [s.discards[i] if i in own else None for i in slots]
    passes = [list(p) if i in own and (p := s.passes[i]) else None for i in slots]
    received = [list(cards_of(s.received[i])) if i in own else None for i in slots]
    if viewer == ORGANISER:
        actors: Iterable[int] = range(s.table.players)
    elif isinstance(viewer, int):
        actors = (viewer,)
    else:
        actors = ()
    return {
        "game": "bottle-imp",
        "variant": variant,
        "status": head["status"],
        "phase": s.phase,
        "deal": head["deal"],
        "dealer": s.dealer,
        "to_act": list(to_act(s)),
        "hands": _per_seat(s, hands),
        "hand_sizes": _per_seat(s, [h.bit_count() for h in s.hands]),
        "discards": _per_seat(s, discards),
        "passes": _per_seat(s, passes),
        "received": _per_seat(s, received),
        "open_hands": list(s.open_hands) if variant == layout.BRIGHT_HOUSE else None,
        "trick": {
            "leader": s.leader,
            "cards": [
                {"seat": layout.owner(variant, slot), "card": c}
                | (
                    {"hand": layout.hand_name(variant, slot)}
                    if variant == layout.BRIGHT_HOUSE
                    else {}
                )
                for slot, c in zip(s.order, s.trick, strict=False)
            ],
        },
        "tricks_played": s.tricks,
        "bottle": {"price": s.price, "owner": s.owner},
        "devil_trick": sorted(s.devil) if everything and s.deal else None,
        "devil_trick_size": len(s.devil),
        "won": [list(cards_of(w)) for w in s.won],
        "scores": list(s.scores) if s.scores is not None else None,
        "totals": head["totals"],
        "ranking": head["ranking"],
        "legal_actions": [body(a) for seat in actors for a in legal_actions(s, seat)]
        if legal
        else [],
    }


def _hide_cards(events: Sequence[Any], viewer: Viewer) -> list[Any]:
    """The log as a seat or the public sees its cards: a deal's hidden cards are public once
    it is scored, Lopaka's hand once the exchange is done (``visible_events``)."""
    scored: set[int] = set()
    exchanged: set[int] = set()
    deal = 0
    for e in events:
        kind = type(e)
        if kind is DealStarted:
            deal = e.deal
        elif kind is DealScored:
            scored.add(deal)
        elif kind is PassesDelivered:
            exchanged.add(deal)
    lopaka = bool(events) and getattr(events[0], "variant", None) == layout.LOPAKA
    hidden = {
        CardDiscarded: {"card": None},
        CardsPassed: dict.fromkeys(("left", "right", "opponent", "card")),
    }
    out: list[Any] = []
    for e in events:
        kind = type(e)
        if kind is DealStarted:
            deal = e.deal
        if deal in scored or kind is TableOpened:
            out.append(e)
        elif kind is DealStarted:
            shown = {viewer, layout.LOPAKA_SEAT} if lopaka and deal in exchanged else {viewer}
            hands = tuple(h if seat in shown else None for seat, h in enumerate(e.hands))
            out.append(e._replace(hands=hands, devil=None))
        elif kind in hidden and e.seat != viewer:
            out.append(e._replace(**hidden[kind]))
        elif kind is PassesDelivered:
            mine = tuple(r if seat == viewer else None for seat, r in enumerate(e.received))
            out.append(e._replace(received=mine))
        else:
            out.append(e)
    return out


#: The whole log as a viewer may see it (the seed and salt: ``domain.games.common``).
visible_events = visible_events_by(_hide_cards)
