"""Hostile bodies neither crash the service nor cost it (issue 12, finding 4).

Every writing route settles who asks before it reads a byte of the body; a body is refused
by size (413) before it is read, JSON nested too deep or naming a key twice is a 400 before
``json`` recurses into it, and numbers and text are bounded by the schemas (422). The
bodies here are streams that count what is read of them, so "not read" is a fact, not a
timing.
"""

from __future__ import annotations

import io
import json
import re
import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from domain import rulings
from domain.errors import RuleViolation
from service.core.client_json import too_deep
from tests.factories import table_body
from tests.helpers import ADMIN_TOKEN, assert_problem, open_table

Headers = dict[str, str]

ORGANISER: Headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
FORGED: Headers = {"Authorization": "Bearer forged-token-nobody-was-given"}
NDJSON = "application/x-ndjson"
DEEP = "[" * 100_000 + "]" * 100_000
FIFTY_MB = 50 * 2**20
#: The documented limits (``docs/api.md``, Status codes; README.md, "Limits"), written out
#: here rather than imported: a change to the code's numbers must fail these tests.
MAX_JSON_BODY = 256 * 1024
MAX_IMPORT_BODY = 16 * 2**20
MAX_DEPTH = 32


class Body(io.RawIOBase):
    """A request body of ``size`` bytes of ``fill``, made up as it is read, counting reads."""

    def __init__(self, size: int, fill: bytes = b"[") -> None:
        self.left, self.fill, self.read_bytes = size, fill, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), self.left)
        buffer[:n] = self.fill * n
        self.left -= n
        self.read_bytes += n
        return n


def send(
    client: FlaskClient, path: str, body: Body, headers: Headers, *, chunked: bool = False
) -> TestResponse:
    """POST ``body`` as a stream: with its ``Content-Length``, or chunked (no length, the
    server ends the stream, as gunicorn does)."""
    environ: dict[str, Any] = {"wsgi.input": body}
    if chunked:
        environ["wsgi.input_terminated"] = True
    else:
        environ["CONTENT_LENGTH"] = str(body.left)
    return client.post(
        path, headers=headers, content_type="application/json", environ_overrides=environ
    )


def version(client: FlaskClient, table_id: str) -> int:
    return int(client.get(f"/tables/{table_id}").get_json()["version"])


def writing_routes(app: Flask) -> list[str]:
    """``METHOD /path`` of every route that changes something, ids filled in."""
    found = []
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods & {"POST", "PUT", "PATCH", "DELETE"}):
            path = re.sub(r"<id:\w+>", uuid.uuid4().hex, rule.rule)
            path = re.sub(r"<int:\w+>", "1", path)
            assert "<" not in path, f"fill in the converter of {rule.rule}"
            found.append(f"{method} {path}")
    return found


# --- the caller first ------------------------------------------------------------------------


def test_every_writing_route_refuses_a_caller_without_reading_the_body(
    app: Flask, client: FlaskClient
) -> None:
    opened = open_table(client, players=3)
    table_id, tokens = opened.id, opened.tokens
    seat = {"Authorization": f"Bearer {tokens[0]}"}  # only its own table's actions take it
    routes = writing_routes(app)
    assert {"POST /tables", "POST /tables/import"} <= set(routes)
    callers: list[tuple[Headers, set[int]]] = [
        ({}, {401}),
        (FORGED, {401, 403}),
        ({"Authorization": "Basic b3JnYW5pc2Vy"}, {401}),
    ]
    tried = [(route, headers, allowed) for route in routes for headers, allowed in callers]
    tried += [(route, seat, {401, 403}) for route in routes]
    for route in (f"POST /tables/{table_id}/actions", f"POST /tables/{table_id}/autoplay"):
        tried += [(route, headers, allowed) for headers, allowed in callers]
    for route, headers, allowed in tried:
        method, path = route.split(" ", 1)
        body = Body(FIFTY_MB)
        response = client.open(
            path,
            method=method,
            headers=headers,
            content_type="application/json",
            environ_overrides={"wsgi.input": body, "CONTENT_LENGTH": str(FIFTY_MB)},
        )
        assert response.status_code in allowed, (route, headers, response.get_json())
        assert body.read_bytes == 0, (route, headers)
    assert version(client, table_id) == 1


def test_a_forged_or_foreign_token_at_a_table_is_401_whatever_the_body(
    client: FlaskClient,
) -> None:
    table_id = open_table(client, players=3).id
    other_tokens = open_table(client, players=3).tokens
    actions = f"/tables/{table_id}/actions"
    foreign = {"Authorization": f"Bearer {other_tokens[0]}"}  # a seat of another table
    for headers in (FORGED, foreign):
        for fill in (b"[", b" "):  # nested, or merely huge
            body = Body(FIFTY_MB, fill)
            assert_problem(send(client, actions, body, headers), 401, "unauthorized")
            assert body.read_bytes == 0
        nested = client.post(actions, data=DEEP, headers=headers, content_type="application/json")
        assert_problem(nested, 401, "unauthorized")
    assert version(client, table_id) == 1


# --- sizes -----------------------------------------------------------------------------------


def test_an_oversize_body_is_413_before_it_is_read(client: FlaskClient) -> None:
    opened = open_table(client, players=3)
    table_id, tokens = opened.id, opened.tokens
    seat = {"Authorization": f"Bearer {tokens[0]}"}
    for path, headers, limit in [
        ("/tables", ORGANISER, MAX_JSON_BODY),
        (f"/tables/{table_id}/actions", seat, MAX_JSON_BODY),
        (f"/tables/{table_id}/actions", ORGANISER, MAX_JSON_BODY),
        ("/tournaments", ORGANISER, MAX_JSON_BODY),
        ("/tables/import", ORGANISER, MAX_IMPORT_BODY),
    ]:
        body = Body(limit + 1)
        refused = assert_problem(send(client, path, body, headers), 413, "payload_too_large")
        assert str(limit) in refused["detail"]
        assert body.read_bytes == 0, path
    assert version(client, table_id) == 1


def test_a_body_of_exactly_the_limit_is_read(client: FlaskClient) -> None:
    """The documented number is the limit, not merely above it: a blank body of that size is
    read to its end and refused as JSON (400) or as a file (422), never as too large."""
    for path, limit in [("/tables", MAX_JSON_BODY), ("/tables/import", MAX_IMPORT_BODY)]:
        body = Body(limit, b" ")
        response = send(client, path, body, ORGANISER)
        assert response.status_code in (400, 422), (path, response.get_json())
        assert body.read_bytes == limit, path


def test_a_chunked_oversize_body_is_413_once_the_limit_is_passed(client: FlaskClient) -> None:
    table_id = open_table(client, players=3).id
    for path, limit in [
        ("/tables", MAX_JSON_BODY),
        (f"/tables/{table_id}/actions", MAX_JSON_BODY),
        ("/tables/import", MAX_IMPORT_BODY),
    ]:
        body = Body(2 * limit, b" ")
        assert_problem(send(client, path, body, ORGANISER, chunked=True), 413, "payload_too_large")
        assert limit < body.read_bytes < 2 * limit  # read up to the limit, never to the end
    assert version(client, table_id) == 1


def test_an_import_takes_more_than_a_json_body(client: FlaskClient) -> None:
    junk = "x" * (2 * MAX_JSON_BODY)
    assert_problem(client.post("/tables", data=junk, headers=ORGANISER), 413, "payload_too_large")
    imported = client.post("/tables/import", data=junk, headers=ORGANISER, content_type=NDJSON)
    assert_problem(imported, 422, "import_rejected")  # read, and judged as a file


# --- nesting and repeated keys ---------------------------------------------------------------


def test_deep_nesting_is_a_400_on_every_route_that_reads_json(client: FlaskClient) -> None:
    opened = open_table(client, players=3)
    table_id, tokens = opened.id, opened.tokens
    seat = {"Authorization": f"Bearer {tokens[0]}"}
    for path, headers in [
        ("/tables", ORGANISER),
        (f"/tables/{table_id}/actions", seat),
        (f"/tables/{table_id}/actions", ORGANISER),
        ("/tournaments", ORGANISER),
        ("/simulations", ORGANISER),
        ("/players", ORGANISER),
    ]:
        response = client.post(path, data=DEEP, headers=headers, content_type="application/json")
        refused = assert_problem(response, 400, "too_deeply_nested")
        assert refused["limit"] == MAX_DEPTH
    inside = '{"type": "deal", "hands": ' + DEEP + "}"
    response = client.post(f"/tables/{table_id}/actions", data=inside, headers=seat)
    assert_problem(response, 400, "too_deeply_nested")
    assert version(client, table_id) == 1


def test_deep_nesting_in_an_import_is_a_400_naming_its_line(client: FlaskClient) -> None:
    table_id = open_table(client, players=3).id
    export = client.get(f"/tables/{table_id}/export", headers=ORGANISER).get_data(as_text=True)
    header = export.splitlines()[0]
    for text, line in [(DEEP, 1), (f"{header}\n{DEEP}\n", 2)]:
        response = client.post("/tables/import", data=text, headers=ORGANISER, content_type=NDJSON)
        assert assert_problem(response, 400, "too_deeply_nested")["line"] == line


def test_nesting_up_to_the_limit_is_read_as_usual(client: FlaskClient) -> None:
    table_id = open_table(client, players=3).id
    hands = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)  # the body's object is one more
    response = client.post(
        f"/tables/{table_id}/actions",
        data='{"type": "deal", "hands": ' + hands + "}",
        headers=ORGANISER,
        content_type="application/json",
    )
    assert response.status_code == 422  # parsed, and refused by the engine as a deal
    assert version(client, table_id) == 1


def test_a_key_given_twice_is_a_400_naming_it(client: FlaskClient) -> None:
    opened = open_table(client, players=3)
    table_id, tokens = opened.id, opened.tokens
    seat = {"Authorization": f"Bearer {tokens[0]}"}
    opened = json.dumps(table_body(players=3))[1:]  # a valid body, after the repeated key
    twice = [
        ("/tables", ORGANISER, '{"game": "bestia", ' + opened, "game"),
        (f"/tables/{table_id}/actions", seat, '{"type": "deal", "type": "play"}', "type"),
        (
            f"/tables/{table_id}/actions",
            ORGANISER,
            '{"type": "adjust", "seat": 0, "points": 1, "reason": "a", "points": 9}',
            "points",
        ),
        ("/tournaments", ORGANISER, '{"name": "a", "rules": {"ante": 1, "ante": 2}}', "ante"),
    ]
    for path, headers, text, key in twice:
        response = client.post(path, data=text, headers=headers, content_type="application/json")
        refused = assert_problem(response, 400, "duplicate_key")
        assert refused["key"] == key and repr(key) in refused["detail"]
    assert version(client, table_id) == 1
    export = client.get(f"/tables/{table_id}/export", headers=ORGANISER).get_data(as_text=True)
    header = export.splitlines()[0]
    repeated = header[:-1] + ', "events": 0}'  # the header says "events" twice
    response = client.post("/tables/import", data=repeated, headers=ORGANISER, content_type=NDJSON)
    assert assert_problem(response, 400, "duplicate_key")["line"] == 1


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        ("[" * MAX_DEPTH + "]" * MAX_DEPTH, False),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), True),
        ('{"a": ' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1), True),
        ('["' + "[" * 1000 + '"]', False),  # brackets inside a string do not nest
        ('["\\"' + "[" * 1000 + '"]', False),  # nor after an escaped quote
        ("[" * 1000, True),  # unclosed is still too deep
        ("[]" * 10_000, False),  # many, side by side
    ],
    ids=["at-limit", "over-limit", "objects", "in-string", "escaped-quote", "unclosed", "flat"],
)
def test_depth_is_counted_without_recursion(text: str, deep: bool) -> None:
    assert too_deep(text) is deep


# --- bounded numbers and text ----------------------------------------------------------------


def ruling(**change: Any) -> dict[str, Any]:
    return {"type": "adjust", "seat": 1, "points": -10, "reason": "slow play", **change}


@pytest.mark.parametrize(
    ("change", "status", "field"),
    [
        ({"points": 10**40}, 422, "points"),
        ({"points": -1_000_001}, 422, "points"),
        ({"reason": "r" * 501}, 422, "reason"),
        ({"reason": "r" * 2**20}, 413, None),  # a 1 MB reason is over the body limit first
    ],
    ids=["points-10-40", "points-over-a-million", "reason-501", "reason-1MB"],
)
def test_an_outsize_ruling_is_refused_and_nothing_is_appended(
    client: FlaskClient, change: dict[str, Any], status: int, field: str | None
) -> None:
    table_id = open_table(client, players=3).id
    before = version(client, table_id)
    response = client.post(f"/tables/{table_id}/actions", json=ruling(**change), headers=ORGANISER)
    if field is None:
        assert_problem(response, status, "payload_too_large")
    else:
        assert field in assert_problem(response, status, "validation_error")["errors"]
    assert version(client, table_id) == before


def test_a_ruling_at_the_bounds_is_recorded(client: FlaskClient) -> None:
    table_id = open_table(client, players=3).id
    for points in (1_000_000, -1_000_000):
        body = ruling(points=points, reason="r" * 500)
        response = client.post(f"/tables/{table_id}/actions", json=body, headers=ORGANISER)
        assert response.status_code == 201, response.get_json()
    assert version(client, table_id) == 3


@pytest.mark.parametrize(
    "change",
    [{"points": 10**40}, {"points": -(10**7)}, {"reason": "r" * 501}],
    ids=["points-10-40", "points-minus-10-7", "reason-501"],
)
def test_the_engine_bounds_a_ruling_whatever_path_it_came_by(change: dict[str, Any]) -> None:
    with pytest.raises(RuleViolation) as parsed:
        rulings.parse(ruling(**change))
    assert parsed.value.code == "invalid_adjustment"
    with pytest.raises(RuleViolation) as checked:  # what decide (and an import's re-check) runs
        rulings.check_ruling(ruling(**change)["points"], ruling(**change)["reason"])
    assert checked.value.code == "invalid_adjustment"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/tables", table_body(players=3, rules={"first_dealer": 10**40}), "rules"),
        ("/tables", table_body(players=3, rules={"first_dealer": "x" * 41}), "rules"),
        ("/tables", table_body(players=3, rules={"first_dealer": [[[0]]]}), "rules"),
        ("/tables", table_body(players=3, seed="s" * 201), "seed"),
        ("/tables", table_body(players=3, seed=10**300), "seed"),
        ("/tables", table_body(seats=[{"name": "n" * 81}, {"name": "b"}, {"name": "c"}]), "seats"),
        ("/tables", table_body(players=3, target_score=10**40), "target_score"),
        ("/tournaments", {"name": "n" * 121, "game": "bestia", "table_size": 4}, "name"),
        ("/players", {"name": "n" * 81}, "name"),
    ],
    ids=[
        "option-10-40",
        "option-long-text",
        "option-nested",
        "seed-long",
        "seed-huge-int",
        "seat-name",
        "target",
        "tournament-name",
        "player-name",
    ],
)
def test_outsize_numbers_and_text_are_422(
    client: FlaskClient, path: str, body: dict[str, Any], field: str
) -> None:
    response = client.post(path, json=body, headers=ORGANISER)
    errors = assert_problem(response, 422, "validation_error")["errors"]
    assert any(name.split(".")[0] == field for name in errors), errors


def test_an_outsize_option_name_is_an_unknown_option(client: FlaskClient) -> None:
    """OpenAPI cannot bound an object's keys, so a long option name is refused as the games
    refuse any name they do not know, not as a schema error the spec does not state."""
    body = table_body(players=3, rules={"k" * 41: 1})
    refused = client.post("/tables", json=body, headers=ORGANISER)
    assert "rule option" in assert_problem(refused, 422, "unknown_option")["detail"]


@pytest.mark.parametrize(
    ("change", "field"),
    [({"seat": 10**40}, "seat"), ({"position": 10**6}, "position"), ({"count": -(10**6)}, "count")],
    ids=["seat", "position", "count"],
)
def test_outsize_action_numbers_are_422(
    client: FlaskClient, change: dict[str, Any], field: str
) -> None:
    table_id = open_table(client, players=3).id
    body = {"type": "play", "seat": 0, "card": 1, **change}
    response = client.post(f"/tables/{table_id}/actions", json=body, headers=ORGANISER)
    assert field in assert_problem(response, 422, "validation_error")["errors"]
    assert version(client, table_id) == 1
