"""The contract of every registered game, variant and table size, over random legal
matches played through the same ``Rules`` the service uses (``checks.py`` says what each
check holds; ``docs/rules/common.md`` is the contract they check).

What only one game has (its scoring, rule codes, recorded deals, options) stays in its own
``tests/domain/test_<game>_properties.py``.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings

from domain.events import MatchEnded, to_data
from domain.games import game
from domain.table import ORGANISER
from tests.contract import sights
from tests.contract.cards import cards_in
from tests.contract.checks import (
    check_actions,
    check_cards_kept,
    check_replay,
    check_what_each_viewer_sees,
    strings,
)
from tests.contract.knowledge import Knowledge
from tests.contract.matches import EVERY_CASE, Case, Draw, Match, draws, play, table_of


def budget(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None)


def played(case: Case, d: Draw) -> Match:
    return play(case.spec, table_of(case, d), random.Random(d.rng_seed))


@pytest.mark.parametrize("case", EVERY_CASE)
@budget(4)
@given(d=draws)
def test_no_viewer_ever_sees_what_it_may_not_know(case: Case, d: Draw) -> None:
    match = played(case, d)
    known = Knowledge.of(match)
    check_what_each_viewer_sees(game(case.spec.id), match, known, match.versions)


@pytest.mark.parametrize("case", EVERY_CASE)
@budget(6)
@given(d=draws)
def test_the_stored_log_replays_to_the_live_state(case: Case, d: Draw) -> None:
    check_replay(game(case.spec.id), played(case, d), random.Random(d.rng_seed))


@pytest.mark.parametrize("case", EVERY_CASE)
@budget(6)
@given(d=draws)
def test_every_event_keeps_each_card_in_one_place(case: Case, d: Draw) -> None:
    check_cards_kept(game(case.spec.id), played(case, d))


@pytest.mark.parametrize("case", EVERY_CASE)
@budget(3)
@given(d=draws)
def test_legal_actions_are_taken_and_garbage_refused(case: Case, d: Draw) -> None:
    check_actions(game(case.spec.id), played(case, d), random.Random(d.rng_seed))


@pytest.mark.parametrize("case", EVERY_CASE)
@budget(3)
@given(d=draws)
def test_the_same_seed_and_choices_give_the_same_log(case: Case, d: Draw) -> None:
    """And an integer seed deals as its decimal string (``docs/rules/common.md``,
    Deterministic shuffling, rule 1)."""
    assert played(case, d).log == played(case, d).log
    table = table_of(case, d)
    as_text, as_int = replace(table, seed=str(d.rng_seed)), replace(table, seed=d.rng_seed)
    logs = [play(case.spec, t, random.Random(d.rng_seed)).log[1:] for t in (as_text, as_int)]
    assert logs[0] == logs[1]


@pytest.mark.parametrize("case", EVERY_CASE)
@budget(4)
@given(d=draws)
def test_every_match_ends_ranked_with_nothing_left_to_do(case: Case, d: Draw) -> None:
    match, rules = played(case, d), game(case.spec.id)
    end, final = match.log[-1], match.states[-1]
    assert isinstance(end, MatchEnded)
    assert sum(isinstance(e, MatchEnded) for e in match.log) == 1
    assert len(end.ranking) == len(end.totals)
    assert min(p for p in end.ranking if p is not None) == 1
    view = rules.view(final, None)
    assert view["status"] == "finished" and view["totals"] == list(end.totals)
    assert rules.to_act(final) == ()
    assert all(not rules.legal_actions(final, seat) for seat in range(len(end.totals)))


@pytest.mark.parametrize("case", EVERY_CASE)
@budget(2)
@given(d=draws)
def test_the_card_fields_find_every_card_and_nothing_else(case: Case, d: Draw) -> None:
    """``GameSpec.card_fields`` (``tests/contract/cards.py``): what lies under them is a card
    of the deck; with them, the organiser's view and the deal's log so far name every card
    where it lies; and where cards are words, no card is anywhere else."""
    spec, rules = case.spec, game(case.spec.id)
    assert spec.card_fields, f"{spec.id} declares no card_fields"
    match = played(case, d)
    deck, words = set(spec.deck), all(isinstance(c, str) for c in spec.deck)
    deal, logged = 0, set[object]()
    for version in match.versions:
        state, event = match.state(version), match.log[version - 1]
        view = rules.view(state, ORGANISER)
        for value in (view, to_data(event)):
            found = cards_in(spec, value)
            assert found <= deck, f"not cards: {sorted(map(str, found - deck))} in {value}"
            if words:
                anywhere = {text for text in strings(value) if text in deck}
                assert anywhere == found, f"cards outside card_fields: {anywhere - found}"
        if match.deal_at(version) != deal:
            deal, logged = match.deal_at(version), set()
        logged |= cards_in(spec, event)
        if state.deal:
            unfound = set(rules.whereabouts(state)) - cards_in(spec, view) - logged
            assert not unfound, f"version {version}: no card field holds {sorted(unfound)}"


@pytest.mark.parametrize("case", EVERY_CASE)
@budget(2)
@given(d=draws)
def test_the_common_sight_lets_no_viewer_know_more_than_the_games_own(case: Case, d: Draw) -> None:
    """The sight a game without one of its own is held to (``sights/common.py``) is never
    laxer than the rules text of a game: it could not pass a leak that game's sight sees."""
    match = played(case, d)
    own, common = Knowledge.of(match), Knowledge.of(match, sights.common)
    for version in match.versions:
        for viewer in (*range(case.players), None):
            for deal in range(match.deal_at(version) + 1):
                laxer = common.may_know(version, viewer, deal) - own.may_know(version, viewer, deal)
                assert not laxer, f"version {version}, {viewer}, deal {deal}: {laxer}"
