"""The rules of each game, in the product: ``/rules`` and ``/rules/<game>``.

The rules text is the project's own (templates ``pages/rules/<game>.html``); what the
engine accepts is taken from the registry, so a page cannot drift from the service on
the facts a club types into a table's ``rules``: each option's name and what it takes
come from the game's ``GameSpec.options``, variants and seat counts from the spec, the
defaults from the game's own modules, the cards from its deck drawn by the pages' faces.
Other pages link here through :func:`rules_url` (also a template global).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, render_template

from domain.games import SPECS, bestia, bottle_imp, oh_quay
from domain.games.bestia import options as bestia_options
from domain.games.bestia.cards import deck as bestia_deck
from domain.games.bottle_imp.cards import COINS, START_CARD, SUIT, SUITS
from domain.games.oh_quay import layout as oh_quay_layout
from domain.games.registry import GameSpec
from domain.table import Table
from service.web.pages import games
from service.web.pages.answers import answer_errors_with_pages, html
from service.web.problems import ApiError

blueprint = Blueprint("rules", __name__)

#: What every game takes in ``rules`` besides its own options (``service.application.tables``
#: reads it before the game sees the rest): name -> (what it takes, its default).
COMMON_OPTIONS: dict[str, tuple[str, Any]] = {
    "first_dealer": ("a seat number of the table", Table("", "", ()).first_dealer),
}

#: Each option's default as the engine applies it, where it is a plain value.
DEFAULTS: dict[str, dict[str, Any]] = {
    bottle_imp.SPEC.id: {},
    bestia.SPEC.id: dict(bestia_options.DEFAULTS),
    oh_quay.SPEC.id: {"max_turns": oh_quay_layout.DEFAULT_MAX_TURNS},
}


def rules_url(game: str) -> str:
    """The rules page of a game id; the index of every game's rules for an unknown one."""
    return f"/rules/{game}" if game in SPECS else "/rules"


@blueprint.app_template_global("rules_url")
def _rules_url(game: str) -> str:
    return rules_url(game)


@dataclass(frozen=True, slots=True)
class Option:
    """One row of a page's options table."""

    name: str
    takes: str
    default: Any  # a JSON value, or None when the default is not a plain value
    common: bool = False

    @property
    def default_json(self) -> str:
        return "" if self.default is None else json.dumps(self.default)


def options_of(spec: GameSpec) -> dict[str, Option]:
    """Every name a table of this game accepts in ``rules``: the common ones first."""
    defaults = DEFAULTS.get(spec.id, {})
    found = {
        name: Option(name, takes, default, common=True)
        for name, (takes, default) in COMMON_OPTIONS.items()
    }
    for name, takes in spec.options.items():
        found[name] = Option(name, takes, defaults.get(name))
    return found


def _extra(game: str) -> dict[str, Any]:
    """What one game's page shows beyond its spec."""
    if game == bottle_imp.SPEC.id:
        by_coins: dict[int, list[list[int]]] = {}
        for card in bottle_imp.SPEC.deck:
            if card == START_CARD:
                continue
            row = by_coins.setdefault(COINS[card], [[] for _ in SUITS])
            row[SUIT[card]].append(card)
        return {"suits": SUITS, "by_coins": sorted(by_coins.items())}
    if game == bestia.SPEC.id:
        players = range(bestia_options.MIN_PLAYERS, bestia_options.MAX_PLAYERS + 1)
        return {"short_deck": [(n, len(bestia_deck(n, "short"))) for n in players]}
    return {}


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
    page = render_template(
        f"pages/rules/{game}.html",
        spec=spec,
        options=options_of(spec),
        match=spec.rules.default_match,
        deck=spec.deck,
        face=lambda card: games.face(game, card),
        **_extra(game),
    )
    return html(page)


answer_errors_with_pages(blueprint)
