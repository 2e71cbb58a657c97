"""What each viewer may see (``docs/rules/common.md``, Hidden information;
``docs/rules/bestia.md``).

The organiser sees everything. A seat sees its own hand, its own discards and draws,
and all public information: the muestra (dealt face up), the calls, the stock size,
the cards played, the pot and the balances. The public sees the public information
only. Once a deal is settled everything of it is public (hands, passers' hands,
discards, draws, the stock); the seed and salt stay secret until the match ends.

The pánfilo's holder (who gets the bonus) shows only once the deal is settled.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.games.bestia.actions import body, legal_actions, to_act
from domain.games.bestia.cards import NAMES, SUITS, names_of
from domain.games.bestia.model import (
    ORGANISER,
    CardsExchanged,
    DealSettled,
    DealStarted,
    State,
    Viewer,
)
from domain.games.bestia.options import DEFAULTS
from domain.games.common import headline_of, visible_events_by


def headline(state: State) -> dict[str, Any]:
    """What a table's summary shows that play changes (``common.headline_of``)."""
    s = state
    return headline_of(s.phase, s.deal, s.balances, s.ranking)


def view(state: State, viewer: Viewer = None, legal: bool = True) -> dict[str, Any]:
    """The state as ``viewer`` may see it, JSON-ready (``legal=False``: no legal actions,
    which a bot's observation makes one at a time: ``domain.bots.observation``)."""
    s = state
    head = headline(s)
    n = s.table.players
    everything = viewer == ORGANISER or s.phase in ("waiting_for_deal", "finished")

    def sees(seat: int) -> bool:
        return everything or viewer == seat

    exchanges: list[dict[str, Any] | None] = []
    for seat, ex in enumerate(s.exchanges):
        if ex is None:
            exchanges.append(None)
        elif sees(seat):
            exchanges.append({"count": len(ex[0]), "discarded": list(ex[0]), "drawn": list(ex[1])})
        else:
            exchanges.append({"count": len(ex[0]), "discarded": None, "drawn": None})
    if viewer == ORGANISER:
        actors: Iterable[int] = range(n)
    elif isinstance(viewer, int):
        actors = (viewer,)
    else:
        actors = ()
    order = s.order
    return {
        "game": "bestia",
        "variant": s.table.variant,
        "rules": {**DEFAULTS, **s.table.options},
        "status": head["status"],
        "phase": s.phase,
        "deal": head["deal"],
        "dealer": s.dealer,
        "to_act": list(to_act(s)),
        "deck_size": len(s.rules.deck),
        "hands": [names_of(h) if sees(seat) else None for seat, h in enumerate(s.hands)],
        "hand_sizes": [h.bit_count() for h in s.hands],
        "calls": list(s.calls),
        "active": list(s.active),
        "exchanges": exchanges,
        "trump": SUITS[s.trumps.suit] if s.trumps is not None else None,
        # Decision: the muestra stays public as the card turned up; whether the dealer
        # kept or discarded it is not announced: discards lie face down like any other.
        "muestra": NAMES[s.muestra] if s.muestra >= 0 else None,
        "stock_size": len(s.stock),
        "stock": list(s.stock) if everything else None,
        "laid_aside_size": s.laid_aside.bit_count(),
        "laid_aside": names_of(s.laid_aside) if everything else None,
        "trick": {
            "leader": order[0] if order else None,
            "cards": [{"seat": p, "card": NAMES[c]} for p, c in zip(order, s.trick, strict=False)],
        },
        "tricks_played": len(s.winners),
        "tricks_won": [s.winners.count(p) for p in range(n)],
        "panfilo_holder": s.panfilo_holder if everything else None,
        "pot": s.pot,
        "balances": list(s.balances),
        "totals": head["totals"],
        "payments": [dict(line) for line in s.payments] if s.payments is not None else None,
        "outcome": s.outcome,
        "ranking": head["ranking"],
        "legal_actions": [body(a) for seat in actors for a in legal_actions(s, seat)]
        if legal
        else [],
    }


def _hide_cards(events: Sequence[Any], viewer: Viewer) -> list[Any]:
    """The log as a seat or the public sees its cards, keeping their number: a deal's
    hidden cards are public once it is settled (``visible_events``)."""
    settled = {e.deal for e in events if type(e) is DealSettled}
    out: list[Any] = []
    deal = 0
    for e in events:
        kind = type(e)
        if kind is DealStarted:
            deal = e.deal
            if deal not in settled:
                hands = tuple(h if seat == viewer else None for seat, h in enumerate(e.hands))
                e = e._replace(hands=hands, stock=None)
        elif kind is CardsExchanged and deal not in settled:
            e = e._replace(restock=None)
            if e.seat != viewer:
                e = e._replace(discarded=(None,) * len(e.discarded), drawn=(None,) * len(e.drawn))
        out.append(e)
    return out


#: The whole log as a viewer may see it (the seed and salt: ``domain.games.common``).
visible_events = visible_events_by(_hide_cards)
