"""The rules of each game, in the product: ``/rules`` and ``/rules/<game>``.

The rules text is the project's own (each game's ``rules`` template, named by its web
side in ``service/web/pages/games/``, and what each option does, its ``option_words``);
what the engine accepts is taken from the registry, so a page cannot drift from the
service on the facts a club types into a table's ``rules``: each option's name, what it
takes and its default come from the options the game declares (``GameSpec.options``,
``domain.games.options``, ``first_dealer`` from ``COMMON``), variants and seat counts from
the spec, the cards from its deck drawn by the pages' faces.
Other pages link here through :func:`rules_url` (also a template global).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, render_template
from markupsafe import Markup

from domain.games import SPECS
from domain.games.options import COMMON
from domain.games.registry import GameSpec
from service.web.pages import games
from service.web.pages.answers import answer_errors_with_pages, html
from service.web.problems import ApiError

blueprint = Blueprint("rules", __name__)


def rules_url(game: str) -> str:
    """The rules page of a game id; the index of every game's rules for an unknown one."""
    return f"/rules/{game}" if game in SPECS else "/rules"


@blueprint.app_template_global("rules_url")
def _rules_url(game: str) -> str:
    return rules_url(game)


@dataclass(frozen=True, slots=True)
class OptionRow:
    """One row of a page's options table."""

    name: str
    takes: str
    default: Any  # a JSON value, or None when the default is not a plain value
    meaning: Markup
    common: bool = False

    @property
    def default_json(self) -> str:
        return "" if self.default is None else json.dumps(self.default)


def options_of(spec: GameSpec) -> dict[str, OptionRow]:
    """Every name a table of this game accepts in ``rules``, the common ones first, with
    what each does in the words of the game's web side."""
    words = games.pages_of(spec.id).option_words
    return {
        name: OptionRow(name, o.takes, o.default, words[name], common=name in COMMON)
        for name, o in {**COMMON, **spec.options}.items()
    }


@blueprint.get("/rules")
def index() -> Response:
    """Every game's rules, one link each."""
    page = render_template("pages/rules/index.html", specs=list(SPECS.values()))
    return html(page)


@blueprint.get("/rules/<game>")
def game_rules(game: str) -> Response:
    """One game's rules: deal, play, scoring, the match, variants, options, decisions."""
    spec = SPECS.get(game)
    if spec is None:
        known = ", ".join(SPECS)
        raise ApiError(404, "not_found", f"there are no rules for {game!r}; games are {known}")
    page_of = games.pages_of(game).rules
    page = render_template(
        page_of.template,
        spec=spec,
        options=options_of(spec),
        match=spec.rules.default_match,
        deck=spec.deck,
        face=lambda card: games.face(game, card),
        **page_of.extra(),
    )
    return html(page)


answer_errors_with_pages(blueprint)
