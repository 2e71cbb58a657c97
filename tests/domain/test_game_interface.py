"""The typed game interface (``domain/games/interface.py``) and what every game shares
(``domain/games/common.py``): mypy refuses a game package that lacks a piece of the
interface where the games are registered, registration refuses a package whose ``SPEC`` is
not its own, a game that hides no card still never shows the seed or salt before the match
ends, every game folds the end of the match alike, and each game's declared landmarks and
actions are the events and actions it really produces."""

from __future__ import annotations

import random
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mypy import api as mypy_api

from domain.events import MatchEnded, TableOpened, event_type
from domain.games import SPECS, Rules, game, registered
from domain.games.bottle_imp.model import DealStarted
from domain.games.common import visible_events_by
from domain.games.registry import GameSpec
from domain.match import MatchRules
from domain.table import ORGANISER, SeatSpec, Table

ROOT = Path(__file__).resolve().parents[2]
CASES = [(s, v) for s in SPECS.values() for v in s.variants]
IDS = [f"{s.id}-{v}" for s, v in CASES]
SALT = "00112233445566778899aabbccddeeff"


def table_of(s: GameSpec, variant: str, deals: int = 2) -> Table:
    seats = tuple(SeatSpec(name=f"P{i}") for i in range(s.players[variant][0]))
    return Table(s.id, variant, seats, MatchRules(None, deals), seed="interface", salt=SALT)


def random_match(rules: Rules, table: Table, rng: random.Random) -> Iterator[tuple[Any, list[Any]]]:
    """A whole match of random legal actions: each action with the events it caused."""
    state = rules.initial_state(table)
    while state.phase != "finished":
        seat = rng.choice(rules.to_act(state))
        legal = rules.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        events = rules.decide(state, action)
        for event in events:
            state = rules.evolve(state, event)
        yield action, events


# --- the type check ------------------------------------------------------------------------


def typecheck(source: str, tmp_path: Path) -> str:
    """mypy's report on a module that registers ``source``'s fake game as the games are."""
    (tmp_path / "fakegame.py").write_text(textwrap.dedent(source))
    (tmp_path / "registering.py").write_text(
        "import fakegame\nfrom domain.games import registered\n\nregistered(fakegame)\n"
    )
    out, err, _ = mypy_api.run(
        [
            "--ignore-missing-imports",
            "--disable-error-code=empty-body",
            str(tmp_path / "registering.py"),
        ]
    )
    return out + err


FAKE_GAME = """
    from collections.abc import Mapping, Sequence
    from typing import Any

    from domain.match import MatchRules
    from domain.table import Table

    GAME_ID = "fake"
    DEFAULT_VARIANT = "standard"
    EVENT_TYPES: Mapping[str, type] = {}
    SPEC: object = None

    def initial_state(table: Table) -> Any: ...
    def decide(state: Any, action: Any) -> list[Any]: ...
    def evolve(state: Any, event: Any) -> Any: ...
    def legal_actions(state: Any, seat: int) -> Sequence[Any]: ...
    def to_act(state: Any) -> tuple[int, ...]: ...
    def view(state: Any, viewer: Any = None, legal: bool = True) -> dict[str, Any]: ...
    def headline(state: Any) -> dict[str, Any]: ...
    def visible_events(events: Sequence[Any], viewer: Any = None) -> list[Any]: ...
    def parse(body: Mapping[str, Any]) -> Any: ...
    def body(action: Any) -> dict[str, Any]: ...
    def action_of(event: Any, state: Any) -> Any: ...
    def check_options(table: Table) -> None: ...
    def default_match(players: int) -> MatchRules: ...
    def cards_of(mask: int) -> Sequence[int]: ...
    def whereabouts(state: Any) -> Sequence[int]: ...
    def deck_of(state: Any) -> Sequence[int]: ...
"""


def test_the_type_check_refuses_a_game_that_lacks_a_piece_of_the_interface(
    tmp_path: Path,
) -> None:
    """``make lint``'s ``mypy domain`` checks each registered package this way: the
    complete fake passes, the same without ``to_act`` or with ``view`` taking no viewer
    fails, naming the piece."""
    assert "Success" in typecheck(FAKE_GAME, tmp_path)
    without = FAKE_GAME.replace("    def to_act(state: Any) -> tuple[int, ...]: ...\n", "")
    report = typecheck(without, tmp_path)
    assert "error" in report and "to_act" in report, report
    narrower = FAKE_GAME.replace("view(state: Any, viewer: Any = None,", "view(state: Any,")
    report = typecheck(narrower, tmp_path)
    assert "error" in report and "view" in report, report


def test_registration_refuses_a_package_whose_spec_is_not_its_own() -> None:
    real = SPECS["bestia"].rules
    impostor = types.SimpleNamespace(GAME_ID="bestia", SPEC=SPECS["oh-quay"])
    with pytest.raises(TypeError, match="not the GameSpec of its own rules"):
        registered(impostor)  # type: ignore[arg-type]
    assert registered(real) == {"bestia": SPECS["bestia"]}


# --- what every game shares -------------------------------------------------------------------


def test_a_game_that_hides_no_card_still_never_shows_the_seed_or_salt() -> None:
    """The seed, the salt and each deal's seed are everyone's secret until the match
    ends, whatever the game's own redaction leaves (here: everything)."""
    visible_events = visible_events_by(lambda events, viewer: list(events))
    opened = TableOpened.of(table_of(SPECS["bottle-imp"], "standard"))
    log = [opened, DealStarted(1, 0, f"{SALT}:interface/1", ((1, 2), (3, 4), (5, 6)))]
    for viewer in (None, 0, 1):
        shown = visible_events(log, viewer)
        assert (shown[0].seed, shown[0].salt, shown[1].seed) == (None, None, None), viewer
        assert shown[1].hands == log[1].hands, "the game's own redaction: here none"
        assert shown[0] == opened._replace(seed=None, salt=None)
        ended = visible_events([*log, MatchEnded((1, 0), (1, 2))], viewer)
        assert ended[:2] == log, "public once the match is over"
    assert visible_events(log, ORGANISER) == log


@pytest.mark.parametrize(("s", "variant"), CASES, ids=IDS)
def test_every_game_folds_the_end_of_the_match_alike(s: GameSpec, variant: str) -> None:
    rules = game(s.id)
    ended = None
    state = rules.initial_state(table_of(s, variant, deals=1))
    for _, events in random_match(rules, table_of(s, variant, deals=1), random.Random(7)):
        for event in events:
            state = rules.evolve(state, event)
            ended = event if type(event) is MatchEnded else ended
    assert ended is not None
    assert (state.phase, state.ranking) == ("finished", tuple(ended.ranking))


@pytest.mark.parametrize(("s", "variant"), CASES, ids=IDS)
def test_the_declared_landmarks_are_where_deals_start_and_end(s: GameSpec, variant: str) -> None:
    """Each deal starts with the declared ``deal_started`` and is scored by the declared
    ``deal_scored``, deal by deal; a game with tricks completes them with the declared
    ``trick_completed``."""
    marks = s.landmarks
    rules = game(s.id)
    kinds = [
        event_type(e)
        for _, events in random_match(rules, table_of(s, variant), random.Random(3))
        for e in events
    ]
    started = [k for k in kinds if marks.starts_deal(k)]
    scored = [k for k in kinds if marks.scores_deal(k)]
    assert len(started) == len(scored) == 2
    firsts = [i for i, k in enumerate(kinds) if marks.starts_deal(k)]
    ends = [i for i, k in enumerate(kinds) if marks.scores_deal(k)]
    assert all(a < b for a, b in zip(firsts, ends, strict=True)) and firsts[1] > ends[0]
    tricks = [k for k in kinds if marks.completes_trick(k)]
    assert bool(tricks) == (marks.trick_completed is not None)


@pytest.mark.parametrize(("s", "variant"), CASES, ids=IDS)
def test_every_legal_action_is_a_declared_kind_with_its_declared_fields(
    s: GameSpec, variant: str
) -> None:
    """What ``legal_actions`` offers, as JSON bodies: each ``type`` is a declared kind,
    each field one it declares, none it requires missing; and the declaration parses it."""
    rules = game(s.id)
    seen = set()
    for action, _ in random_match(rules, table_of(s, variant), random.Random(11)):
        body = rules.body(action)
        declared = s.actions[body["type"]]
        fields = set(body) - {"type"}
        assert fields <= set(declared.fields), body
        assert set(declared.required) <= fields, body
        assert rules.parse(body) == action
        seen.add(body["type"])
    assert seen, "a match takes actions"


@pytest.mark.parametrize(("s", "variant"), CASES, ids=IDS)
def test_the_headline_is_what_every_view_shows_of_it(s: GameSpec, variant: str) -> None:
    """A table's summary is kept from ``headline`` alone (``table_summaries``), so after
    every event it must be what each viewer's view shows of it."""
    rules = game(s.id)
    table = table_of(s, variant)
    state = rules.initial_state(table)
    viewers = [None, ORGANISER, *range(len(table.seats))]
    seen = set()
    for _, events in random_match(rules, table, random.Random(5)):
        for event in events:
            state = rules.evolve(state, event)
            headline = rules.headline(state)
            assert set(headline) == {"status", "deal", "totals", "ranking"}
            for viewer in viewers:
                shown = rules.view(state, viewer)
                assert {key: shown[key] for key in headline} == headline, (event, viewer)
            seen.add(headline["status"])
    assert seen == {"in_deal", "waiting_for_deal", "finished"}
