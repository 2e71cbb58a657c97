"""The Bottle Imp (game id ``bottle-imp``) as a decider: ``rules/bottle-imp.md``.

``initial_state(table)``, ``decide(state, action) -> events``, ``evolve(state, event)``,
``legal_actions(state, seat)``, ``view(state, viewer)``; variants ``standard`` (3–4
players), ``lopaka`` and ``bright-house``.
"""

from domain.errors import RuleViolation
from domain.games.bottle_imp.actions import action_of, body, legal_actions, parse, to_act
from domain.games.bottle_imp.cards import cards_of
from domain.games.bottle_imp.decide import decide
from domain.games.bottle_imp.evolve import evolve, initial_state
from domain.games.bottle_imp.model import EVENT_TYPES, ORGANISER, State
from domain.games.bottle_imp.upcast import SCHEMAS, UPCASTERS
from domain.games.bottle_imp.view import view, visible_events
from domain.match import MatchRules
from domain.table import Table

GAME_ID = "bottle-imp"
DEFAULT_VARIANT = "standard"


def default_match(players: int) -> MatchRules:
    """Clubs play to 200 (rules/bottle-imp.md, Match)."""
    return MatchRules(target_score=200)


def check_options(table: Table) -> None:
    """The Bottle Imp has no table options beyond ``first_dealer``."""
    for name in table.options:
        raise RuleViolation("unknown_option", f"The Bottle Imp has no rule option {name!r}")


__all__ = [
    "DEFAULT_VARIANT",
    "EVENT_TYPES",
    "GAME_ID",
    "ORGANISER",
    "SCHEMAS",
    "UPCASTERS",
    "State",
    "action_of",
    "body",
    "cards_of",
    "check_options",
    "decide",
    "default_match",
    "evolve",
    "initial_state",
    "legal_actions",
    "parse",
    "to_act",
    "view",
    "visible_events",
]
