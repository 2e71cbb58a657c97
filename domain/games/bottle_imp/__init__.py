"""The Bottle Imp (game id ``bottle-imp``) as a decider: ``docs/rules/bottle-imp.md``.

``initial_state(table)``, ``decide(state, action) -> events``, ``evolve(state, event)``,
``legal_actions(state, seat)``, ``view(state, viewer)``; variants ``standard`` (3–4
players), ``lopaka`` and ``bright-house``.
"""

import sys

from domain.games import options
from domain.games.bottle_imp import layout
from domain.games.bottle_imp.actions import ACTIONS, action_of, body, legal_actions, parse, to_act
from domain.games.bottle_imp.cards import DECK, START_CARD, cards_of
from domain.games.bottle_imp.decide import decide
from domain.games.bottle_imp.evolve import evolve, initial_state
from domain.games.bottle_imp.model import (
    EVENT_TYPES,
    DealScored,
    DealStarted,
    TrickCompleted,
)
from domain.games.bottle_imp.places import deck_of, whereabouts
from domain.games.bottle_imp.upcast import SCHEMAS, UPCASTERS
from domain.games.bottle_imp.view import headline, view, visible_events
from domain.games.landmarks import Landmarks
from domain.games.registry import GameSpec
from domain.match import MatchRules
from domain.table import Table

GAME_ID = "bottle-imp"
DEFAULT_VARIANT = "standard"


def default_match(players: int) -> MatchRules:
    """Clubs play to 200 (docs/rules/bottle-imp.md, Match)."""
    return MatchRules(target_score=200)


def check_options(table: Table) -> None:
    """The Bottle Imp has no table options beyond ``first_dealer``."""
    options.check("The Bottle Imp", SPEC.options, table.options)


SPEC = GameSpec(
    id=GAME_ID,
    name="The Bottle Imp",
    rules=sys.modules[__name__],
    variants=layout.VARIANTS,
    default_variant=DEFAULT_VARIANT,
    players={layout.STANDARD: (3, 4), layout.LOPAKA: (2,), layout.BRIGHT_HOUSE: (2,)},
    deck=(*DECK, START_CARD),
    card_fields=frozenset(
        {
            "hands",
            "devil",
            "discards",
            "passes",
            "received",
            "devil_trick",
            "won",
            "price",
            "cards",
            "card",
            "left",
            "right",
            "opponent",
        }
    ),
    bots="domain.bots.bottle_imp",
    actions=ACTIONS,
    landmarks=Landmarks(DealStarted, DealScored, TrickCompleted),
    upcasters=UPCASTERS,
    schemas=SCHEMAS,
    house_seats={layout.LOPAKA: ((layout.LOPAKA_SEAT, "Lopaka"),)},
)

__all__ = [
    "DEFAULT_VARIANT",
    "EVENT_TYPES",
    "GAME_ID",
    "SPEC",
    "action_of",
    "body",
    "cards_of",
    "check_options",
    "decide",
    "deck_of",
    "default_match",
    "evolve",
    "headline",
    "initial_state",
    "legal_actions",
    "parse",
    "to_act",
    "view",
    "visible_events",
    "whereabouts",
]
