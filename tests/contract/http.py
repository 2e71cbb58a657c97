"""The contract over HTTP: a table of any registered game walked through the Flask test
client, every viewer's answers and pages read back at every step and checked against what
the viewer may know, worked out from the organiser's own log (``knowledge.py``), never
from another viewer's answer (``docs/api.md``; ``docs/rules/common.md``, Hidden information).
"""

from __future__ import annotations

import html
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from domain.events import MatchEnded
from domain.games import game
from domain.games.registry import GameSpec
from domain.replay import event_from_json
from domain.table import ORGANISER, Table, Viewer
from service.web.schemas.actions import ActionSchema
from tests.contract.cards import Card, card_texts, cards_in
from tests.contract.checks import assert_may_know, assert_no_secret, garbage, who
from tests.contract.knowledge import Knowledge
from tests.contract.matches import Case
from tests.helpers import ADMIN_TOKEN
from tests.pages.tables import STYLE, browser_of, embedded, page_cards
from tests.pages.tables import Table as PageTable

Json = dict[str, Any]

JSON_ATTRIBUTE = re.compile(r"data-(?:action|actions|pick)='([^']*)'")
WORD = re.compile(r"[\w-]+")  # a card written as a word is a whole one: "ace-moons", "10H"


@dataclass
class Walk:
    """One table as the API built it, and what the organiser's log says of it so far."""

    client: FlaskClient
    spec: GameSpec
    id: str
    tokens: list[str | None]
    log: list[Any] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)
    known: Knowledge | None = None

    @property
    def version(self) -> int:
        return len(self.log)

    @property
    def table(self) -> Table:
        return self.log[0].table()

    @property
    def versions(self) -> range:
        return range(1, self.version + 1)

    @property
    def over(self) -> bool:
        return any(type(e) is MatchEnded for e in self.log)

    @property
    def viewers(self) -> list[Viewer]:
        return [*range(len(self.tokens)), None, ORGANISER]

    def headers(self, viewer: Viewer) -> dict[str, str]:
        token = ADMIN_TOKEN if viewer == ORGANISER else None
        if isinstance(viewer, int):
            token = self.tokens[viewer]
        return {"Authorization": f"Bearer {token}"} if token else {}

    def get(self, url: str, viewer: Viewer) -> TestResponse:
        return self.client.get(url, headers=self.headers(viewer))

    def json(self, url: str, viewer: Viewer) -> Any:
        response = self.get(url, viewer)
        assert response.status_code == 200, (url, who(viewer), response.get_data(as_text=True))
        return response.get_json()

    def may_know(self, viewer: Viewer, deal: int, version: int | None = None) -> Any:
        assert self.known is not None
        return self.known.may_know(version or self.version, viewer, deal)

    def deal_at(self, version: int) -> int:
        return int(self.states[version - 1].deal)

    def follow(self) -> None:
        """Read the organiser's log from where it was left, fold it and learn from it."""
        rules = game(self.spec.id)
        for row in events_of(self, ORGANISER, after=self.version):
            event = event_from_json(self.spec.id, row["type"], row["data"])
            if not self.log:
                state = rules.initial_state(event.table())
                self.known = Knowledge(self.spec, len(event.seats))
            else:
                state = rules.evolve(self.states[-1], event)
            self.log.append(event)
            self.states.append(state)
            assert self.known is not None
            self.known.learn(self.version, event, state)
            assert row["version"] == self.version


def open_table(client: FlaskClient, case: Case, seed: str) -> Walk:
    """``POST /tables`` as the organiser; the walk follows its log from version 1."""
    body = {
        "game": case.spec.id,
        "variant": case.variant,
        "seats": [{"name": f"Player {s}"} for s in range(case.players)],
        "seed": seed,
        "target_score": None,
        "max_deals": 1,
        # a short game where the game has a cap on its length (Oh Quay's turns)
        "rules": {"max_turns": 16} if "max_turns" in case.spec.options else {},
    }
    response = client.post("/tables", json=body, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    walk = Walk(client, case.spec, created["id"], [s["token"] for s in created["seats"]])
    walk.follow()
    return walk


def events_of(walk: Walk, viewer: Viewer, after: int = 0) -> list[Json]:
    """``GET /tables/{id}/events`` as ``viewer``, every page."""
    rows: list[Json] = []
    following: int | None = after
    while following is not None:
        page = walk.json(f"/tables/{walk.id}/events?after={following}&limit=1000", viewer)
        rows += page["events"]
        following = page["next"]
    return rows


def check_rows(walk: Walk, viewer: Viewer, rows: list[Json], where: str) -> None:
    """Event rows (``{"version", "type", "data"}``) hold no card the viewer may not know at
    the current version, and no seed or salt before the match ends."""
    for row in rows:
        at = f"{where}: v{row['version']} {row['type']}"
        deal = walk.deal_at(row["version"])
        assert_may_know(at, cards_in(walk.spec, row["data"]), walk.may_know(viewer, deal))
        if not walk.over and viewer != ORGANISER:
            assert_no_secret(at, row["data"], walk.table)


def check_answers(walk: Walk, viewer: Viewer) -> None:
    """``GET /state``, ``/events`` and the current deal's history as a seat or the public
    reads them now (the organiser may know everything: its answers are the log's)."""
    deal, name = walk.deal_at(walk.version), who(viewer)
    state = walk.json(f"/tables/{walk.id}/state", viewer)
    assert state["version"] == walk.version
    where = f"the state for {name} at version {walk.version}"
    shown = cards_in(walk.spec, state)
    assert_may_know(where, shown, walk.may_know(viewer, deal))
    assert walk.known is not None
    unseen = walk.known.in_sight(walk.states[-1], viewer) - shown
    assert not unseen, f"{where} lacks {sorted(map(str, unseen))}, in sight by the rules"
    rows = events_of(walk, viewer)
    assert [r["version"] for r in rows] == list(range(1, walk.version + 1))
    check_rows(walk, viewer, rows, f"the events for {name}")
    if not walk.over:
        assert_no_secret(where, state, walk.table)
    if deal:
        told = walk.json(f"/tables/{walk.id}/deals/{deal}", viewer)
        where = f"deal {deal}'s history for {name} at version {walk.version}"
        assert_may_know(where, cards_in(walk.spec, told), walk.may_know(viewer, deal))
        if not walk.over:
            assert_no_secret(where, told, walk.table)


def check_records(walk: Walk, viewer: Viewer) -> None:
    """What a seat or the public reads of a whole table: its summary and its export, which
    hold the seed and salt once the match is over and not before (``docs/api.md``, Audit),
    and the replay of the current deal, which is the organiser's alone until it is scored."""
    name = who(viewer)
    summary = walk.json(f"/tables/{walk.id}", viewer)
    secrets = (walk.table.seed, walk.table.salt) if walk.over else (None, None)
    assert (summary["seed"], summary["salt"]) == secrets, f"{name}: the seed in the summary"
    export = walk.get(f"/tables/{walk.id}/export", viewer)
    assert (export.status_code == 200) == walk.over, f"{name} exports: {export.status}"
    if walk.over:
        lines = [json.loads(line) for line in export.get_data(as_text=True).splitlines()]
        check_rows(walk, viewer, [line for line in lines if "version" in line], f"{name}'s export")
    deal = walk.deal_at(walk.version)
    if deal:
        replay = walk.get(f"/tables/{walk.id}/deals/{deal}/replay", viewer)
        scored = walk.may_know(viewer, deal) >= set(game(walk.spec.id).deck_of(walk.states[-1]))
        assert replay.status_code == (200 if scored else 403), f"{name}: deal {deal}'s replay"


def cards_on_page(spec: GameSpec, page: str) -> set[Card]:
    """The cards a page names: ``data-card`` attributes, action bodies in ``data-action``
    (and a builder's ``data-actions`` and ``data-pick``), and its embedded JSON."""
    texts = card_texts(spec)
    named = set(page_cards(page))
    unknown = named - set(texts)
    assert not unknown, f"the page draws cards the game does not have: {sorted(unknown)}"
    found: set[Card] = {texts[text] for text in named}
    for body in JSON_ATTRIBUTE.findall(page):
        found |= cards_in(spec, json.loads(html.unescape(body)))
    return found | cards_in(spec, embedded(page))


def words_in(spec: GameSpec, page: str) -> set[Card]:
    """Where cards are words (``"author"``, ``"10H"``), every card the page's text names
    anywhere (styles aside); where they are numbers, nothing: a number is not a card."""
    if not all(isinstance(card, str) for card in spec.deck):
        return set()
    return set(WORD.findall(STYLE.sub("", page))) & set(spec.deck)


def check_page(walk: Walk, viewer: Viewer) -> None:
    """``GET /tables/{id}/view`` from the viewer's own browser renders and names no card the
    viewer may not know, nor the seed or the salt before the match ends, nor its token."""
    page_table = PageTable(walk.id, list(walk.tokens), {})
    browser = browser_of(walk.client, page_table, viewer)
    response = browser.get(f"/tables/{walk.id}/view")
    name = who(viewer)
    assert response.status_code == 200, f"{name}'s page at version {walk.version}"
    page = response.get_data(as_text=True)
    where = f"the page of {name} at version {walk.version}"
    allowed = walk.may_know(viewer, walk.deal_at(walk.version))
    assert_may_know(where, cards_on_page(walk.spec, page) | words_in(walk.spec, page), allowed)
    if not walk.over and viewer != ORGANISER:
        assert_no_secret(where, [page], walk.table)
    token = walk.headers(viewer).get("Authorization", "").removeprefix("Bearer ")
    assert not token or token not in page, f"{where} holds the viewer's token"


def check_everyone(walk: Walk, records: bool = False) -> None:
    """Every viewer's page; each seat's and the public's answers, and with ``records`` the
    summary, export and replay they read."""
    for viewer in walk.viewers:
        check_page(walk, viewer)
        if viewer != ORGANISER:
            check_answers(walk, viewer)
            if records:
                check_records(walk, viewer)


def post(walk: Walk, seat: int, body: Json) -> Any:
    return walk.client.post(f"/tables/{walk.id}/actions", json=body, headers=walk.headers(seat))


def check_refused(walk: Walk, seat: int, body: Json, named: Any = None) -> None:
    """``body`` is refused (4xx) and appends nothing. A refusal of ``named``, a card the
    seat does not hold, names no other card the seat may not know, nor whose it is: where
    cards are numbers, no number but the card and the seat (``docs/api.md``: an error
    "never reveals a card the caller may not see")."""
    response = post(walk, seat, body)
    problem = response.get_json()
    assert 400 <= response.status_code < 500, (body, response.status_code, problem)
    before = walk.version
    walk.follow()
    assert walk.version == before, f"{body} was refused yet appended"
    where = f"the refusal of {body} to seat {seat}"
    allowed = walk.may_know(seat, walk.deal_at(walk.version)) | {named}
    shown = cards_in(walk.spec, problem)
    if named is not None:
        detail = str(problem["detail"])
        shown |= words_in(walk.spec, detail)
        if not isinstance(named, str):
            numbers = {int(n) for n in re.findall(r"\d+", detail)} - {seat}
            assert numbers <= {named}, f"{where} says more: {detail!r}"
    assert_may_know(where, shown, allowed)


def foreign(walk: Walk, seat: int, action: Json, rng: random.Random) -> tuple[Json, Any] | None:
    """The action with its one card swapped for a card hidden from the seat, and that card."""
    in_play = game(walk.spec.id).deck_of(walk.states[-1])
    hidden = set(in_play) - walk.may_know(seat, walk.deal_at(walk.version))
    fields = [
        k for k, v in action.items() if type(v) in (int, str) and cards_in(walk.spec, {k: v}) == {v}
    ]
    if not hidden or not fields:
        return None
    card = rng.choice(sorted(hidden, key=str))
    return {**action, rng.choice(fields): card}, card


def act(walk: Walk, rng: random.Random) -> None:
    """A seat to act takes one of the actions it is offered, after garbage and a card it
    does not hold are refused; every action offered is a body the API's schema takes."""
    seat = rng.choice(walk.json(f"/tables/{walk.id}/state", ORGANISER)["to_act"])
    offered = walk.json(f"/tables/{walk.id}/state", seat)["legal_actions"]
    assert offered, f"seat {seat} is to act and is offered nothing"
    for body in offered:
        assert ActionSchema().load(body) == body, f"the API's schema changes {body}"
    action = rng.choice(offered)
    check_refused(walk, seat, rng.choice(list(garbage(action))))
    swapped = foreign(walk, seat, action, rng)
    if swapped is not None:
        check_refused(walk, seat, *swapped)
    response = post(walk, seat, action)
    assert response.status_code == 201, (action, response.get_json())
    walk.follow()
    answer = response.get_json()
    assert answer["version"] == walk.version
    for row in answer["events"]:
        where = f"the answer to seat {seat}: v{row['version']} {row['type']}"
        allowed = walk.may_know(seat, walk.deal_at(row["version"]))
        assert_may_know(where, cards_in(walk.spec, row["data"]), allowed)
