"""The Bottle Imp's event schema steps, next to the events they change (``domain/upcast.py``
applies them when a stored event is read; the stored shape and its hash never change).

The one step so far: ``CardsPassed`` was first written (schema 1) as ``{"seat", "cards":
[...]}``, the cards in the order left, right (standard) or the one card (lopaka,
bright-house); schema 2 names them as the actions do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


def _cards_passed_1_to_2(data: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k != "cards"}
    cards = list(data.get("cards") or [])
    if len(cards) == 2:
        out["left"], out["right"] = cards
    elif len(cards) == 1:
        out["card" if "hand" in data else "opponent"] = cards[0]
    return out


UPCASTERS: Mapping[tuple[str, int], Upcaster] = {("CardsPassed", 1): _cards_passed_1_to_2}

#: The schema version new events of each type are written with (1 when not listed).
SCHEMAS: Mapping[str, int] = {"CardsPassed": 2}
