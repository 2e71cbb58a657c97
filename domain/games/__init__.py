"""The games Card Ledger records.

Each game registers itself once, as its package's ``SPEC`` (a ``registry.GameSpec``),
listed in ``SPECS`` below; everything else per game is derived from the specs.

Each game is a decider module with the same functions: ``initial_state(table)``,
``decide(state, action)``, ``evolve(state, event)``, ``legal_actions(state, seat)``,
``to_act(state)``, ``view(state, viewer)``, ``visible_events(events, viewer)``,
``parse(body)``, ``body(action)``, ``action_of(event, state)``, ``check_options(table)``,
``default_match(players)`` and ``EVENT_TYPES``. ``game(id)`` wraps the module in
``Rules``, which adds what every game shares (directors' rulings).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from domain import rulings
from domain.errors import RuleViolation
from domain.games import bestia, bottle_imp, oh_quay
from domain.games.registry import GameSpec

#: The one list of games: each package's ``SPEC`` (``registry.py``) says the rest.
SPECS: dict[str, GameSpec] = {s.id: s for s in (bottle_imp.SPEC, bestia.SPEC, oh_quay.SPEC)}
GAMES: dict[str, ModuleType] = {game_id: spec.rules for game_id, spec in SPECS.items()}


class Rules:
    """A game's decider, plus the organiser's rulings (``adjust``)."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.EVENT_TYPES: Mapping[str, type] = {
            **module.EVENT_TYPES,
            "Adjusted": rulings.Adjusted,
        }

    def __getattr__(self, name: str) -> Any:
        return getattr(self.module, name)

    def parse(self, body: Mapping[str, Any]) -> Any:
        if body.get("type") == "adjust":
            return rulings.parse(body)
        return self.module.parse(body)

    def body(self, action: Any) -> dict[str, Any]:
        if type(action) is rulings.Adjust:
            return {"type": "adjust", **action._asdict()}
        return self.module.body(action)

    def decide(self, state: Any, action: Any) -> list[Any]:
        if type(action) is rulings.Adjust:
            return rulings.decide(self.module, state, action)
        return self.module.decide(state, action)

    def evolve(self, state: Any, event: Any) -> Any:
        if type(event) is rulings.Adjusted:
            return rulings.evolve(self.module, state, event)
        return self.module.evolve(state, event)

    def action_of(self, event: Any, state: Any) -> Any:
        """The action that ``event`` records, or None for an event the engine causes."""
        if type(event) is rulings.Adjusted:
            return rulings.Adjust(event.seat, event.points, event.reason)
        return self.module.action_of(event, state)


_RULES = {game_id: Rules(module) for game_id, module in GAMES.items()}


def spec(game_id: str) -> GameSpec:
    """The registered spec of a game id, or ``unknown_game``."""
    game(game_id)
    return SPECS[game_id]


def game(game_id: str) -> Rules:
    """The rules of a game id, or ``unknown_game``."""
    try:
        return _RULES[game_id]
    except (KeyError, TypeError):
        raise RuleViolation(
            "unknown_game", f"Card Ledger has no game {game_id!r}; choose one of {', '.join(GAMES)}"
        ) from None
