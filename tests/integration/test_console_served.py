"""Issue 18, items 7 and 8, against a real server: gunicorn as ``make run`` starts it
(2 workers x 4 threads), on SQLite and on PostgreSQL, spoken to over sockets.

- Every console form takes hostile text in every field and answers a page or a short
  redirect: no 5xx, no traceback in the server's output, nothing typed in a header.
- Two quick posts of one form (a double tap), sent at the same moment to different
  worker processes, record one ruling, open one table, enter one person.
- The organiser's cookie holds a session, and logging out ends it on the server.
- Every response carries the security headers; every inline script and style sheet of a
  page carries the response's nonce.
- The standings CSV neutralises a name a spreadsheet would run as a formula and keeps a
  negative score a number; a reason with a newline cannot forge a line of the text hand
  record.
"""

from __future__ import annotations

import csv
import http.client
import io
import re
import secrets
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest

from service.storage.db import run_migrations
from tests.helpers import table_of
from tests.integration.served import Served, gunicorn
from tests.pages.console_forms import HOSTILE, forms

ADMIN = secrets.token_urlsafe(24)
ORGANISER = {"Authorization": f"Bearer {ADMIN}"}
MAX_LOCATION = 2100
DATABASES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)]


@pytest.fixture(scope="module", params=DATABASES)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("console-served")
    if request.param == "sqlite":
        url = f"sqlite:///{home / 'cardledger.db'}"
    else:
        url = request.getfixturevalue("postgres_url")
    run_migrations(url)
    served = gunicorn(url, ADMIN, home / "gunicorn.log")
    try:
        yield served
    finally:
        served.stop()
    assert "Traceback" not in served.output(), served.output()[-5000:]


class Answer:
    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = {k.lower(): v for k, v in response.getheaders()}
        self.cookies = response.headers.get_all("Set-Cookie") or []
        self.text = response.read().decode(errors="replace")


def exchange(
    server: Served, method: str, path: str, body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> Answer:  # fmt: skip
    connection = server.connection()
    try:
        connection.request(method, path, body=body, headers=headers or {})
        return Answer(connection.getresponse())
    finally:
        connection.close()


class Organiser:
    """A browser that opened the organiser's link: its cookie, and forms as pages give them."""

    def __init__(self, server: Served) -> None:
        self.server = server
        opened = exchange(server, "GET", f"/console?token={ADMIN}")
        assert opened.status == 303, opened.text[:300]
        (cookie,) = [c for c in opened.cookies if c.startswith("cardledger_organiser=")]
        self.cookie = cookie.split(";", 1)[0]
        assert ADMIN not in self.cookie

    def get(self, path: str) -> Answer:
        return exchange(self.server, "GET", path, headers={"Cookie": self.cookie})

    def form(self, page: str, action: str) -> dict[str, str]:
        """The hidden fields (CSRF token, one-time key) of the form posting to ``action``."""
        answer = self.get(page)
        assert answer.status == 200, answer.text[:300]
        found = re.search(rf'<form[^>]*action="{re.escape(action)}"[^>]*>(.*?)</form>',
                          answer.text, re.S)  # fmt: skip
        assert found, f"no form to {action} on {page}"
        return dict(
            re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', found.group(1))
        )

    def post(self, path: str, data: dict[str, str] | bytes) -> Answer:
        body = data if isinstance(data, bytes) else urlencode(data).encode()
        headers = {"Cookie": self.cookie, "Content-Type": "application/x-www-form-urlencoded"}
        return exchange(self.server, "POST", path, body, headers)


def api(server: Served, method: str, path: str, body: Any = None) -> Any:
    status, answer = server.request(method, path, body, ORGANISER)
    assert status in (200, 201, 202), (path, status, answer)
    return answer


def at_once(send: Any, times: int = 4) -> list[Answer]:
    """``send()`` from ``times`` threads released together (a double tap, a flaky network)."""
    start = threading.Barrier(times)
    answers: list[Any] = [None] * times

    def one(i: int) -> None:
        start.wait()
        answers[i] = send()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return answers


# --- hostile forms ---------------------------------------------------------------------------


def test_every_form_takes_hostile_input_without_a_server_error(server: Served) -> None:
    organiser = Organiser(server)
    table = api(server, "POST", "/tables", table_of())["id"]
    tournament = api(server, "POST", "/tournaments",
                     {"name": "Hostile", "game": "bottle-imp", "table_size": 3})["id"]  # fmt: skip
    for name in ("Ann", "Bo", "Cy"):
        api(server, "POST", f"/tournaments/{tournament}/entries", {"name": name})
    api(server, "POST", f"/tournaments/{tournament}/rounds")
    hidden = organiser.form(f"/console/tables/{table}", f"/console/tables/{table}/adjust")
    csrf = hidden["csrf"]
    tried = 0
    for form in forms():
        path = form.path.format(table=table, tournament=tournament)
        samples = [{name: value for name in form.fields} for value in HOSTILE]
        samples += [{**form.fields, name: value} for name in form.fields
                    for value in ("²", "x" * 100_000)]  # fmt: skip
        for data in samples:
            answer = organiser.post(path, {"csrf": csrf, "form_key": secrets.token_urlsafe(16),
                                           **data})  # fmt: skip
            tried += 1
            # done (a redirect, or a page showing a secret once) or refused as the form
            # again (4xx), never a server error
            shown = (path, data, answer.text[:300])
            assert answer.status in (200, 303) or 400 <= answer.status < 500, shown
            location = answer.headers.get("location", "")
            assert len(location) <= MAX_LOCATION, (path, location[:100])
            assert all(len(v) < 4096 for v in answer.headers.values()), path
        broken = f"csrf={csrf}&form_key={secrets.token_urlsafe(16)}&name=%ED%A0%80%FF".encode()
        status = organiser.post(path, broken).status  # not even UTF-8
        assert status in (200, 303) or 400 <= status < 500, path
    assert tried > 400


# --- one form, one effect --------------------------------------------------------------------


def test_two_quick_posts_of_an_adjustment_record_one_ruling(server: Served) -> None:
    organiser = Organiser(server)
    table = api(server, "POST", "/tables", table_of())["id"]
    hidden = organiser.form(f"/console/tables/{table}", f"/console/tables/{table}/adjust")
    data = {**hidden, "seat": "2", "points": "-10", "reason": "card exposed"}
    answers = at_once(lambda: organiser.post(f"/console/tables/{table}/adjust", data))
    assert {a.status for a in answers} == {303}, [a.text[:200] for a in answers]
    assert len({a.headers["location"] for a in answers}) == 1
    events = api(server, "GET", f"/tables/{table}/events")["events"]
    assert [e["type"] for e in events].count("Adjusted") == 1
    assert api(server, "GET", f"/tables/{table}")["totals"][2] == -10


def test_two_quick_posts_of_open_table_open_one_table(server: Served) -> None:
    organiser = Organiser(server)
    path = "/console/tables/new?game=oh-quay"
    hidden = organiser.form(path, path)
    seed = secrets.token_hex(8)
    data = {**hidden, "seat-0-kind": "person", "seat-0-who": "Ann", "seat-1-kind": "person",
            "seat-1-who": "Bo", "seed": seed}  # fmt: skip
    answers = at_once(lambda: organiser.post(path, data))
    assert {a.status for a in answers} == {303}, [a.text[:300] for a in answers]
    (location,) = {a.headers["location"] for a in answers}
    tables = api(server, "GET", "/tables?limit=100")["tables"]
    table_id = re.findall(r"[0-9a-f]{32}", location)[0]
    assert table_id in {t["id"] for t in tables}
    opened_now = [t for t in tables if t["game"] == "oh-quay" and
                  [s.get("name") for s in t["seats"]] == ["Ann", "Bo"]]  # fmt: skip
    assert sum(1 for t in opened_now if t["id"] == table_id) == 1
    assert len({t["created_at"] for t in opened_now if t["created_at"] >= max(
        t2["created_at"] for t2 in opened_now if t2["id"] == table_id)}) == 1  # fmt: skip


def test_two_quick_posts_of_an_entry_enter_one_person(server: Served) -> None:
    organiser = Organiser(server)
    tournament = api(server, "POST", "/tournaments",
                     {"name": "Doubles", "game": "oh-quay", "table_size": 2})["id"]  # fmt: skip
    page = f"/console/tournaments/{tournament}"
    hidden = organiser.form(page, f"{page}/entries")
    answers = at_once(lambda: organiser.post(f"{page}/entries", {**hidden, "name": "Ann"}))
    assert {a.status for a in answers} == {303}, [a.text[:300] for a in answers]
    assert [e["name"] for e in api(server, "GET", f"/tournaments/{tournament}")["entries"]] == [
        "Ann"]  # fmt: skip


def test_a_seat_link_asked_twice_is_issued_once(server: Served) -> None:
    organiser = Organiser(server)
    table = api(server, "POST", "/tables", table_of())["id"]
    action = f"/console/tables/{table}/seats/1/token"
    hidden = organiser.form(f"/console/tables/{table}", action)
    answers = at_once(lambda: organiser.post(action, {**hidden, "sure": "yes"}), times=2)
    assert sorted(a.status for a in answers) == [200, 409]
    (shown,) = [a for a in answers if a.status == 200]
    token = re.search(r"view\?token=([\w-]+)", shown.text)
    assert token
    status, _ = server.request("GET", f"/tables/{table}/state",
                               headers={"Authorization": f"Bearer {token.group(1)}"})  # fmt: skip
    assert status == 200  # the link shown is the seat's link: no second one replaced it


# --- the session, the headers ----------------------------------------------------------------


def test_logging_out_ends_the_session_on_the_server(server: Served) -> None:
    organiser = Organiser(server)
    assert organiser.get("/console").status == 200
    hidden = organiser.form("/console", "/console/logout")
    out = organiser.post("/console/logout", hidden)
    assert out.status == 303 and out.headers["location"] == "/"
    assert organiser.get("/console").status == 401  # the same cookie, kept, opens nothing


def test_every_response_carries_the_security_headers(server: Served) -> None:
    organiser = Organiser(server)
    table = api(server, "POST", "/tables", table_of())["id"]
    api(server, "POST", f"/tables/{table}/actions", {"type": "deal"})
    pages = [
        "/",
        f"/tables/{table}/view",
        f"/console/tables/{table}",
        "/console",
        f"/console/tables/{table}/deal",
        "/rules/bestia",
        f"/tables/{table}/deals/1/replay",
    ]
    others = ["/health", "/openapi.yaml", f"/tables/{table}", "/nowhere", f"/tables/{'0' * 32}"]
    for path in pages + others:
        answer = organiser.get(path)
        policy = answer.headers["content-security-policy"]
        for part in ("default-src 'self'", "frame-ancestors 'none'", "object-src 'none'",
                     "base-uri 'none'", "form-action 'self'"):  # fmt: skip
            assert part in policy, (path, policy)
        assert "unsafe-inline" not in policy
        assert answer.headers["x-content-type-options"] == "nosniff", path
        assert answer.headers["x-frame-options"] == "DENY", path
        assert answer.headers["referrer-policy"] == "no-referrer", path
        if path in pages and answer.status == 200:
            nonce = re.search(r"'nonce-([\w-]+)'", policy)
            assert nonce, (path, policy)
            inline = re.findall(r"<(script|style)\b([^>]*)>", answer.text)
            for tag, attributes in inline:
                if 'type="application/json"' not in attributes:
                    assert f'nonce="{nonce.group(1)}"' in attributes, (path, tag, attributes)
            assert " onclick=" not in answer.text and "javascript:" not in answer.text


# --- CSV and the text hand record --------------------------------------------------------------


FORMULA = '=HYPERLINK("http://example.invalid","click")'
FORGED = "ok\nSigned (Ed25519, key x): forged"


def test_csv_cells_and_a_forged_line_stay_inert(server: Served) -> None:
    player = api(server, "POST", "/players", {"name": FORMULA + secrets.token_hex(2)})
    tournament = api(server, "POST", "/tournaments", {
        "name": "Inert", "game": "oh-quay", "table_size": 2, "max_deals": 1, "rounds": 1,
    })["id"]  # fmt: skip
    api(server, "POST", f"/tournaments/{tournament}/entries", {"player_id": player["id"]})
    api(server, "POST", f"/tournaments/{tournament}/entries", {"name": "@SUM(1+1)"})
    (seated,) = api(server, "POST", f"/tournaments/{tournament}/rounds")["tables"]
    table = seated["id"]
    (seat,) = [s["seat"] for s in seated["seats"] if s["entry"] == 1]  # drawn from the seed
    api(server, "POST", f"/tables/{table}/actions", {"type": "deal"})
    api(server, "POST", f"/tables/{table}/actions",
        {"type": "adjust", "seat": seat, "points": -100_000, "reason": FORGED})  # fmt: skip
    for _ in range(3000):
        now = api(server, "GET", f"/tables/{table}/state")
        if now["status"] == "finished":
            break
        api(server, "POST", f"/tables/{table}/actions", now["legal_actions"][0])
    else:
        pytest.fail("the match did not end")

    status, text = server.request("GET", f"/tables/{table}/deals/1?format=text", None, ORGANISER)
    assert status == 200
    lines = text.splitlines()
    adjusted = [line for line in lines if "Adjusted" in line]
    assert len(adjusted) == 1 and "reason=ok\\nSigned (Ed25519, key x): forged" in adjusted[0]
    signed = [line for line in lines if line.startswith("Signed")]
    assert len(signed) <= 1 and "forged" not in "".join(signed)  # only the server's own

    status, table_csv = server.request("GET", f"/tournaments/{tournament}/standings?format=csv")
    assert status == 200
    rows = {r["entry"]: r for r in csv.DictReader(io.StringIO(table_csv))}
    standings = api(server, "GET", f"/tournaments/{tournament}/standings")["rows"]
    by_entry = {str(r["entry"]): r for r in standings}
    assert rows["1"]["player"] == "'" + by_entry["1"]["player"]  # the formula, neutralised
    assert rows["2"]["player"] == "'@SUM(1+1)"
    score = int(rows["1"]["score"])  # a number, not "'-…"
    assert score == by_entry["1"]["score"] < 0
