"""Card faces for the pages: what a card looks like in each game's own words.

Each game's face function is registered in ``service/web/pages/games.py`` (``face(game,
card)`` and the deck are looked up there). A face is plain data (text, symbols, CSS
classes, a title) so one Jinja macro draws every game's cards, and the replay page can
clone the same faces in the browser. Only cards a view has already shown reach this
module: it never decides what a viewer may see.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from domain.games.bottle_imp.cards import COINS, START_CARD, SUIT, SUITS
from domain.games.oh_quay.cards import RANK, suits_of

Card = int | str


def cards_in(value: object) -> Iterator[Card]:
    """Every card in an event's or action's card field, whatever its shape: one card, a
    list or set of them, a list of hands (``MoscaWon.cards``), piles by name (Bright
    House); a hidden card (``None``) is left out. Pages read cards only through this, so
    a new event shape cannot reach a face or a set as a list."""
    if isinstance(value, int | str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from cards_in(item)
    elif isinstance(value, Iterable):
        for item in value:
            yield from cards_in(item)


@dataclass(frozen=True, slots=True)
class Face:
    """How one card is drawn: ``big`` and the ``pips`` (CSS class, symbol) in the middle,
    ``corner`` above them, ``small`` below."""

    id: Card
    big: str
    classes: str
    title: str
    corner: str = ""
    small: str = ""
    pips: tuple[tuple[str, str], ...] = ()


# --- The Bottle Imp: the number on its suit's colour, coins as pips --------------------------

_IMP_INITIAL = {"yellow": "Y", "blue": "B", "red": "R"}


def bottle_imp(card: Card) -> Face:
    card = int(card)
    if card == START_CARD:
        return Face(card, "19", "card imp start", "19, the start card under the bottle")
    suit = SUITS[SUIT[card]]
    coins = COINS[card]
    return Face(
        card,
        str(card),
        f"card imp imp-{suit}",
        f"{card} ({suit}, {coins} coin{'s' if coins > 1 else ''})",
        _IMP_INITIAL[suit],
        "●" * coins,
    )


# --- Bestia: rank and French suit symbol, red or black; el pánfilo marked --------------------

BESTIA_SUITS = {"C": ("♣", "clubs", "black"), "D": ("♦", "diamonds", "red"),
                "H": ("♥", "hearts", "red"), "S": ("♠", "spades", "black")}  # fmt: skip
BESTIA_RANKS = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}


def bestia(card: Card) -> Face:
    card = str(card)
    rank, suit = card[:-1], card[-1]
    symbol, name, colour = BESTIA_SUITS[suit]
    title = f"{BESTIA_RANKS.get(rank, rank)} of {name}"
    if card == "JC":
        title += " (el pánfilo)"
    small = "★" if card == "JC" else ""
    return Face(card, rank, f"card french {colour}", title, "", small, (("suit", symbol),))


# --- Oh Quay: the Decktet card's name, rank and suit symbols ---------------------------------

#: Symbols every common system font has (no emoji): one per Decktet suit.
DECKTET_SYMBOLS = {"moons": "☾", "suns": "☀", "waves": "≈", "leaves": "❦", "wyrms": "∿",
                   "knots": "✣"}  # fmt: skip


def oh_quay(card: Card) -> Face:
    card = str(card)
    suits = suits_of(card)
    rank = RANK[card]
    label = {1: "A", 10: "C"}.get(rank, str(rank))
    pips = tuple((f"s-{s}", DECKTET_SYMBOLS[s]) for s in suits)
    name = card.replace("-", " ")
    title = f"{name} ({rank}; {', '.join(suits)})"
    return Face(card, "", "card decktet", title, label, name, pips)
