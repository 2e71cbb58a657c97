"""A seat taken over is played by the job worker of `make run` (docs/api.md, "Seats taken
over"): the real ``make run`` with its embedded SQLite broker, over HTTP only. Bo and Cy
leave after the deal; their seats are handed to bots, which the worker plays with nobody
asking; Cy comes back and her seat is handed back, after which only she plays it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import table_of, wait_for
from tests.integration.test_embedded_jobs import EmbeddedServer

pytestmark = pytest.mark.integration


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    started = EmbeddedServer(tmp_path_factory.mktemp("stand-ins"), LIVE_WORKERS="1")
    try:
        yield started
    finally:
        started.close()


def test_the_worker_plays_a_seat_taken_over_until_it_is_handed_back(
    server: EmbeddedServer,
) -> None:
    status, created = server.request("POST", "/tables", table_of("bottle-imp-3"))
    assert status == 201, created
    table = created["id"]
    people = {s["seat"]: {"Authorization": f"Bearer {s['token']}"} for s in created["seats"]}

    def state(seat: int) -> dict[str, Any]:
        status, found = server.served.request("GET", f"/tables/{table}/state", headers=people[seat])
        assert status == 200, found
        return dict(found)

    def act(seat: int, action: dict[str, Any]) -> int:
        status, answer = server.served.request(
            "POST", f"/tables/{table}/actions", action, people[seat]
        )
        assert status in (201, 409), answer  # 409: the table moved (a bot) as it was sent
        return status

    assert act(0, {"type": "deal"}) == 201
    for seat in (1, 2):
        body = {"bot": "random", "reason": "left early"}
        status, taken = server.request("POST", f"/tables/{table}/seats/{seat}/bot", body)
        assert status == 201, taken
    # the worker prepares Bo's and Cy's seats: only Ann's is left to prepare
    wait_for(lambda: state(0)["to_act"] == [0], 120, "the bots to prepare Bo's and Cy's seats")
    status, back = server.request("DELETE", f"/tables/{table}/seats/2/bot")
    assert status == 200, back
    returned_at = back["version"]

    def play() -> bool:
        """Ann and Cy act when the table waits for them; the worker plays Bo's seat."""
        now = state(0)
        if now["status"] == "finished":
            return True
        for seat in (0, 2):
            if seat in now["to_act"]:
                mine = state(seat)
                if mine["legal_actions"]:
                    act(seat, mine["legal_actions"][0])
        return False

    wait_for(play, 180, "the match to finish")
    status, export = server.request("GET", f"/tables/{table}/export")
    assert status == 200, export
    lines = [json.loads(line) for line in export.splitlines()[2:]]
    moved = [(line["version"], line["data"].get("seat"), line["by"]) for line in lines
             if line["by"] not in ("engine", "organiser")]  # fmt: skip
    assert {by for _, seat, by in moved if seat == 1} == {"bot random seat 1"}
    assert {by for v, seat, by in moved if seat == 2 and v < returned_at} == {"bot random seat 2"}
    assert {by for v, seat, by in moved if seat == 2 and v > returned_at} == {"seat 2"}
    assert "cardledger.autoplay" in server.served.output()  # the worker played them
