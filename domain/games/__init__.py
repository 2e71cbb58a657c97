"""The games Card Ledger records.

Each game is a package that implements :class:`~domain.games.interface.GameRules` and
registers itself once, as its ``SPEC`` (a ``registry.GameSpec``), listed in ``SPECS``
below: one line per game, where mypy checks each package against the interface (``make
lint``). Everything else per game is derived from the specs. ``game(id)`` wraps a game in
``Rules``, which adds what every game shares: directors' rulings (``adjust``,
``domain.rulings``) and seats taken over by a bot (``domain.stand_ins``). What every
game's own functions share (the end of the match, the seed and salt kept secret) is in
``domain.games.common``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import rulings, stand_ins
from domain.errors import RuleViolation
from domain.games import bestia, bottle_imp, oh_quay
from domain.games.action_specs import SEAT, ActionSpec, FieldType
from domain.games.interface import GameRules
from domain.games.registry import GameSpec

#: A ruling, every game's action (``docs/rules/common.md``, "Directors' rulings").
ADJUST = ActionSpec(
    rulings.Adjust,
    {
        "seat": SEAT,
        "points": FieldType("number", minimum=-rulings.MAX_POINTS, maximum=rulings.MAX_POINTS),
        "reason": FieldType("text", max_length=rulings.MAX_REASON),
    },
)


def registered(*games: GameRules) -> dict[str, GameSpec]:
    """Each game's spec by its id, in the order given; a package whose ``SPEC`` is not a
    ``GameSpec`` of its own rules is refused."""
    specs: dict[str, GameSpec] = {}
    for rules in games:
        spec = rules.SPEC
        if not isinstance(spec, GameSpec) or spec.rules is not rules:
            raise TypeError(f"{rules.GAME_ID}: its SPEC is not the GameSpec of its own rules")
        specs[spec.id] = spec
    return specs


#: The one list of games, one line each; its order is the order the API lists them in.
SPECS: dict[str, GameSpec] = registered(
    bottle_imp,
    bestia,
    oh_quay,
)
GAMES: dict[str, GameRules] = {game_id: spec.rules for game_id, spec in SPECS.items()}


class Rules:
    """A game's rules, plus the organiser's rulings (``adjust``) and seats handed to a bot
    (``domain.stand_ins``: events of the table, which leave the game's state as it was)."""

    def __init__(self, module: GameRules) -> None:
        self.module = module
        self.spec: GameSpec = SPECS[module.GAME_ID]
        self.EVENT_TYPES: Mapping[str, type] = {
            **module.EVENT_TYPES,
            "Adjusted": rulings.Adjusted,
            **stand_ins.EVENT_TYPES,
        }
        #: Every kind of action a table of the game takes: its own, and ``adjust``.
        self.actions: Mapping[str, ActionSpec] = {**self.spec.actions, "adjust": ADJUST}

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
        if type(action) in stand_ins.ACTIONS:
            return stand_ins.decide(state, action)
        return self.module.decide(state, action)

    def evolve(self, state: Any, event: Any) -> Any:
        if type(event) is rulings.Adjusted:
            return rulings.evolve(self.module, state, event)
        if type(event) in stand_ins.EVENTS:
            return state  # who plays a seat is the table's business, not the rules'
        return self.module.evolve(state, event)

    def action_of(self, event: Any, state: Any) -> Any:
        """The action that ``event`` records, or None for an event the engine causes."""
        if type(event) is rulings.Adjusted:
            return rulings.Adjust(event.seat, event.points, event.reason)
        if type(event) in stand_ins.EVENTS:
            return stand_ins.action_of(event)
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
