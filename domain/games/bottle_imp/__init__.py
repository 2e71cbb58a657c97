"""The Bottle Imp (game id ``bottle-imp``) as a decider: ``rules/bottle-imp.md``.

``initial_state(table)``, ``decide(state, action) -> events``, ``evolve(state, event)``,
``legal_actions(state, seat)``, ``view(state, viewer)``; variants ``standard`` (3–4
players), ``lopaka`` and ``bright-house``.
"""

from domain.games.bottle_imp.actions import body, legal_actions, parse, to_act
from domain.games.bottle_imp.cards import cards_of
from domain.games.bottle_imp.decide import decide
from domain.games.bottle_imp.evolve import evolve, initial_state
from domain.games.bottle_imp.model import EVENT_TYPES, ORGANISER, State
from domain.games.bottle_imp.view import view, visible_events

GAME_ID = "bottle-imp"

__all__ = [
    "EVENT_TYPES",
    "GAME_ID",
    "ORGANISER",
    "State",
    "body",
    "cards_of",
    "decide",
    "evolve",
    "initial_state",
    "legal_actions",
    "parse",
    "to_act",
    "view",
    "visible_events",
]
