"""The hostile bodies of issue 12, finding 4, sent to a real gunicorn over real sockets.

Where the Flask client can only say what the app read, these show what a server does: a
refusal by token or by size comes back while the client has sent its headers and nothing
of the announced 50 MB (the server cannot have read what never came), a chunked body is
cut off at the limit, and nothing crashes (no 500, no traceback in the server's output).
"""

from __future__ import annotations

import http.client
import secrets
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from service.storage.db import run_migrations
from tests.factories import table_body
from tests.integration.served import Served, gunicorn, read

ADMIN = secrets.token_urlsafe(24)
ORGANISER = {"Authorization": f"Bearer {ADMIN}"}
FORGED = {"Authorization": "Bearer forged-token-nobody-was-given"}
DEEP = "[" * 100_000 + "]" * 100_000
FIFTY_MB = 50 * 2**20
#: The documented limits (``docs/api.md``, Status codes), written out: never the code's.
MAX_JSON_BODY = 256 * 1024
MAX_IMPORT_BODY = 16 * 2**20


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One gunicorn for the module, configured as ``make run`` configures it."""
    home = tmp_path_factory.mktemp("gunicorn")
    url = f"sqlite:///{home / 'cardledger.db'}"
    run_migrations(url)
    served = gunicorn(url, ADMIN, home / "gunicorn.log", workers=1)
    try:
        yield served
    finally:
        served.stop()


@pytest.fixture(scope="module")
def table(server: Served) -> tuple[str, dict[str, str]]:
    """A table on the server, and its seat 0's header."""
    status, created = server.request("POST", "/tables", table_body(players=3), ORGANISER)
    assert status == 201, created
    return created["id"], {"Authorization": f"Bearer {created['seats'][0]['token']}"}


def headers_only(
    server: Served, path: str, headers: dict[str, str], length: int
) -> tuple[int, Any]:
    """Announce a body of ``length`` bytes, send none of it, and read the answer."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
        lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
        lines += [f"{k}: {v}" for k, v in headers.items()] + [f"Content-Length: {length}"]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        response = http.client.HTTPResponse(sock)
        response.begin()
        return read(response)


def chunked(server: Served, path: str, headers: dict[str, str], total: int) -> tuple[int, Any]:
    """Send ``total`` bytes of spaces as a chunked body (no Content-Length)."""
    piece = b" " * 2**16

    def pieces() -> Iterator[bytes]:
        for _ in range(total // len(piece)):
            yield piece

    connection = server.connection()
    try:
        connection.request(
            "POST", path, body=pieces(), headers={"Content-Type": "application/json", **headers},
            encode_chunked=True,
        )  # fmt: skip
        return read(connection.getresponse())
    finally:
        connection.close()


def code(answer: tuple[int, Any]) -> tuple[int, str]:
    status, body = answer
    return status, body.get("code") if isinstance(body, dict) else body


def assert_unharmed(server: Served, table_id: str) -> None:
    """Still answering, the table untouched, and nothing crashed on the way."""
    status, summary = server.request("GET", f"/tables/{table_id}")
    assert (status, summary["version"]) == (200, 1)
    output = server.output()
    assert "Traceback" not in output and "RecursionError" not in output, output[-3000:]


def test_deep_nesting_and_repeated_keys_are_400(
    server: Served, table: tuple[str, dict[str, str]]
) -> None:
    table_id, seat = table
    json_type = {"Content-Type": "application/json"}
    for path, headers in [
        ("/tables", ORGANISER),
        (f"/tables/{table_id}/actions", seat),
        ("/tables/import", ORGANISER),
    ]:
        answer = server.request("POST", path, DEEP, {**headers, **json_type})
        assert code(answer) == (400, "too_deeply_nested"), path
    twice = '{"type": "deal", "type": "play"}'
    answer = server.request("POST", f"/tables/{table_id}/actions", twice, {**seat, **json_type})
    assert code(answer) == (400, "duplicate_key")
    assert_unharmed(server, table_id)


def test_a_refused_caller_is_answered_before_the_body_is_sent(
    server: Served, table: tuple[str, dict[str, str]]
) -> None:
    table_id, _ = table
    actions = f"/tables/{table_id}/actions"
    assert code(headers_only(server, actions, FORGED, FIFTY_MB)) == (401, "unauthorized")
    assert code(headers_only(server, actions, {}, FIFTY_MB)) == (401, "unauthorized")
    assert code(headers_only(server, "/tables", FORGED, FIFTY_MB)) == (403, "forbidden")
    assert code(headers_only(server, "/tables/import", {}, FIFTY_MB)) == (401, "unauthorized")
    assert_unharmed(server, table_id)


def test_an_oversize_body_is_413_before_it_is_sent(
    server: Served, table: tuple[str, dict[str, str]]
) -> None:
    table_id, seat = table
    for path, headers, length in [
        (f"/tables/{table_id}/actions", seat, FIFTY_MB),
        ("/tables", ORGANISER, MAX_JSON_BODY + 1),
        ("/tables/import", ORGANISER, MAX_IMPORT_BODY + 1),
    ]:
        assert code(headers_only(server, path, headers, length)) == (413, "payload_too_large")
    assert_unharmed(server, table_id)


def test_a_whole_50mb_body_with_a_forged_token_is_401(
    server: Served, table: tuple[str, dict[str, str]]
) -> None:
    table_id, _ = table
    body = b"[" * FIFTY_MB
    headers = {**FORGED, "Content-Type": "application/json"}
    answer = server.request("POST", f"/tables/{table_id}/actions", body, headers)
    assert code(answer) == (401, "unauthorized")
    assert_unharmed(server, table_id)


def test_a_chunked_oversize_body_is_413_and_a_forged_one_401(
    server: Served, table: tuple[str, dict[str, str]]
) -> None:
    table_id, seat = table
    actions = f"/tables/{table_id}/actions"
    assert code(chunked(server, "/tables", ORGANISER, 2**20)) == (413, "payload_too_large")
    assert code(chunked(server, actions, seat, 2**20)) == (413, "payload_too_large")
    assert code(chunked(server, actions, FORGED, 2**20)) == (401, "unauthorized")
    assert_unharmed(server, table_id)
