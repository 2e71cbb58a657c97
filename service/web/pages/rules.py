"""The rules of each game, in the product: ``/rules`` and ``/rules/<game>``.

The rules text is the project's own (each game's ``rules`` template, named by its web
side in ``service/web/pages/games/``, and what each option does, its ``option_words``);
what the engine accepts is taken from the registry, so a page cannot drift from the
service on the facts a club types into a table's ``rules``: each option's name, what it
takes and its default come from the options the game declares (``GameSpec.options``,
``domain.games.options``, ``first_dealer`` from ``COMMON``), variants and seat counts from
the spec, the cards from its deck drawn by the pages' faces.
Other pages link here through :func:`rules_url` (also a template global).

Each page speaks the viewer's language: English is the game's ``rules.html``, Spanish,
Finnish and French its ``rules.es.html``, ``rules.fi.html``, ``rules.fr.html`` (the app does
not start with one missing, ``service.web.pages.games.checks``); what an option takes and
does is worded through the catalogues.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, render_template
from flask_babel import gettext, lazy_gettext
from markupsafe import Markup

from domain.games import SPECS
from domain.games.options import COMMON, Option
from domain.games.registry import GameSpec
from service.web import languages
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


@blueprint.app_template_global("name_of_game")
def _name_of_game(game: str) -> str:
    """A game's name in the page's language (``games.name``), for every template."""
    return games.name(game)


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


#: The units an option counts in (``Option.unit``), in the viewer's language.
UNITS = {
    "chips": lazy_gettext("chips"),
    "turns": lazy_gettext("turns"),
    "points": lazy_gettext("points"),
}


def _either(items: list[str]) -> str:
    if len(items) < 2:
        return "".join(items)
    return gettext("%(some)s or %(last)s", some=", ".join(items[:-1]), last=items[-1])


def takes_words(option: Option) -> str:
    """What an option takes, as :attr:`Option.takes` says it, in the viewer's language."""
    if option.type == "bool":
        return gettext("true or false")
    if option.type == "choice":
        return _either([f"'{c}'" for c in option.choices])
    if option.type == "seat":
        if not option.choices:
            return gettext("a seat number of the table")
        return gettext("seat %(seats)s", seats=_either([str(c) for c in option.choices]))
    low, high = option.minimum, option.maximum
    unit = option.unit and str(UNITS.get(option.unit, option.unit))
    number = gettext("a whole number of %(unit)s", unit=unit) if unit else gettext("a whole number")
    if low is not None and high is not None:
        return gettext("%(number)s from %(low)s to %(high)s", number=number, low=low, high=high)
    if low is not None and low <= 0:
        return gettext("%(number)s, %(low)s or more", number=number, low=low)
    if low is not None:
        return gettext("%(number)s, at least %(low)s", number=number, low=low)
    if high is not None:
        return gettext("%(number)s, %(high)s or less", number=number, high=high)
    return number


def options_of(spec: GameSpec) -> dict[str, OptionRow]:
    """Every name a table of this game accepts in ``rules``, the common ones first, with
    what each does in the words of the game's web side."""
    words = games.pages_of(spec.id).option_words
    return {
        name: OptionRow(name, takes_words(o), o.default, words[name], common=name in COMMON)
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
        detail = gettext(
            "there are no rules for %(game)s; games are %(known)s", game=repr(game), known=known
        )
        raise ApiError(404, "not_found", detail)
    page_of = games.pages_of(game).rules
    page = render_template(
        languages.template_in(page_of.template, languages.current()),
        spec=spec,
        options=options_of(spec),
        match=spec.rules.default_match,
        deck=spec.deck,
        face=lambda card: games.face(game, card),
        **page_of.extra(),
    )
    return html(page)


answer_errors_with_pages(blueprint)
