"""The pages' one registry of game-specific pieces, keyed by the registered game specs.

A game's page-facing pieces (its card ``face`` function, ``service/pages/cards.py``, and
its ``scene`` builder, ``service/pages/scenes.py``) are listed here once, under its
``GameSpec``; its name and deck come from the spec itself. Importing this module fails if
a registered game has no entry (or an entry names no registered game), so a game added
to ``domain.games`` without its pages fails loudly rather than drawing bare ids.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain.games import SPECS, bestia, bottle_imp, oh_quay
from service.pages import cards, scenes
from service.pages.cards import Card, Face
from service.pages.scenes import Scene, View

SceneBuilder = Callable[[View, Sequence[str]], Scene]


@dataclass(frozen=True, slots=True)
class GamePages:
    """How the pages draw one game: a card's face, and a view as a scene."""

    face: Callable[[Card], Face]
    scene: SceneBuilder


PAGES: dict[str, GamePages] = {
    bottle_imp.SPEC.id: GamePages(cards.bottle_imp, scenes.bottle_imp),
    bestia.SPEC.id: GamePages(cards.bestia, scenes.bestia),
    oh_quay.SPEC.id: GamePages(cards.oh_quay, scenes.oh_quay),
}

if set(PAGES) != set(SPECS):
    raise ImportError(
        f"service/pages/games.py: pages registered for {sorted(PAGES)}, games are {sorted(SPECS)}"
    )


def name(game: str) -> str:
    """A game's display name (its id when it is not registered)."""
    spec = SPECS.get(game)
    return spec.name if spec else game


def face(game: str, card: Card) -> Face:
    """The face of ``card`` in ``game``'s notation (``rules/common.md``)."""
    found = PAGES.get(game)
    if found is None:
        return Face(card, str(card), "card", str(card))
    return found.face(card)


def deck(game: str) -> tuple[Card, ...]:
    """Every card of a game, for the replay's face templates (the start card included)."""
    spec = SPECS.get(game)
    return spec.deck if spec else ()


def scene(view: View, names: Sequence[str]) -> Scene:
    """The scene of a view, drawn by its game's builder."""
    return PAGES[view["game"]].scene(view, names)
