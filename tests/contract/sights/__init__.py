"""What each game's rules put in front of each viewer, written from its rules text
(``docs/rules/<game>.md``, Hidden information) over the rules' state and the organiser's
events, never from the game's ``view`` or ``visible_events``: the contract compares those
with this, so they cannot be the measure of themselves.

A sight is a module with two functions: ``in_sight(state, viewer)``, the cards the rules
put in front of a seat (or, for ``None``, face up for everyone) in a state, and
``revealed(event, after)``, the cards an event shows everyone. A game whose rules show no
more than ``docs/rules/common.md`` needs none (``common.py`` serves); a game that turns a
card face up or plays an open hand has its own here, written from its rules text: a
declaration in the game itself would be its author's reading twice over.
"""

from __future__ import annotations

from types import ModuleType

from domain.games.registry import GameSpec
from tests.contract.sights import bestia, bottle_imp, common, oh_quay

#: The games whose rules show more than ``docs/rules/common.md``, by game id.
SIGHTS: dict[str, ModuleType] = {
    "bottle-imp": bottle_imp,
    "bestia": bestia,
    "oh-quay": oh_quay,
}


def sight_of(spec: GameSpec) -> ModuleType:
    """The game's own sight, or the one ``docs/rules/common.md`` gives every game."""
    return SIGHTS.get(spec.id, common)
