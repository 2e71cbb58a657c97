"""The games Card Ledger records. Each is a decider module with the same functions:
``initial_state(table)``, ``decide(state, action)``, ``evolve(state, event)``,
``legal_actions(state, seat)``, ``to_act(state)``, ``view(state, viewer)``,
``visible_events(events, viewer)``, ``parse(body)``, ``body(action)`` and ``EVENT_TYPES``.
"""

from __future__ import annotations

from types import ModuleType

from domain.errors import RuleViolation
from domain.games import bottle_imp

GAMES: dict[str, ModuleType] = {bottle_imp.GAME_ID: bottle_imp}


def game(game_id: str) -> ModuleType:
    """The decider of a game id, or ``unknown_game``."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise RuleViolation(
            "unknown_game", f"Card Ledger has no game {game_id!r}; choose one of {', '.join(GAMES)}"
        ) from None
