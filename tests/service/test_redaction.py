"""Hidden information (``docs/rules/common.md``): while a deal is played, no seat and no spectator
ever receives a card of another seat's hidden hand, nor the seed or the table's salt (which
with a guessable seed would deal every hand, ``docs/rules/common.md``): not in ``GET /state``,
not in ``GET /events``, not in the events a ``POST /actions`` returns, not in an error message.

What is hidden from a viewer is worked out here from the organiser's view, independently of
the service's redaction: every card in a hand, a discard, a pass or the devil's trick, minus
what the viewer holds, laid, passed or received, minus what is public (cards played, Lopaka's
hand after the exchange, Bright House open piles once chosen; everything once the deal is
scored). Cards are small integers, so only card-valued fields are compared.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.factories import table_body
from tests.helpers import ADMIN_TOKEN

# --- helpers ---------------------------------------------------------------------------------

Headers = dict[str, str]
Json = dict[str, Any]
Viewer = int | None  # a seat, or None for the public

ORGANISER: Headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
CARD_FIELDS = frozenset(
    {"hands", "discards", "passes", "received", "devil_trick", "devil"}
    | {"card", "left", "right", "opponent"}  # hands and piles; one card or a pass
)
START_CARD = 19


@dataclass(frozen=True)
class OpenTable:
    id: str
    tokens: list[str]
    seed: str
    salt: str  # the server's, as the organiser's log shows it

    def headers(self, viewer: Viewer) -> Headers:
        return {} if viewer is None else {"Authorization": f"Bearer {self.tokens[viewer]}"}


def open_table(client: FlaskClient, **overrides: Any) -> OpenTable:
    body = table_body(**overrides)
    response = client.post("/tables", json=body, headers=ORGANISER)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    log = get(client, f"/tables/{created['id']}/events", ORGANISER).get_json()["events"]
    salt = log[0]["data"]["salt"]
    assert re.fullmatch("[0-9a-f]{32}", salt), salt
    return OpenTable(created["id"], [s["token"] for s in created["seats"]], body["seed"], salt)


def name(viewer: Viewer) -> str:
    return "the public" if viewer is None else f"seat {viewer}"


def get(client: FlaskClient, url: str, headers: Headers) -> TestResponse:
    response = client.get(url, headers=headers)
    assert response.status_code == 200, response.get_json()
    return response


def all_events(client: FlaskClient, table: OpenTable, headers: Headers) -> list[Json]:
    events: list[Json] = []
    after: int | None = 0
    while after is not None:
        page = get(client, f"/tables/{table.id}/events?after={after}", headers).get_json()
        events += page["events"]
        after = page["next"]
    return events


def card_values(value: Any, is_card: bool = False) -> Iterator[int]:
    """Every integer found under a card-valued field, however deeply nested."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from card_values(inner, is_card or key in CARD_FIELDS)
    elif isinstance(value, list):
        for inner in value:
            yield from card_values(inner, is_card)
    elif is_card and type(value) is int:
        yield value


def cards(value: Any) -> set[int]:
    return set(card_values(value, is_card=True))


def public_cards(organiser: Json) -> set[int]:
    """Cards everyone may see now: played ones, Lopaka's hand in play, open piles."""
    shown = cards(organiser["won"]) | {c["card"] for c in organiser["trick"]["cards"]}
    shown |= {organiser["bottle"]["price"]} - {START_CARD}
    if organiser["variant"] == "lopaka" and organiser["phase"] == "playing":
        shown |= cards(organiser["hands"][2])
    for seat, pile in enumerate(organiser["open_hands"] or []):
        if pile is not None:
            shown |= cards(organiser["hands"][seat][pile])
    return shown


def hidden_from(organiser: Json, viewer: Viewer) -> set[int]:
    """The cards ``viewer`` may not see, per the organiser's view of the same moment."""
    if organiser["phase"] in ("waiting_for_deal", "finished"):
        return set()  # the deal is scored: everything of it is public
    secret = cards(organiser["devil_trick"])
    for key in ("hands", "discards", "passes"):
        secret |= cards(organiser[key])
    known: set[int] = set()
    if viewer is not None:
        for key in ("hands", "discards", "passes", "received"):
            known |= cards(organiser[key][viewer])
    return secret - known - public_cards(organiser)


def since_deal_started(events: list[Json]) -> list[Json]:
    """The events of the deal in progress (earlier deals are scored, hence public)."""
    starts = [i for i, e in enumerate(events) if e["type"] == "DealStarted"]
    return events[starts[-1] :] if starts else []


def assert_hides(where: str, value: Any, hidden: set[int]) -> None:
    leaked = set(card_values(value)) & hidden
    assert not leaked, f"{where} shows hidden cards {sorted(leaked)}"


def assert_seed_secret(table: OpenTable, viewer: Viewer, *responses: TestResponse) -> None:
    for response in responses:
        text = response.get_data(as_text=True)
        assert table.seed not in text, f"{name(viewer)} sees the seed"
        assert table.salt not in text, f"{name(viewer)} sees the salt"


@dataclass
class Deal:
    """A one-deal match walked through the API, checking every viewer at every version."""

    client: FlaskClient
    table: OpenTable
    players: int
    rng: random.Random

    @property
    def viewers(self) -> list[Viewer]:
        return [*range(self.players), None]

    def organiser(self) -> Json:
        state: Json = get(self.client, f"/tables/{self.table.id}/state", ORGANISER).get_json()
        return state

    def check_views(self, organiser: Json) -> None:
        """``GET /state``, ``GET /events`` and ``GET /tables/{id}`` as every viewer."""
        for viewer in self.viewers:
            headers, hidden = self.table.headers(viewer), hidden_from(organiser, viewer)
            state_response = get(self.client, f"/tables/{self.table.id}/state", headers)
            state = state_response.get_json()
            assert_hides(f"the state for {name(viewer)}", state, hidden)
            if viewer is not None:  # not vacuous: a seat sees its own hand
                assert state["hands"][viewer] == organiser["hands"][viewer]
            for shown in public_cards(organiser) & cards(organiser["hands"]):
                assert shown in cards(state["hands"]), f"public card {shown} not shown"

            events = all_events(self.client, self.table, headers)
            assert_hides(f"the events for {name(viewer)}", since_deal_started(events), hidden)
            summary = get(self.client, f"/tables/{self.table.id}", headers)
            if organiser["status"] != "finished":
                assert events[0]["data"]["seed"] is None and "salt" not in events[0]["data"]
                assert all(e["data"]["seed"] is None for e in events if e["type"] == "DealStarted")
                assert (summary.get_json()["seed"], summary.get_json()["salt"]) == (None, None)
                events_response = get(self.client, f"/tables/{self.table.id}/events", headers)
                assert_seed_secret(self.table, viewer, state_response, events_response, summary)

    def check_error_message(self, organiser: Json, seat: int, action: Json) -> None:
        """The seat names a card hidden in another seat's hand: the refusal must not say whose."""
        field = next((f for f in ("card", "left", "opponent") if f in action), None)
        elsewhere = hidden_from(organiser, seat) & cards(organiser["hands"])
        if field is None or not elsewhere:
            return
        foreign = self.rng.choice(sorted(elsewhere))
        response = self.client.post(
            f"/tables/{self.table.id}/actions",
            json=action | {field: foreign},
            headers=self.table.headers(seat),
        )
        problem = response.get_json()
        assert (response.status_code, problem["code"]) == (422, "card_not_in_hand"), problem
        named = {int(n) for n in re.findall(r"\d+", problem["detail"])}
        assert named <= {foreign, seat}, f"the refusal says more: {problem['detail']!r}"
        assert_hides("the refusal", problem, hidden_from(organiser, seat) - {foreign})

    def play(self) -> Json:
        """Walk to the end of the match; return the organiser's final state."""
        while (organiser := self.organiser())["status"] != "finished":
            self.check_views(organiser)
            seat = self.rng.choice(organiser["to_act"])
            headers = self.table.headers(seat)
            url = f"/tables/{self.table.id}/state"
            offered = get(self.client, url, headers).get_json()["legal_actions"]
            action = self.rng.choice(offered)
            self.check_error_message(organiser, seat, action)

            response = self.client.post(
                f"/tables/{self.table.id}/actions", json=action, headers=headers
            )
            assert response.status_code == 201, response.get_json()
            after = self.organiser()
            assert_hides(
                f"the answer to seat {seat}", response.get_json(), hidden_from(after, seat)
            )
            if after["status"] != "finished":
                assert_seed_secret(self.table, seat, response)
        self.check_views(organiser)
        return organiser


VARIANTS = {  # players, and the factory's overrides
    "standard-4": (4, {"players": 4}),
    "lopaka": (2, {"lopaka": True}),
    "bright-house": (2, {"bright_house": True}),
}


# --- tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "overrides"), VARIANTS.values(), ids=VARIANTS.keys())
def test_no_seat_nor_the_public_ever_sees_a_hidden_card_or_the_seed(
    client: FlaskClient, players: int, overrides: Json
) -> None:
    table = open_table(client, seed="a-well-kept-secret", max_deals=1, **overrides)
    Deal(client, table, players, random.Random(f"redaction-{overrides}")).play()


@pytest.mark.parametrize(("players", "overrides"), VARIANTS.values(), ids=VARIANTS.keys())
def test_once_the_match_ends_everyone_sees_the_seed_and_every_dealt_card(
    client: FlaskClient, players: int, overrides: Json
) -> None:
    table = open_table(client, max_deals=1, **overrides)
    Deal(client, table, players, random.Random(1)).play()
    organiser_log = all_events(client, table, ORGANISER)
    for viewer in [*range(players), None]:
        log = all_events(client, table, table.headers(viewer))
        assert log == organiser_log
        assert (log[0]["data"]["seed"], log[0]["data"]["salt"]) == (table.seed, table.salt)
        shown = get(client, f"/tables/{table.id}", table.headers(viewer)).get_json()
        assert (shown["seed"], shown["salt"]) == (table.seed, table.salt)


def test_a_seat_replaying_the_organisers_idempotency_key_gets_no_hidden_card(
    client: FlaskClient,
) -> None:
    """BUG: a stored answer is replayed to whoever sends the same key and body, so a seat
    that guesses the key of the organiser's ``{"type": "deal"}`` receives every hand."""
    table = open_table(client, seed="replayed-secret")
    key = {"Idempotency-Key": "deal-1"}
    dealt = client.post(
        f"/tables/{table.id}/actions", json={"type": "deal"}, headers=ORGANISER | key
    )
    assert dealt.status_code == 201
    organiser = get(client, f"/tables/{table.id}/state", ORGANISER).get_json()

    replay = client.post(
        f"/tables/{table.id}/actions", json={"type": "deal"}, headers=table.headers(1) | key
    )
    assert_hides("the replayed answer", replay.get_json(), hidden_from(organiser, 1))
    assert_seed_secret(table, 1, replay)
