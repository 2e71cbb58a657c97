"""Bestia, the Spanish Five-Card Loo (game id ``bestia``), as a decider: ``docs/rules/bestia.md``.

``initial_state(table)``, ``decide(state, action) -> events``, ``evolve(state, event)``,
``legal_actions(state, seat)``, ``view(state, viewer)``; one variant, ``standard``, for
3 to 8 players, with the table options of the rules text (``options.py``).
"""

import sys

from domain.games.bestia import options
from domain.games.bestia.actions import ACTIONS, body, legal_actions, parse, to_act
from domain.games.bestia.audit import action_of, adjust, check_adjust, totals
from domain.games.bestia.cards import RANKS, SUITS, names_of
from domain.games.bestia.decide import decide
from domain.games.bestia.evolve import evolve, initial_state
from domain.games.bestia.model import (
    EVENT_TYPES,
    DealSettled,
    DealStarted,
    TrickCompleted,
)
from domain.games.bestia.options import check_options
from domain.games.bestia.places import deck_of, whereabouts
from domain.games.bestia.view import headline, view, visible_events
from domain.games.landmarks import Landmarks
from domain.games.registry import GameSpec
from domain.match import MatchRules

GAME_ID = "bestia"
DEFAULT_VARIANT = "standard"


def default_match(players: int) -> MatchRules:
    """Everybody deals twice: ``max_deals`` = 2 * players, no target (docs/rules/bestia.md)."""
    return MatchRules(target_score=None, max_deals=2 * players)


def cards_of(mask: int) -> list[str]:
    """The cards of a hand mask (``State.hands[seat]``), in canonical order."""
    return names_of(mask)


SPEC = GameSpec(
    id=GAME_ID,
    name="Bestia",
    rules=sys.modules[__name__],
    variants=options.VARIANTS,
    default_variant=DEFAULT_VARIANT,
    players={options.STANDARD: (3, 4, 5, 6, 7, 8)},
    deck=tuple(rank + suit for suit in SUITS for rank in RANKS),
    card_fields=frozenset(
        {
            "hands",
            "muestra",
            "stock",
            "laid_aside",
            "discarded",
            "drawn",
            "restock",
            "discard",
            "cards",
            "card",
        }
    ),
    bots="domain.bots.bestia",
    actions=ACTIONS,
    landmarks=Landmarks(DealStarted, DealSettled, TrickCompleted),
    options=options.OPTIONS,
)

__all__ = [
    "DEFAULT_VARIANT",
    "EVENT_TYPES",
    "GAME_ID",
    "SPEC",
    "action_of",
    "adjust",
    "body",
    "cards_of",
    "check_adjust",
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
    "totals",
    "view",
    "visible_events",
    "whereabouts",
]
