"""A physical deal, tapped into the console: the deck, the piles the cards go to, and the
``deal`` action body they make (``rules/*.md``, Recorded deals).

Each pile is one form field (its cards, space-separated, in the order tapped), so a
scorer can also type the cards; the rules check the result (``invalid_deal`` and its
message name what is wrong). A pile that ``marks`` holds a card of another pile rather
than a card of its own: Bestia's muestra, a card of the dealer's hand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.games.bestia.cards import NAMES as BESTIA_NAMES
from domain.games.bestia.options import HAND
from domain.games.bottle_imp import layout as imp_layout
from domain.games.bottle_imp.cards import DECK as IMP_DECK
from domain.games.oh_quay.cards import DECK as QUAY_DECK
from domain.games.oh_quay.layout import PILE as QUAY_PILE
from service.storage.tablelog import TableLog


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


Names = Sequence[str]


def _imp_deck(log: TableLog) -> list[str]:
    return [str(c) for c in IMP_DECK]  # the start card is never dealt


def _imp_piles(log: TableLog, names: Names) -> list[Pile]:
    """``rules/bottle-imp.md``, Recorded deals: hands (bright-house: piles A and B per
    seat; lopaka: Lopaka's hand too) and lopaka's devil's trick."""
    opened = log.opened
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


def _bestia_deck(log: TableLog) -> list[str]:
    return [BESTIA_NAMES[c] for c in log.state.rules.deck]  # short or full, by table size


def _bestia_piles(log: TableLog, names: Names) -> list[Pile]:
    """``rules/bestia.md``, A deal, 2: five cards a seat, and the muestra."""
    out = [Pile(f"hands-{s}", names[s], HAND, ("hands", s)) for s in range(len(log.opened.seats))]
    dealer = names[log.state.dealer]
    out.append(Pile("muestra", f"muestra (a card of {dealer}'s hand)", 1, ("muestra",),
                    marks=True))  # fmt: skip
    return out


def _quay_deck(log: TableLog) -> list[str]:
    return list(QUAY_DECK)


def _quay_piles(log: TableLog, names: Names) -> list[Pile]:
    """``rules/oh-quay.md``, Setup: a quay (top first) and a canal (front first) a seat."""
    return [
        Pile(f"{kind}-{s}", f"{names[s]}: {word}", QUAY_PILE, (kind, s), ordered=True)
        for s in range(2)
        for kind, word in (("quays", "quay, top first"), ("canals", "canal, front first"))
    ]


@dataclass(frozen=True, slots=True)
class DealSheet:
    deck: Callable[[TableLog], list[str]]
    piles: Callable[[TableLog, Names], list[Pile]]


#: Each game's recorded deal, listed in the pages' registry (``service.web.pages.games.PAGES``).
BOTTLE_IMP = DealSheet(_imp_deck, _imp_piles)
BESTIA = DealSheet(_bestia_deck, _bestia_piles)
OH_QUAY = DealSheet(_quay_deck, _quay_piles)


def _card(game: str, text: str) -> Any:
    """A typed or tapped card in the body's notation (the Bottle Imp's are numbers, in
    ASCII digits: "²" or a 5,000-digit number stays text, for the rules to refuse)."""
    if game == "bottle-imp" and text.isascii() and text.isdigit() and len(text) <= 3:
        return int(text)
    return text


def body(log: TableLog, chosen: Sequence[Pile], form: Mapping[str, str]) -> dict[str, Any]:
    """The ``deal`` action the form's piles make."""
    game = log.opened.game
    out: dict[str, Any] = {"type": "deal"}
    for pile in chosen:
        cards = [_card(game, c) for c in form.get(pile.field, "").split()]
        if pile.marks:  # left out when empty: the rules say what is missing
            if cards:
                out[str(pile.path[0])] = cards[0]
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
