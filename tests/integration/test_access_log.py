"""``make run``'s output never holds a token (issue 12, finding 5).

Seat and organiser tokens travel in ``Authorization`` headers and in page links
(``/tables/{id}/view?token=…``); gunicorn's default access line prints the query string
and the ``Referer``. This runs the real ``make run`` (``-o .venv/.installed``: the tests
already run in that virtualenv, so pip is never called), sends tokens every way a client
does (and one request line gunicorn cannot parse, which its error log quotes), stops it, and
reads everything it printed.
"""

from __future__ import annotations

import re
import secrets
import socket
from pathlib import Path

from tests.factories import table_body
from tests.integration.served import MAKE_RUN, Served, free_port, server_env


def unparsable(port: int, request: str) -> None:
    """Send a request gunicorn cannot parse and wait for its answer (a 400)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(request.encode())
        assert sock.recv(1024).startswith(b"HTTP/1.1 400")


def test_make_run_prints_no_token(tmp_path: Path) -> None:
    admin = secrets.token_urlsafe(24)
    organiser = {"Authorization": f"Bearer {admin}"}
    port = free_port()
    env = server_env(
        f"sqlite:///{tmp_path / 'cardledger.db'}", admin, PORT=str(port), WORKERS="1", THREADS="2"
    )
    served = Served(MAKE_RUN, env, port, tmp_path / "make-run.log")
    try:
        status, created = served.request("POST", "/tables", table_body(players=3), organiser)
        assert status == 201, created
        table, seat = created["id"], created["seats"][0]["token"]
        view = f"/tables/{table}/view"
        as_seat = {"Authorization": f"Bearer {seat}"}
        for path, headers, status in [
            (f"{view}?token={seat}", {}, 303),  # the token exchanged for a cookie
            (f"{view}?token={admin}", {}, 303),
            (f"/tables/{table}/deals/1/replay?token={seat}", {}, 303),
            (f"/no/such/page?token={seat}", {}, 404),
            (f"/tables/{table}/state", as_seat, 200),
            (f"/tables/{table}/events", {"Referer": f"http://127.0.0.1:{port}{view}?token={seat}"},
             200),
            (f"/tables/{table}/export", organiser, 200),
        ]:  # fmt: skip
            assert served.request("GET", path, headers=headers)[0] == status, path
        dealt = served.request("POST", f"/tables/{table}/actions", {"type": "deal"}, as_seat)
        assert dealt[0] == 201, dealt
        unparsable(served.port, f"GET {view}?token={seat}\r\n\r\n")  # quoted in the error log
    finally:
        served.stop()
    output = served.output()
    assert f"{view} HTTP/1.1" in output  # the access log was written ...
    assert admin not in output and seat not in output  # ... and holds no token
    assert "token=[hidden]" in output  # the unparsable request line, its token blanked
    # the console link make run prints names the variable, never the token itself
    assert re.search(r"token=(?!\[hidden\]|<CARDLEDGER_ADMIN_TOKEN>)", output) is None, output
