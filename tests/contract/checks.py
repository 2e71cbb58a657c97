"""The contract every registered game keeps, as functions over one played match.

Each raises ``AssertionError`` naming the viewer, the version and what went wrong. The
tests call them on random matches of every game (``test_games.py``), and on deliberately
leaking copies of each game (``test_leaks_are_caught.py``): ``rules`` is whatever answers
``view``, ``visible_events`` and the rest, the real ``Rules`` or a patched one; the match
itself, and what each viewer may know, come from the real rules.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from domain.errors import RuleViolation
from domain.events import MatchEnded, TableOpened, event_type, to_data
from domain.replay import event_from_json, replay
from domain.table import ORGANISER, Table, Viewer
from tests.contract.cards import Card, cards_in
from tests.contract.knowledge import Knowledge
from tests.contract.matches import Match


def viewers(table: Table) -> list[Viewer]:
    """Every seat, the public (``None``) and the organiser."""
    return [*range(len(table.seats)), None, ORGANISER]


def who(viewer: Viewer) -> str:
    if viewer is None:
        return "the public"
    return "the organiser" if viewer == ORGANISER else f"seat {viewer}"


def assert_may_know(where: str, shown: set[Card], allowed: frozenset[Card] | None) -> None:
    """``shown`` holds no card outside ``allowed`` (``None``: the organiser's everything)."""
    if allowed is not None and not shown <= allowed:
        leaked = sorted(map(str, shown - allowed))
        raise AssertionError(f"{where} shows {leaked}, which it may not know")


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            yield str(key)
            yield from strings(inner)
    elif isinstance(value, list | tuple):
        for inner in value:
            yield from strings(inner)


def assert_no_secret(where: str, value: Any, table: Table) -> None:
    """Neither the seed nor the salt, nor a deal seed (which holds the salt), is in
    ``value`` (``docs/rules/common.md``, Hidden information)."""
    for name, secret in (("seed", table.seed), ("salt", table.salt)):
        if secret and any(secret in text for text in strings(value)):
            raise AssertionError(f"{where} holds the {name} before the match ends")


def check_what_each_viewer_sees(
    rules: Any, match: Match, known: Knowledge, versions: Iterable[int]
) -> None:
    """At each version, for every seat, the public and the organiser: the view and the log
    as the viewer may see them hold no card it may not know at that version, and no seed
    or salt before the match ends; the view shows what the rules put in front of it; the
    organiser's log is the log itself and, once the match is over, everyone's shows the
    seed and the salt."""
    spec, table = match.spec, match.table
    # what each viewer was shown of each event, once checked: knowledge only grows, so the
    # same shown event passes again (only new or changed ones are read)
    passed: dict[tuple[Viewer, int], Any] = {}
    for version in versions:
        state, prefix = match.state(version), match.log[:version]
        over = any(type(e) is MatchEnded for e in prefix)
        for viewer in viewers(table):
            view = rules.view(state, viewer)
            where = f"the view of {who(viewer)} at version {version}"
            shown = cards_in(spec, view)
            assert_may_know(where, shown, known.may_know(version, viewer, state.deal))
            unseen = known.in_sight(state, viewer) - shown
            assert not unseen, f"{where} lacks {sorted(map(str, unseen))}, in sight by the rules"
            seen = rules.visible_events(prefix, viewer)
            assert len(seen) == version, f"{who(viewer)} sees {len(seen)} of {version} events"
            if viewer == ORGANISER:
                assert seen == prefix, f"the organiser's log at version {version} is not the log"
                continue
            if not over:
                assert_no_secret(where, view, table)
            elif version == len(match.log):
                assert (seen[0].seed, seen[0].salt) == (table.seed, table.salt), (
                    f"{who(viewer)} is not shown the seed and salt once the match is over"
                )
            for at, event in enumerate(seen, start=1):
                if passed.get((viewer, at)) == (type(event), event):
                    continue
                assert type(event) is type(prefix[at - 1]), f"event {at} changed its type"
                where = f"event {at} ({event_type(event)}) as {who(viewer)} sees it at {version}"
                allowed = known.may_know(version, viewer, match.deal_at(at))
                data = to_data(event)
                assert_may_know(where, cards_in(spec, data), allowed)
                if not over:
                    assert_no_secret(where, data, table)
                    passed[viewer, at] = (type(event), event)


def through_json(game_id: str, event: Any) -> Any:
    """The event as the store keeps it and reads it back."""
    stored = json.loads(json.dumps({"type": event_type(event), "data": to_data(event)}))
    return event_from_json(game_id, stored["type"], stored["data"])


def check_replay(rules: Any, match: Match, rng: random.Random) -> None:
    """The log, stored as JSON and read back, folds to the live state at every version;
    each event the engine did not cause records the action it came from (the audit
    re-decides it)."""
    stored = [through_json(match.spec.id, e) for e in match.log]
    assert stored == match.log, "an event does not survive its JSON form"
    opened = stored[0]
    assert type(opened) is TableOpened and opened.table() == match.table
    state = rules.initial_state(opened.table())
    assert state == match.state(1)
    for version, event in enumerate(stored[1:], start=2):
        state = rules.evolve(state, event)
        assert state == match.state(version), f"the fold differs at version {version}"
    for k in {len(stored), *(rng.randrange(1, len(stored) + 1) for _ in range(3))}:
        assert replay(opened, stored[1:k]) == match.state(k)
    for step in match.steps:
        for i in range(step.events):
            at = step.version + i  # the event's index in the log, the version before it
            recorded = rules.action_of(match.log[at], match.state(at))
            assert recorded == (step.action if i == 0 else None), f"event {at + 1}"


def check_cards_kept(rules: Any, match: Match) -> None:
    """During a deal every card of the table's deck lies in exactly one place (a hand, a
    pile, the trick, a pass on its way...): no event loses or copies a card."""
    for version in match.versions:
        state = match.state(version)
        if not state.deal:
            continue
        found, deck = Counter(rules.whereabouts(state)), Counter(rules.deck_of(state))
        assert found == deck, (
            f"after {event_type(match.log[version - 1])} (version {version}): "
            f"missing {sorted(deck - found)}, extra {sorted(found - deck)}"
        )


def garbage(body: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Bodies no rules may take: an unknown type, an unknown field, a value of the wrong
    JSON type."""
    yield {**body, "type": "no-such-action"}
    yield {**body, "no_such_field": 1}
    for key, value in body.items():
        if key == "type":
            continue
        for wrong in ("x", 2.5, True, [value], {"card": value}):
            if type(wrong) is not type(value):
                yield {**body, key: wrong}


def refused(rules: Any, state: Any, body: Mapping[str, Any]) -> bool:
    try:
        rules.decide(state, rules.parse(body))
    except RuleViolation:
        return True
    return False


def check_actions(rules: Any, match: Match, rng: random.Random) -> None:
    """Before every action: each legal action of each seat to act is decided and survives
    its JSON body; garbage and the same action by a seat not to act are refused."""
    seats = range(len(match.table.seats))
    for step in match.steps:
        state = match.state(step.version)
        to_act = rules.to_act(state)
        for seat in to_act:
            for action in rules.legal_actions(state, seat):
                assert rules.decide(state, action), f"{action} decided no event"
                assert rules.parse(rules.body(action)) == action, f"{action} as JSON"
        body = rules.body(step.action)
        for bad in garbage(body):
            assert refused(rules, state, bad), f"{bad} accepted at version {step.version}"
        waiting = [s for s in seats if s not in to_act]
        if waiting and isinstance(step.seat, int) and "seat" in body:
            other = {**body, "seat": rng.choice(waiting)}
            assert refused(rules, state, other), f"{other} accepted out of turn"
