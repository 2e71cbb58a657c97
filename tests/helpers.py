"""What many test modules share, once: apps beyond the default ``app`` fixture, tables
opened through the API with one set of defaults, the problem every refusal answers
(docs/api.md, "Requests and errors"), exports and imports, and the setups every game is
played in."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from domain.games import SPECS
from service.core.config import DEFAULT_TAP_QUIET_MS, Config
from service.core.signing import new_private_key
from service.running.app import create_app
from service.storage.db import run_migrations
from tests.factories import table_body

Json = dict[str, Any]
Headers = dict[str, str]

ADMIN_TOKEN = "test-organiser-token"
ORGANISER: Headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
NDJSON = "application/x-ndjson"
#: The tests' server key: every app a test builds is the same server unless it says
#: otherwise (its processes share one key, as a real server's do).
SIGNING_KEY = new_private_key()


def make_test_app(
    database_url: str,
    redis_url: str | None = None,
    *,
    migrate: bool = True,
    signing_key: str | None = None,
    trusted_keys: tuple[str, ...] = (),
    jobs: str | None = None,
    broker_url: str | None = None,
    tap_quiet_ms: int = DEFAULT_TAP_QUIET_MS,
) -> Flask:
    """An app on a migrated `database_url`, with a known organiser token, in testing mode.

    Its jobs run where ``jobs`` says; by default through Redis given a ``redis_url``, else
    eagerly inside the request (``CARDLEDGER_JOBS=eager``), never `make run`'s SQLite broker.

    Its signing key is `signing_key`, else the tests' ``SIGNING_KEY``: never the checkout's
    `var/signing-key`.
    """
    if migrate:
        run_migrations(database_url)
    config = Config(
        database_url=database_url,
        redis_url=redis_url,
        admin_token=ADMIN_TOKEN,
        signing_key=signing_key or SIGNING_KEY,
        trusted_keys=trusted_keys,
        jobs=jobs or ("redis" if redis_url else "eager"),
        broker_url=broker_url,
        tap_quiet_ms=tap_quiet_ms,
    )
    app = create_app(config)
    app.config["TESTING"] = True
    return app


def wait_for(check: Callable[[], Any], seconds: float, what: str) -> Any:
    """Poll ``check`` until it returns something truthy, at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def bearer(token: str) -> Headers:
    return {"Authorization": f"Bearer {token}"}


# --- tables ----------------------------------------------------------------------------------

#: The people a table seats by default, in seat order.
NAMES = ("Ann", "Bo", "Cy", "Di")


def kind_of(game_id: str, variant: str) -> str:
    """The name the tests open a game's variant by: the game's id for its default variant
    (``bestia``), else the variant's (``lopaka``)."""
    return game_id if variant == SPECS[game_id].default_variant else variant


#: Every registered game's every variant, by ``kind_of``, at its smallest table: a one-deal
#: match (no target) from a known seed, seat 0 dealing. Read from the registry: a new game
#: is opened here unnamed.
VARIANT_KINDS: dict[str, Json] = {
    kind_of(spec.id, variant): {
        "game": spec.id,
        "variant": variant,
        "players": min(counts),
        "target_score": None,
    }
    for spec in SPECS.values()
    for variant, counts in spec.players.items()
}
assert len(VARIANT_KINDS) == sum(len(s.variants) for s in SPECS.values()), "two kinds, one name"
#: The tables the tests open by name: every variant of every game (above), with The Bottle
#: Imp at four and at three and played to its target. The rest of a body is
#: ``tests.factories.table_body``'s.
TABLE_KINDS: dict[str, Json] = {
    **VARIANT_KINDS,
    "bottle-imp": {"game": "bottle-imp", "players": 4},
    "bottle-imp-3": {"game": "bottle-imp", "players": 3},
    "lopaka": {"game": "bottle-imp", "variant": "lopaka", "players": 2},
    "bright-house": {"game": "bottle-imp", "variant": "bright-house", "players": 2},
}


@dataclass(frozen=True)
class OpenTable:
    """A table as ``POST /tables`` answered: its id, each seat's token (``None`` for a
    bot), the body that opened it, and the whole answer."""

    id: str
    tokens: list[str | None]
    body: Json
    created: Json = field(default_factory=dict)

    def seat(self, seat: int) -> Headers:
        """The seat's bearer header."""
        return bearer(str(self.tokens[seat]))

    def token(self, viewer: int | str | None) -> str | None:
        """The token of a viewer: a seat, ``"organiser"``, or ``None`` (the public)."""
        if viewer is None:
            return None
        if viewer == "organiser":
            return ADMIN_TOKEN
        return self.tokens[int(viewer)]

    def headers(self, viewer: int | str | None) -> Headers:
        token = self.token(viewer)
        return bearer(token) if token else {}

    def query(self, viewer: int | str | None) -> str:
        """The link a viewer is handed (``?token=``): pages exchange it for a cookie."""
        token = self.token(viewer)
        return f"?token={token}" if token else ""


def table_of(game: str = "bottle-imp", **overrides: Any) -> Json:
    """A ``POST /tables`` body: ``game`` (a game's id, or a name in ``TABLE_KINDS``) with the
    defaults above, ``overrides`` over them (``players=n`` seats the first n of ``NAMES``)."""
    given = {**TABLE_KINDS.get(game, {"game": game}), **overrides}
    players = given.pop("players", len(NAMES))
    given.setdefault("seats", [{"name": name} for name in NAMES[:players]])
    return table_body(**given)


def post_table(client: FlaskClient, body: Json) -> OpenTable:
    """Open a table with exactly ``body`` (the organiser asks)."""
    response = client.post("/tables", json=body, headers=ORGANISER)
    assert response.status_code == 201, response.get_json()
    created: Json = response.get_json()
    return OpenTable(created["id"], [s["token"] for s in created["seats"]], body, created)


def open_table(client: FlaskClient, game: str = "bottle-imp", **overrides: Any) -> OpenTable:
    """Open a table of ``table_of(game, **overrides)``."""
    return post_table(client, table_of(game, **overrides))


# --- answers ---------------------------------------------------------------------------------


def assert_problem(response: TestResponse, status: int, code: str) -> Json:
    """A problem (RFC 9457, docs/api.md "Requests and errors") with this status and code."""
    body: Json = response.get_json()
    assert (response.status_code, body.get("code")) == (status, code), body
    assert response.mimetype == "application/problem+json"
    assert {"type", "title", "status", "detail", "code"} <= body.keys(), body
    assert body["status"] == status, body
    return body


def export_of(
    client: FlaskClient, table_id: str, headers: Headers = ORGANISER, reveal: bool = False
) -> str:
    """``GET /tables/{id}/export`` (``reveal``: with the seed and salt of a running table)."""
    query = "?reveal=true" if reveal else ""
    response = client.get(f"/tables/{table_id}/export{query}", headers=headers)
    assert response.status_code == 200, response.get_json()
    assert response.mimetype == NDJSON
    return response.get_data(as_text=True)


def import_file(
    client: FlaskClient, text: str | bytes, query: str = "", headers: Headers = ORGANISER
) -> TestResponse:
    """``POST /tables/import{query}`` of an export's text."""
    return client.post(f"/tables/import{query}", data=text, headers=headers, content_type=NDJSON)


# --- every game ------------------------------------------------------------------------------


def setups_of(game_id: str) -> list[tuple[str, int]]:
    """The (variant, players) a game is played in here, from its registered spec: every
    variant at every table of up to four, or at its smallest table if it seats more."""
    players = SPECS[game_id].players
    return [(variant, n) for variant, counts in players.items() for n in counts
            if n <= len(NAMES) or n == min(counts)]  # fmt: skip
