"""The pages' one registry of games: each game's web side, one line per game.

A game's web side (its card faces, its scene, the console's sheet for a physical deal,
its rules page, what its options do, its word for a deal, the drawers of its moves and
its replay's words) is one :class:`~service.web.pages.games.pieces.GamePages` in its own
module here (``bottle_imp.py``, ``bestia.py``, ``oh_quay.py``), its templates in
``service/web/templates/games/<game>/``. Everything else on the pages reads a game
through the functions below. :func:`check` runs as the app starts
(``service.web.pages``): a registered game (``domain.games.SPECS``) that lacks a piece
stops it, with a sentence per missing piece.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from flask import Flask
from jinja2 import Environment, TemplateNotFound

from domain.games import SPECS
from service.web.pages import words
from service.web.pages.cards import Card, Face
from service.web.pages.deal_sheet import DealSheet
from service.web.pages.games import bestia, bottle_imp, oh_quay
from service.web.pages.games.checks import missing_pieces
from service.web.pages.games.pieces import GamePages
from service.web.pages.moves import Undrawable
from service.web.pages.scenes import Scene, View

#: Every game's web side, one line per game, by its game id.
WEB: dict[str, GamePages] = {
    pages.game: pages
    for pages in (
        bottle_imp.PAGES,
        bestia.PAGES,
        oh_quay.PAGES,
    )
}


class IncompleteGame(RuntimeError):
    """A registered game lacks a piece of its web side: the app does not start."""


def check(app: Flask) -> None:
    """Refuse to start ``app`` while a registered game lacks a piece of its web side."""
    templates = Environment(loader=app.create_global_jinja_loader())

    def has_template(name: str) -> bool:
        try:
            templates.get_template(name)
        except TemplateNotFound:
            return False
        return True

    problems = missing_pieces(SPECS, WEB, has_template)
    if problems:
        raise IncompleteGame(
            "The pages cannot show every registered game (service/web/pages/games/):\n- "
            + "\n- ".join(problems)
        )
    app.register_error_handler(Undrawable, _loudly)


def _loudly(error: Undrawable) -> NoReturn:
    """A kind of action no drawer draws is the pages' bug, never answered as a refusal:
    Flask's own handling, a 500 with the traceback logged (raised out of a test client)."""
    raise error


def pages_of(game: str) -> GamePages:
    """A registered game's web side."""
    return WEB[game]


def name(game: str) -> str:
    """A game's name in the page's language (its id when it has no web side)."""
    found = WEB.get(game)
    return found.name() if found else game


def names() -> dict[str, str]:
    """Every registered game's name in the page's language, by game id."""
    return {game: name(game) for game in SPECS}


def face(game: str, card: Card) -> Face:
    """The face of ``card`` in ``game``'s notation (``docs/rules/common.md``)."""
    found = WEB.get(game)
    if found is None:
        return Face(card, str(card), "card", str(card))
    return found.face(card)


def deck(game: str) -> tuple[Card, ...]:
    """Every card of a game, for the replay's face templates (the start card included)."""
    spec = SPECS.get(game)
    return spec.deck if spec else ()


def scene(view: View, names: Sequence[str]) -> Scene:
    """The scene of a view, drawn by its game's builder."""
    return WEB[view["game"]].scene(view, names)


def sheet(game: str) -> DealSheet:
    """How the console records a physical deal of ``game``: its deck and its piles."""
    return WEB[game].sheet


def deal_word(game: str) -> str:
    """What ``game`` calls a deal ("deal"; Oh Quay: "game")."""
    found = WEB.get(game)
    return words.deal_word(found.deal_word if found else "deal")
