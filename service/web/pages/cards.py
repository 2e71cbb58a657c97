"""Card faces for the pages: what a card looks like in each game's own words.

Each game's face function is in its own module (``service/web/pages/games/<game>.py``;
``games.face(game, card)`` looks it up). A face is plain data (text, symbols, CSS
classes, a title) so one Jinja macro draws every game's cards, and the replay page can
clone the same faces in the browser. Only cards a view has already shown reach this
module: it never decides what a viewer may see.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

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
