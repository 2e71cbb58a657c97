"""Tables for the page tests, opened and played through the JSON API as a club would, and
what a page shows, read back from its HTML."""

from __future__ import annotations

import html
import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

from flask.testing import FlaskClient

from domain.games import SPECS
from tests.contract.cards import cards_in
from tests.helpers import ADMIN_TOKEN, TABLE_KINDS, open_table, table_of
from tests.helpers import OpenTable as Table

Json = dict[str, Any]
Headers = dict[str, str]
ORGANISER: Headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}

#: One table body per kind of table the tests open by name (``tests.helpers.TABLE_KINDS``):
#: every registered game and variant, and The Bottle Imp at three and four.
BODIES: dict[str, Json] = {kind: table_of(kind) for kind in TABLE_KINDS}
KINDS = list(BODIES)


#: One cookie jar per (app, table, viewer): a browser that opened the viewer's link once.
_BROWSERS: dict[tuple[int, str, object], FlaskClient] = {}


def browser_of(client: FlaskClient, table: Table, viewer: int | str | None) -> FlaskClient:
    """A test client of its own for ``viewer`` (its own cookie jar, as a phone has), which
    opened the viewer's token link once: the page answered 303 to the address without the
    token and stored the token in an HttpOnly, SameSite=Strict cookie."""
    key = (id(client.application), table.id, viewer)
    if key in _BROWSERS:
        return _BROWSERS[key]
    browser = client.application.test_client()
    token = table.token(viewer)
    if token is not None:
        response = browser.get(f"/tables/{table.id}/view?token={token}")
        assert response.status_code == 303, response.get_data(as_text=True)[:300]
        assert response.headers["Location"] == f"/tables/{table.id}/view"
        cookie = response.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie, cookie
    _BROWSERS[key] = browser
    return browser


def open_page(client: FlaskClient, table: Table, viewer: int | str | None, path: str = "/view"):
    """``GET /tables/{id}{path}`` from the viewer's own browser (cookie, never a token)."""
    return browser_of(client, table, viewer).get(f"/tables/{table.id}{path}")


def state(client: FlaskClient, table: Table, viewer: int | str | None = "organiser") -> Json:
    response = client.get(f"/tables/{table.id}/state", headers=table.headers(viewer))
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def act(client: FlaskClient, table: Table, action: Json) -> Json:
    response = client.post(f"/tables/{table.id}/actions", json=action, headers=ORGANISER)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def moves(client: FlaskClient, table: Table, seed: object = 0) -> Iterator[Json]:
    """Random legal actions by the organiser, one at a time; yields the state after each."""
    rng = random.Random(f"{table.body['game']}-{seed}")
    while (now := state(client, table))["status"] != "finished":
        act(client, table, rng.choice(now["legal_actions"]))
        yield state(client, table)


def play(
    client: FlaskClient, table: Table, until: Callable[[Json], bool], seed: object = 0
) -> Json:
    """Play random legal actions until the organiser's state satisfies ``until``."""
    now = state(client, table)
    if until(now):
        return now
    for now in moves(client, table, seed):
        if until(now):
            return now
    raise AssertionError("the match ended first")


def table_reaching(
    client: FlaskClient, kind: str, until: Callable[[Json], bool], attempts: int = 30
) -> tuple[Table, Json]:
    """A fresh table of ``kind`` played by random legal actions until the organiser's state
    satisfies ``until``; the table and that state. Every table deals from its own secret
    salt (``docs/rules/common.md``), so a situation some deals never reach (an Oh Quay raft) is
    sought over fresh tables rather than pinned to one seed's deal."""
    for _ in range(attempts):
        table = open_table(client, kind)
        now = state(client, table)
        if until(now):
            return table, now
        for now in moves(client, table):
            if until(now):
                return table, now
    raise AssertionError(f"none of {attempts} {kind} tables reached the situation")


def finish(client: FlaskClient, table: Table, seed: object = 0) -> Json:
    return play(client, table, lambda s: s["status"] == "finished", seed)


def last_trick_cards(client: FlaskClient, table: Table, viewer: int | str | None) -> set[str]:
    """The cards of the tricks completed lately, from the viewer's own ``GET /events``:
    a page shows the last trick, whose cards were played face up (Bestia's view no
    longer holds them once the trick is gathered)."""
    version = state(client, table, viewer)["version"]
    after = max(0, version - 40)
    response = client.get(f"/tables/{table.id}/events?after={after}", headers=table.headers(viewer))
    assert response.status_code == 200, response.get_json()
    landmarks = SPECS[table.body["game"]].landmarks
    return {
        str(c)
        for e in response.get_json()["events"]
        if landmarks.completes_trick(e["type"])
        for c in e["data"]["cards"]
    }


def playing(s: Json) -> bool:
    return s["phase"] == "playing" or s.get("launch") is not None


# --- reading pages ---------------------------------------------------------------------------

CARD_ATTR = re.compile(r'data-card="([^"]*)"')
JSON_SCRIPT = re.compile(r'<script type="application/json" id="([^"]+)">(.*?)</script>', re.S)
STYLE = re.compile(r"<style>.*?</style>", re.S)


def page_cards(page: str) -> list[str]:
    """Every card the page draws (``data-card`` values), in order."""
    return [html.unescape(c) for c in CARD_ATTR.findall(page)]


def backs(page: str) -> int:
    """How many face-down cards the page draws."""
    return page.count('class="card back"')


def embedded(page: str) -> dict[str, Any]:
    """The JSON documents embedded in the page, by element id."""
    return {name: json.loads(body) for name, body in JSON_SCRIPT.findall(page)}


def leaves(value: Any) -> Iterator[Any]:
    """Every scalar in nested lists and dicts, ``None`` left out."""
    if isinstance(value, list | tuple):
        for v in value:
            yield from leaves(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif value is not None:
        yield value


def cards_in_view(view: Json) -> set[str]:
    """Every card a view shows, as a page writes it (``data-card``), found by the game's
    card fields (``tests/contract/cards.py``)."""
    return {str(card) for card in cards_in(SPECS[view["game"]], view)}


def hidden_hands(view: Json) -> int:
    """The cards of the hands the view withholds (``hands[seat]`` ``None``, or one of a
    seat's named piles), by ``hand_sizes``: every game's view has both (``docs/api.md``)."""
    count = 0
    for hand, size in zip(view["hands"], view["hand_sizes"], strict=True):
        if isinstance(size, dict):
            count += sum(size[p] for p in size if hand is None or hand[p] is None)
        elif hand is None:
            count += size
    return count


def _bottle_imp_backs(view: Json) -> int:
    """The hands, and the devil's trick until it is shown."""
    devil = view["devil_trick_size"] if view["devil_trick"] is None else 0
    return hidden_hands(view) + devil


def _oh_quay_backs(view: Json) -> int:
    """The canals' hidden cards, and each quay's but its top card."""
    canal_backs = sum(c is None for canal in view["canals"] for c in canal)
    quay_backs = sum(
        0 if q["cards"] is not None else q["size"] - (q["top"] is not None) for q in view["quays"]
    )
    return canal_backs + quay_backs


#: The games whose pages draw face down more than the hidden hands, written from their
#: rules texts (``docs/rules/<game>.md``, Hidden information), as the contract's sights are.
BACKS: dict[str, Callable[[Json], int]] = {
    "bottle-imp": _bottle_imp_backs,
    "oh-quay": _oh_quay_backs,
}


def hidden_in_view(view: Json) -> int:
    """How many cards the view withholds that a page draws face down: the hidden hands,
    unless the game's rules hide more (``BACKS``); a page that draws another count fails."""
    return BACKS.get(view["game"], hidden_hands)(view)
