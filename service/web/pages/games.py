"""The pages' one registry of game-specific pieces, keyed by the registered game specs.

A game's page-facing pieces (its card ``face`` function, ``service/web/pages/cards.py``, its
``scene`` builder, ``service/web/pages/scenes.py``, and the console's sheet for recording a
physical deal, ``service/web/pages/deal_sheet.py``) are listed here once, under its
``GameSpec``; its name and deck come from the spec itself. Importing this module fails if
a registered game has no entry (or an entry names no registered game), so a game added
to ``domain.games`` without its pages fails loudly rather than drawing bare ids.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain.games import SPECS, bestia, bottle_imp, oh_quay
from service.web.pages import cards, deal_sheet, scenes
from service.web.pages.cards import Card, Face
from service.web.pages.deal_sheet import DealSheet
from service.web.pages.scenes import Scene, View

SceneBuilder = Callable[[View, Sequence[str]], Scene]


@dataclass(frozen=True, slots=True)
class GamePages:
    """How the pages draw one game: a card's face, a view as a scene, and the sheet the
    console records a physical deal on."""

    face: Callable[[Card], Face]
    scene: SceneBuilder
    sheet: DealSheet


PAGES: dict[str, GamePages] = {
    bottle_imp.SPEC.id: GamePages(cards.bottle_imp, scenes.bottle_imp, deal_sheet.BOTTLE_IMP),
    bestia.SPEC.id: GamePages(cards.bestia, scenes.bestia, deal_sheet.BESTIA),
    oh_quay.SPEC.id: GamePages(cards.oh_quay, scenes.oh_quay, deal_sheet.OH_QUAY),
}

if set(PAGES) != set(SPECS):
    raise ImportError(
        f"service/web/pages/games.py: pages registered for {sorted(PAGES)}, "
        f"games are {sorted(SPECS)}"
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


def sheet(game: str) -> DealSheet:
    """How the console records a physical deal of ``game``: its deck and its piles."""
    return PAGES[game].sheet
