"""The contract can fail: for each registered game and variant, a deliberately leaking copy
of its rules (its ``view`` or ``visible_events`` patched to show every hand, a neighbour's
hand or the seed) fails ``check_what_each_viewer_sees`` for the reason it leaks; and the
same leaks, patched into the game the service runs, fail the HTTP checks of the API's
answers and of the table page. A check that passed these copies would be a check of
nothing (issue 23: the old hidden-hand test passed Oh Quay showing every hand to everyone).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.events import TableOpened
from domain.games import Rules, game
from domain.table import ORGANISER, Viewer
from tests.contract.checks import check_what_each_viewer_sees
from tests.contract.http import act, check_answers, check_page, open_table
from tests.contract.knowledge import Knowledge
from tests.contract.matches import EVERY_GAME, EVERY_VARIANT, Case, Draw, play, table_of


class Leaking:
    """A game's rules with some of its functions replaced, the rest its own."""

    def __init__(self, rules: Rules, **replaced: Callable[..., Any]) -> None:
        self.rules, self.replaced = rules, replaced

    def __getattr__(self, name: str) -> Any:
        return self.replaced.get(name) or getattr(self.rules, name)


def without_seeds(event: Any) -> Any:
    """The event with no seed or salt in it."""
    hidden = {name: None for name in ("seed", "salt") if name in event._fields}
    return event._replace(**hidden)


def every_hand_in_view(rules: Rules) -> Leaking:
    real = rules.view  # read now: the service's copy may be the patched one later
    return Leaking(rules, view=lambda state, viewer=None: real(state, ORGANISER))


def neighbours_hand_in_view(rules: Rules) -> Leaking:
    real = rules.view

    def view(state: Any, viewer: Viewer = None) -> dict[str, Any]:
        shown = real(state, viewer)
        if isinstance(viewer, int):
            hands = real(state, ORGANISER)["hands"]
            neighbour = (viewer + 1) % len(hands)
            shown["hands"] = [*shown["hands"]]
            shown["hands"][neighbour] = hands[neighbour]
        return shown

    return Leaking(rules, view=view)


def every_card_in_log(rules: Rules) -> Leaking:
    def visible_events(events: list[Any], viewer: Viewer = None) -> list[Any]:
        return [without_seeds(e) for e in events] if viewer != ORGANISER else list(events)

    return Leaking(rules, visible_events=visible_events)


def seed_in_log(rules: Rules) -> Leaking:
    real = rules.visible_events

    def visible_events(events: list[Any], viewer: Viewer = None) -> list[Any]:
        return [events[0], *real(events, viewer)[1:]]

    return Leaking(rules, visible_events=visible_events)


def seed_in_view(rules: Rules) -> Leaking:
    real = rules.view

    def view(state: Any, viewer: Viewer = None) -> dict[str, Any]:
        return {**real(state, viewer), "seed": state.table.seed}

    return Leaking(rules, view=view)


#: Each leak, and what the contract's failure says.
LEAKS: dict[str, tuple[Callable[[Rules], Leaking], str]] = {
    "every-hand-in-view": (every_hand_in_view, "may not know"),
    "neighbours-hand-in-view": (neighbours_hand_in_view, "may not know"),
    "every-card-in-log": (every_card_in_log, "may not know"),
    "seed-in-log": (seed_in_log, "holds the (seed|salt) before the match ends"),
    "seed-in-view": (seed_in_view, "holds the seed before the match ends"),
}


@pytest.mark.parametrize("leak", LEAKS)
@pytest.mark.parametrize("case", EVERY_VARIANT)
def test_a_leaking_copy_of_each_game_fails_the_contract(case: Case, leak: str) -> None:
    match = play(case.spec, table_of(case, Draw("leak", 1, 2, 2, 0)), random.Random(leak))
    assert type(match.log[0]) is TableOpened
    rules, (patch, says) = game(case.spec.id), LEAKS[leak]
    known = Knowledge.of(match)
    check_what_each_viewer_sees(rules, match, known, match.versions)  # the real rules pass
    with pytest.raises(AssertionError, match=says):
        check_what_each_viewer_sees(patch(rules), match, known, match.versions)


@pytest.mark.parametrize("leak", LEAKS)
@pytest.mark.parametrize("case", EVERY_GAME)
def test_the_same_leak_in_the_service_fails_the_http_checks(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, case: Case, leak: str
) -> None:
    """The service runs the game's module (``domain.games.Rules`` reads it at each call):
    patched there, the leak reaches the API and the pages, and their checks catch it."""
    walk = open_table(client, case, seed=f"kept-secret-{leak}")
    rng = random.Random(leak)
    while walk.deal_at(walk.version) == 0:
        act(walk, rng)
    check_answers(walk, 0)
    check_page(walk, 0)
    patch, says = LEAKS[leak]
    leaking = patch(game(case.spec.id))
    for name, replaced in leaking.replaced.items():
        monkeypatch.setattr(case.spec.rules, name, replaced)
    with pytest.raises(AssertionError, match=says):
        check_answers(walk, 0)
    if leak == "every-hand-in-view":  # a page draws a scene of the view, not every field
        with pytest.raises(AssertionError, match=says):
            check_page(walk, 0)
