"""The one card-finder: the cards in any JSON a game produces (a view, an event's data, an
action body, an API answer, a deal history), found by the field names the game declares
(``GameSpec.card_fields``).

Field names, not values: Bottle Imp cards are the integers 1 to 37, so a value alone cannot
tell card 3 from seat 3, trick 3 or a hand of 3 cards (``docs/rules/common.md``, Card
notation). A value is a card when the nearest field above it is a card field, lists taking
their field's part. A mapping inside a card field is either a record with card fields of its
own (a trick's ``{"seat", "card"}``: only those hold cards) or named piles (Bright House's
``{"A": [...], "B": [...]}``: every value holds cards).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from domain.events import to_data
from domain.games.registry import GameSpec

Card = int | str


def card_leaves(spec: GameSpec, value: Any, carded: bool = False) -> Iterator[Any]:
    """Every value under a card field of ``spec``, ``None`` (a hidden card) left out."""
    fields = spec.card_fields
    if isinstance(value, Mapping):
        record = carded and any(key in fields for key in value)
        for key, inner in value.items():
            yield from card_leaves(spec, inner, key in fields or (carded and not record))
    elif isinstance(value, list | tuple):
        for inner in value:
            yield from card_leaves(spec, inner, carded)
    elif carded and value is not None:
        yield value


def cards_in(spec: GameSpec, value: Any) -> set[Card]:
    """The cards in a JSON value (or an event tuple, read as its stored data)."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        value = to_data(value)
    return set(card_leaves(spec, value))


def card_texts(spec: GameSpec) -> dict[str, Card]:
    """Each card of the game by the text a page writes for it (``data-card="17"``)."""
    return {str(card): card for card in spec.deck}
