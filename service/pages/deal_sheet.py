"""A physical deal, tapped into the console: the deck, the piles the cards go to, and the
``deal`` action body they make (``rules/*.md``, Recorded deals).

Each pile is one form field (its cards, space-separated, in the order tapped), so a
scorer can also type the cards; the rules check the result (``invalid_deal`` and its
message name what is wrong). A pile that ``marks`` holds a card of another pile rather
than a card of its own: Bestia's muestra, a card of the dealer's hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.games.bestia.cards import NAMES as BESTIA_NAMES
from domain.games.bottle_imp import layout as imp_layout
from domain.games.bottle_imp.cards import DECK as IMP_DECK
from domain.games.oh_quay.cards import DECK as QUAY_DECK
from domain.games.oh_quay.layout import PILE as QUAY_PILE
from service.tablelog import TableLog


@dataclass(frozen=True, slots=True)
class Pile:
    """Where tapped cards go: ``field`` is the form field, ``path`` where its cards sit in
    the action body (``("hands", 0)``, ``("hands", 1, "A")``, ``("devil",)``)."""

    field: str
    label: str
    size: int
    path: tuple[str | int, ...]
    ordered: bool = False
    marks: bool = False


def deck(log: TableLog) -> list[str]:
    """Every card this table deals, as ``data-card`` names them."""
    game = log.opened.game
    if game == "bottle-imp":
        return [str(c) for c in IMP_DECK]
    if game == "bestia":
        return [BESTIA_NAMES[c] for c in log.state.rules.deck]
    return list(QUAY_DECK)


def piles(log: TableLog, names: Sequence[str]) -> list[Pile]:
    """The piles of this table's recorded deal, seat by seat."""
    opened, state = log.opened, log.state
    if opened.game == "bottle-imp":
        players = len(opened.seats)
        if opened.variant == imp_layout.BRIGHT_HOUSE:
            return [
                Pile(f"hands-{s}-{p}", f"{names[s]}: pile {p}", 9, ("hands", s, p))
                for s in range(players)
                for p in imp_layout.PILES
            ]
        hands = imp_layout.seats(opened.variant, players)
        size = 11 if opened.variant == imp_layout.LOPAKA else 36 // hands
        out = [Pile(f"hands-{s}", names[s], size, ("hands", s)) for s in range(hands)]
        if opened.variant == imp_layout.LOPAKA:
            out.append(Pile("devil", "the devil's trick", 3, ("devil",)))
        return out
    if opened.game == "bestia":
        out = [Pile(f"hands-{s}", names[s], 5, ("hands", s)) for s in range(len(opened.seats))]
        dealer = names[state.dealer]
        out.append(Pile("muestra", f"muestra (a card of {dealer}'s hand)", 1, ("muestra",),
                        marks=True))  # fmt: skip
        return out
    return [
        Pile(f"{kind}-{s}", f"{names[s]}: {word}", QUAY_PILE, (kind, s), ordered=True)
        for s in range(2)
        for kind, word in (("quays", "quay, top first"), ("canals", "canal, front first"))
    ]


def _card(game: str, text: str) -> Any:
    """A typed or tapped card in the body's notation (the Bottle Imp's are numbers)."""
    return int(text) if game == "bottle-imp" and text.isdigit() else text


def body(log: TableLog, chosen: Sequence[Pile], form: Mapping[str, str]) -> dict[str, Any]:
    """The ``deal`` action the form's piles make."""
    game = log.opened.game
    out: dict[str, Any] = {"type": "deal"}
    for pile in chosen:
        cards = [_card(game, c) for c in form.get(pile.field, "").split()]
        if pile.marks:
            out[str(pile.path[0])] = cards[0] if cards else None
            continue
        node: Any = out
        *parents, last = pile.path
        for i, step in enumerate(parents):
            nxt = pile.path[i + 1]
            if isinstance(node, dict):
                default: Any = [] if isinstance(nxt, int) else {}
                node = node.setdefault(step, default)
            else:
                while len(node) <= int(step):
                    node.append([] if isinstance(nxt, int) else {})
                node = node[int(step)]
        if isinstance(node, list):
            while len(node) <= int(last):
                node.append([])
            node[int(last)] = cards
        else:
            node[last] = cards
    return out
