"""Oh Quay (game id ``oh-quay``) as a decider: ``docs/rules/oh-quay.md``.

``initial_state(table)``, ``decide(state, action) -> events``, ``evolve(state, event)``,
``legal_actions(state, seat)``, ``view(state, viewer)``, ``action_of(event, state)``
(for re-checking a log); one variant, ``standard``, for two players. A game of Oh Quay
is one "deal" of the match; its "dealer" is the game's starting player.
"""

import sys

from domain.games.landmarks import Landmarks
from domain.games.oh_quay import layout
from domain.games.oh_quay.actions import ACTIONS, action_of, body, legal_actions, parse, to_act
from domain.games.oh_quay.cards import DECK, cards_of
from domain.games.oh_quay.decide import decide
from domain.games.oh_quay.evolve import evolve, initial_state
from domain.games.oh_quay.model import EVENT_TYPES, DealScored, DealStarted
from domain.games.oh_quay.places import deck_of, whereabouts
from domain.games.oh_quay.view import headline, view, visible_events
from domain.games.registry import GameSpec
from domain.match import MatchRules
from domain.table import Table

GAME_ID = "oh-quay"
DEFAULT_VARIANT = layout.STANDARD


def default_match(players: int) -> MatchRules:
    """Two games, so each player starts once (docs/rules/oh-quay.md, Match)."""
    return MatchRules(target_score=None, max_deals=2)


def check_options(table: Table) -> None:
    """Options ``max_turns`` (int ≥ 1, default 200) and ``first_player`` (0 or 1)."""
    layout.check_variant(table.variant)
    layout.check_options(table.options)


SPEC = GameSpec(
    id=GAME_ID,
    name="Oh Quay",
    rules=sys.modules[__name__],
    variants=layout.VARIANTS,
    default_variant=DEFAULT_VARIANT,
    players={layout.STANDARD: (layout.PLAYERS,)},
    deck=DECK,
    card_fields=frozenset(
        {"quays", "canals", "hands", "top", "cards", "score_piles", "kept", "taken", "keep", "card"}
    ),
    bots="domain.bots.oh_quay",
    actions=ACTIONS,
    landmarks=Landmarks(DealStarted, DealScored),
    options=layout.OPTIONS,
    quick_options={"max_turns": 8},
    starter_word="starts",
)

__all__ = [
    "DECK",
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
