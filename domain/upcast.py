"""Event schema evolution: stored events keep the shape they were written in; reading
them upcasts old shapes to the current one, step by step. The hash chain covers the
stored shape, so upcasting never touches proofs.

Each game keeps its steps next to its events and registers them in its ``GameSpec``
(``upcasters``, keyed by ``(event type, from schema)``, and ``schemas``, the current
version of each type), and a
step applies to that game's events only: two games may name an event alike. Events every
game shares (``TableOpened``, ``Adjusted``, ``MatchEnded``) are all still at schema 1.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from domain.games import SPECS

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
_NONE: Mapping[Any, Any] = MappingProxyType({})


def _steps(game_id: str) -> tuple[Mapping[tuple[str, int], Upcaster], Mapping[str, int]]:
    found = SPECS.get(game_id)
    if found is None:  # "": a shared event read before its game is known (TableOpened)
        return _NONE, _NONE
    return found.upcasters, found.schemas


def current_schema(game_id: str, kind: str) -> int:
    """The schema version new ``kind`` events of ``game_id`` are written with."""
    return _steps(game_id)[1].get(kind, 1)


def upcast(game_id: str, kind: str, schema: int, data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` of a ``game_id`` event stored with ``schema``, in the current shape."""
    upcasters, schemas = _steps(game_id)
    out = dict(data)
    while schema < schemas.get(kind, 1):
        out = upcasters[kind, schema](out)
        schema += 1
    return out
