"""No response that can carry a card or a token may be kept by a cache (issue 12, finding 5).

Every route answers ``Cache-Control: no-store`` (a route may choose its own header, none
that carries a secret does), and pages opened by a ``?token=`` link tell the browser not
to pass their address on (``Referrer-Policy: no-referrer``).
"""

from __future__ import annotations

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.factories import table_body
from tests.helpers import ADMIN_TOKEN

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def private(response: TestResponse, what: str) -> None:
    assert response.status_code < 400, (what, response.status_code, response.get_data()[:200])
    assert response.headers.get("Cache-Control") == "no-store", what
    assert response.headers.get("Referrer-Policy") == "no-referrer", what


def test_every_card_or_token_bearing_response_is_no_store(client: FlaskClient) -> None:
    opened = client.post("/tables", json=table_body(players=3), headers=ORGANISER)
    private(opened, "POST /tables (seat tokens)")
    table = opened.get_json()["id"]
    seat = opened.get_json()["seats"][0]["token"]
    as_seat = {"Authorization": f"Bearer {seat}"}
    private(
        client.post(f"/tables/{table}/actions", json={"type": "deal"}, headers=ORGANISER),
        "POST /tables/{id}/actions",
    )
    for path, headers in [
        (f"/tables/{table}", as_seat),
        (f"/tables/{table}/state", as_seat),
        (f"/tables/{table}/state", ORGANISER),
        (f"/tables/{table}/events", ORGANISER),
        (f"/tables/{table}/deals/1", ORGANISER),
        (f"/tables/{table}/deals/1?format=text", ORGANISER),
        (f"/tables/{table}/export", ORGANISER),
        (f"/tables/{table}/view?token={seat}", {}),
        (f"/tables/{table}/view?token={ADMIN_TOKEN}", {}),
        (f"/tables/{table}/deals/1/replay?token={ADMIN_TOKEN}", {}),
    ]:
        private(client.get(path, headers=headers), f"GET {path}")
    hand = client.get(f"/tables/{table}/state", headers=as_seat).get_json()["hands"][0]
    assert hand, "the seat's response did carry its cards"


def test_errors_are_no_store_too(client: FlaskClient) -> None:
    table = client.post("/tables", json=table_body(players=3), headers=ORGANISER).get_json()["id"]
    for response, status in [
        (client.get(f"/tables/{table}/export", headers={"Authorization": "Bearer nobody"}), 401),
        (client.get(f"/tables/{table}/deals/9", headers=ORGANISER), 404),
        (client.get("/no/such/page"), 404),
    ]:
        assert response.status_code == status
        assert response.headers.get("Cache-Control") == "no-store"
