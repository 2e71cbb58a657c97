"""Replay: any state is ``fold(evolve, events)``, starting from ``TableOpened``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import reduce
from typing import Any

from domain.events import MatchEnded, TableOpened, from_data
from domain.games import game
from domain.upcast import upcast


def replay(opened: TableOpened, events: Iterable[Any]) -> Any:
    """The state after ``events`` (those after ``TableOpened``)."""
    rules = game(opened.game)
    return reduce(rules.evolve, events, rules.initial_state(opened.table()))


def event_from_json(
    game_id: str, kind: str, data: Mapping[str, Any], schema: int | None = None
) -> Any:
    """An event of ``game_id`` from its stored ``type``, ``data`` and schema version
    (older shapes are upcast; ``None``: already current)."""
    if schema is not None:
        data = upcast(game_id, kind, schema, data)
    if kind == "TableOpened":
        return from_data(TableOpened, data)
    if kind == "MatchEnded":
        return from_data(MatchEnded, data)
    return from_data(game(game_id).EVENT_TYPES[kind], data)
