"""What one game's web side is made of: a :class:`GamePages`, built once in the game's own
module (``service/web/pages/games/<game>.py``) and listed in the registry
(``service/web/pages/games/__init__.py``).

Every piece is required: the app refuses to start while a registered game lacks one
(``service.web.pages.games.check``), so a game added to ``domain.games`` without its web
side fails at once, not on the first page that needed the missing piece.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask_babel import lazy_gettext
from flask_babel.speaklater import LazyString
from markupsafe import Markup

from service.web.pages.cards import Card, Face
from service.web.pages.deal_sheet import DealSheet
from service.web.pages.moves import Drawer
from service.web.pages.scenes import Scene, View
from service.web.pages.step_words import StepWords

SceneBuilder = Callable[[View, Sequence[str]], Scene]


#: The rules pages' words for ``first_dealer``, the option every game takes
#: (``domain.games.options.COMMON``); each game adds what is its own
#: (``GamePages.option_words``).
FIRST_DEALER = lazy_gettext(
    "The seat that is dealer in the first deal (seat 0 unless set). After each deal the role "
    "moves one seat on in the direction of play."
)


def _nothing_more() -> Mapping[str, Any]:
    return {}


@dataclass(frozen=True, slots=True)
class RulesPage:
    """A game's rules page (``/rules/<game>``): its template, next to the game's other
    templates (``service/web/templates/games/<game>/``), and what the page shows beyond
    the game's spec and options (tables of its cards)."""

    template: str
    extra: Callable[[], Mapping[str, Any]] = _nothing_more


def winner_card(trick: Mapping[str, Any]) -> Card:
    """The card that took a completed trick (``TrickCompleted``'s data): the winner's."""
    return trick["cards"][list(trick["seats"]).index(trick["winner"])]


@dataclass(frozen=True, slots=True)
class GamePages:
    """How the pages show one game.

    - ``name``: the game's name in the page's language (the Spanish seed text calls The
      Bottle Imp *El diablo de la botella*), a call so it is said in the language of the
      request that shows it;
    - ``face``: a card as drawn (``service.web.pages.cards.Face``), for every card of the
      game's deck;
    - ``scene``: a view (``rules.view(state, viewer)``) as labelled piles;
    - ``sheet``: the console's sheet for a physical deal, its deck and piles;
    - ``rules``: its rules page;
    - ``option_words``: what each option a table of the game takes does, in the rules
      page's words, for every option the game declares and ``first_dealer``;
    - ``deal_word``: what the game calls a deal (Oh Quay: a "game");
    - ``drawers``: for each kind of action the game declares, how the moves panel offers
      it (``service.web.pages.moves``);
    - ``step_words``: the replay's words for the game's own events (those every game
      shares are said in ``service.web.pages.replay``);
    - ``winning_card`` the card of a completed trick framed as its winner, and
      ``step_marks`` how a replay step frames the cards of its event (``played``
      unless said).
    """

    game: str
    name: Callable[[], str]
    face: Callable[[Card], Face]
    scene: SceneBuilder
    sheet: DealSheet
    rules: RulesPage
    option_words: Mapping[str, Markup | LazyString]
    deal_word: str
    drawers: Mapping[str, Drawer]
    step_words: Mapping[str, StepWords]
    winning_card: Callable[[Mapping[str, Any]], Card] = winner_card
    step_marks: Mapping[str, str] = field(default_factory=dict)
