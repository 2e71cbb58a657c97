"""What each game's rules put in front of each viewer, written from its rules text
(``docs/rules/<game>.md``, Hidden information) over the rules' state and the organiser's
events, never from the game's ``view`` or ``visible_events``: the contract compares those
with this, so they cannot be the measure of themselves.

A game's sight is a module with two functions (``Sight``). Adding a game means writing its
sight here, from its rules text: a registered game without one fails the contract suite
by name (``tests/contract/knowledge.py``). That is the one test edit a new game needs, and
on purpose: a declaration in the game itself would be its author's reading twice over.
"""

from __future__ import annotations

from types import ModuleType

from tests.contract.sights import bestia, bottle_imp, oh_quay

#: Each registered game's sight, by game id.
SIGHTS: dict[str, ModuleType] = {
    "bottle-imp": bottle_imp,
    "bestia": bestia,
    "oh-quay": oh_quay,
}
