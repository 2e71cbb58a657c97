"""Is every registered game's web side complete? Asked once, as the app starts
(``service.web.pages.games.check``): a piece missing is a sentence here, and any sentence
stops the app, so a game cannot reach a page without its face, scene, deal sheet, rules
page (in every language the pages speak), option words, word for a deal, drawers and
replay words."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.games.options import COMMON
from domain.games.registry import GameSpec
from service.web.languages import LANGUAGES, template_in
from service.web.pages.games.pieces import GamePages
from service.web.pages.step_words import shared_words


def undrawn(spec: GameSpec, pages: GamePages) -> list[str]:
    """The kinds of action the game declares (``GameSpec.actions``) that no drawer of its
    pages draws: the app does not start with one, and no table page is drawn without it."""
    drawers = pages.drawers or {}
    return [kind for kind in spec.actions if not callable(drawers.get(kind))]


def _option_names(spec: GameSpec) -> list[str]:
    return [*COMMON, *spec.options]


def _face_problems(spec: GameSpec, pages: GamePages) -> list[str]:
    for card in spec.deck:
        try:
            face = pages.face(card)
        except Exception as error:  # any failure is the message: the app must not start
            return [f"its face cannot draw the card {card!r} ({type(error).__name__}: {error})"]
        if face.id != card:
            return [f"its face draws {card!r} as {face.id!r}"]
    return []


def _problems(spec: GameSpec, pages: GamePages, has_template: Callable[[str], bool]) -> list[str]:
    """What one game's web side lacks, each in a few words."""
    found: list[str] = []
    pieces: dict[str, Any] = {
        "face": pages.face,
        "scene": pages.scene,
        "winning card": pages.winning_card,
    }
    if pages.sheet is None:
        found.append("it has no deal sheet")
    else:
        pieces["deal sheet's deck"] = getattr(pages.sheet, "deck", None)
        pieces["deal sheet's piles"] = getattr(pages.sheet, "piles", None)
        pieces["deal sheet's card reader"] = getattr(pages.sheet, "card", None)
    found += [f"it has no {name}" for name, piece in pieces.items() if not callable(piece)]
    if callable(pages.face):
        found += _face_problems(spec, pages)
    template = getattr(pages.rules, "template", None)
    if not template:
        found.append("it has no rules page")
    elif not has_template(template):
        found.append(f"its rules page's template {template!r} is not there")
    elif not callable(getattr(pages.rules, "extra", None)):
        found.append("its rules page has no function for what it shows beyond the spec")
    if template and has_template(template):
        found += [
            f"its rules page in {language!r}, {template_in(template, language)!r}, is not there"
            for language in LANGUAGES[1:]
            if not has_template(template_in(template, language))
        ]
    words = pages.option_words or {}
    for name in _option_names(spec):
        if not str(words.get(name) or "").strip():
            found.append(f"its rules page does not say what the option {name!r} does")
    found += [
        f"it has words for an option {name!r} the game does not take"
        for name in words
        if name not in _option_names(spec)
    ]
    if not (isinstance(pages.deal_word, str) and pages.deal_word.strip()):
        found.append("it has no word for a deal")
    found += [f"no drawer draws its action kind {kind!r}" for kind in undrawn(spec, pages)]
    shared = shared_words(spec)
    for kind in spec.rules.EVENT_TYPES:
        if not callable((pages.step_words or {}).get(kind) or shared.get(kind)):
            found.append(f"the replay has no words for its event {kind!r}")
    return found


def missing_pieces(
    specs: Mapping[str, GameSpec],
    web: Mapping[str, GamePages],
    has_template: Callable[[str], bool],
) -> list[str]:
    """Every piece a registered game's web side lacks, as sentences (none: complete).
    ``has_template`` says whether the app's templates hold a name."""
    found = []
    for game_id, spec in specs.items():
        pages = web.get(game_id)
        if pages is None:
            found.append(
                f"{game_id} ({spec.name}) has no web side: write its module in "
                "service/web/pages/games/ and list its PAGES in service/web/pages/games/__init__.py"
            )
            continue
        if pages.game != game_id:
            found.append(f"{game_id}: its web side is listed as {pages.game!r}'s")
        found += [f"{game_id}: {problem}" for problem in _problems(spec, pages, has_template)]
    strays = [game_id for game_id in web if game_id not in specs]
    found += [f"{game_id} has a web side but no registered game" for game_id in strays]
    return found
