"""A physical deal, tapped into the console: the deck, the piles the cards go to, and the
``deal`` action body they make (``rules/*.md``, Recorded deals).

Each pile is one form field (its cards, space-separated, in the order tapped), so a
scorer can also type the cards; the rules check the result (``invalid_deal`` and its
message name what is wrong). A pile that ``marks`` holds a card of another pile rather
than a card of its own: Bestia's muestra, a card of the dealer's hand. Each game's sheet
is in its own module (``service/web/pages/games/<game>.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.storage.tablelog import TableLog
from service.web.pages.cards import Card


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


def as_typed(text: str) -> Card:
    """A card as typed, when the game writes its cards as words."""
    return text


@dataclass(frozen=True, slots=True)
class DealSheet:
    """A game's recorded deal: the deck to tap from and the piles, for a table's log, and
    ``card``, a tapped or typed card as the ``deal`` body writes it."""

    deck: Callable[[TableLog], list[str]]
    piles: Callable[[TableLog, Names], list[Pile]]
    card: Callable[[str], Card] = as_typed


def body(sheet: DealSheet, chosen: Sequence[Pile], form: Mapping[str, str]) -> dict[str, Any]:
    """The ``deal`` action the form's piles make."""
    out: dict[str, Any] = {"type": "deal"}
    for pile in chosen:
        cards = [sheet.card(c) for c in form.get(pile.field, "").split()]
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
