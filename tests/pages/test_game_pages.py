"""Every registered game has its web side (``service/web/pages/games/``), and the app does
not start without it: a face for every card of its deck, a scene for a fresh table of
every variant, and, for each piece a game's module gives, a registry lacking it (a
patched copy) stops ``create_app`` with a sentence naming the game and the piece. A kind
of action no drawer draws is refused loudly, at start and on a page."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask

from domain.events import TableOpened
from domain.games import SPECS, game
from domain.games.registry import GameSpec
from domain.table import SeatSpec, Table
from service.storage.db import get_database
from service.web.pages import games, moves
from service.web.pages.games import WEB, IncompleteGame
from service.web.pages.games.pieces import GamePages, RulesPage
from service.web.pages.scenes import seat_names
from tests.helpers import make_test_app
from tests.pages.tables import KINDS, ORGANISER, open_table, state

SPEC_LIST = list(SPECS.values())


def test_the_registry_lists_exactly_the_registered_games() -> None:
    assert set(WEB) == set(SPECS)
    assert all(pages.game == game_id for game_id, pages in WEB.items())


@pytest.mark.parametrize("s", SPEC_LIST, ids=lambda s: s.id)
def test_every_card_has_a_face(s: GameSpec) -> None:
    assert games.deck(s.id) == s.deck
    assert games.name(s.id) == s.name
    for card in s.deck:
        face = games.face(s.id, card)
        assert face.id == card and face.title and face.classes != "card"


@pytest.mark.parametrize(
    ("s", "variant"),
    [(s, v) for s in SPEC_LIST for v in s.variants],
    ids=lambda x: x.id if isinstance(x, GameSpec) else x,
)
def test_every_variant_draws_a_scene(s: GameSpec, variant: str) -> None:
    players = s.players[variant][0]
    seats = tuple(SeatSpec(f"p{i}") for i in range(players))
    table = Table(s.id, variant, seats, s.rules.default_match(players), seed="pages")
    rules = game(s.id)
    state = rules.initial_state(table)
    names = seat_names(TableOpened.of(table))
    assert games.scene(rules.view(state, None), names).json()


# --- a registry lacking a piece stops the app --------------------------------------------------


def _without(mapping: object, name: str) -> dict:
    return {k: v for k, v in dict(mapping).items() if k != name}  # type: ignore[call-overload]


def _some(keys: object) -> str:
    return sorted(keys)[-1]  # type: ignore[call-overload]


#: A piece each game's module gives, taken away: the copy, and what the refusal says.
Breaking = Callable[[GamePages, GameSpec], tuple[GamePages, str]]
BREAKINGS: dict[str, Breaking] = {
    "face": lambda p, s: (dataclasses.replace(p, face=None), "no face"),
    "scene": lambda p, s: (dataclasses.replace(p, scene=None), "no scene"),
    "deal sheet": lambda p, s: (dataclasses.replace(p, sheet=None), "no deal sheet"),
    "rules page": lambda p, s: (
        dataclasses.replace(p, rules=RulesPage(f"games/{s.id}/gone.html")),
        "rules page's template",
    ),
    "option words": lambda p, s: (
        dataclasses.replace(p, option_words=_without(p.option_words, _some(p.option_words))),
        f"option {_some(p.option_words)!r}",
    ),
    "word for a deal": lambda p, s: (dataclasses.replace(p, deal_word=""), "no word for a deal"),
    "drawer": lambda p, s: (
        dataclasses.replace(p, drawers=_without(p.drawers, _some(p.drawers))),
        f"action kind {_some(p.drawers)!r}",
    ),
    "replay words": lambda p, s: (
        dataclasses.replace(p, step_words=_without(p.step_words, _some(p.step_words))),
        f"event {_some(p.step_words)!r}",
    ),
    "a face that cannot draw": lambda p, s: (
        dataclasses.replace(p, face=lambda card: 1 / 0),
        "cannot draw the card",
    ),
}


@pytest.fixture
def start_app(tmp_path: Path) -> Iterator[Callable[[], Flask]]:
    """Build an app as ``create_app`` does (on a file of its own), disposing what it opened."""
    made: list[Flask] = []

    def start() -> Flask:
        made.append(make_test_app(f"sqlite:///{tmp_path / 'app.db'}", migrate=False))
        return made[-1]

    yield start
    for app in made:
        get_database(app).engine.dispose()


def test_the_complete_registry_starts(start_app: Callable[[], Flask]) -> None:
    assert start_app().url_map is not None


@pytest.mark.parametrize("piece", BREAKINGS)
@pytest.mark.parametrize("s", SPEC_LIST, ids=lambda s: s.id)
def test_an_app_without_a_piece_of_a_games_web_side_does_not_start(
    monkeypatch: pytest.MonkeyPatch, start_app: Callable[[], Flask], s: GameSpec, piece: str
) -> None:
    broken, said = BREAKINGS[piece](WEB[s.id], s)
    monkeypatch.setattr(games, "WEB", {**WEB, s.id: broken})
    with pytest.raises(IncompleteGame) as refused:
        start_app()
    message = str(refused.value)
    assert f"{s.id}: " in message and said in message, message
    assert message.count("\n- ") == 1, "only the missing piece is named"


@pytest.mark.parametrize("s", SPEC_LIST, ids=lambda s: s.id)
def test_an_app_without_a_games_whole_web_side_does_not_start(
    monkeypatch: pytest.MonkeyPatch, start_app: Callable[[], Flask], s: GameSpec
) -> None:
    monkeypatch.setattr(games, "WEB", _without(WEB, s.id))
    with pytest.raises(IncompleteGame, match=f"{s.id} \\({s.name}\\) has no web side"):
        start_app()


def test_a_kind_of_action_no_drawer_draws_is_refused_on_the_page(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game whose drawers (patched after the app started) lack its ``deal``: the
    organiser's page of a table waiting for its deal answers an error, never a panel
    silently missing the move."""
    client = app.test_client()
    kind = KINDS[0]
    table = open_table(client, kind)
    assert state(client, table)["legal_actions"] == [{"type": "deal"}]
    game_id = table.body["game"]
    drawers = _without(WEB[game_id].drawers, "deal")
    monkeypatch.setitem(games.WEB, game_id, dataclasses.replace(WEB[game_id], drawers=drawers))
    with pytest.raises(moves.Undrawable, match="cannot draw an action 'deal'"):
        client.get(f"/tables/{table.id}/view", headers=ORGANISER)
