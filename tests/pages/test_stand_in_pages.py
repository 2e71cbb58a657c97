"""Seats taken over on the pages and the hand record (docs/api.md, "Seats taken over"):
the table page tags the seat with its bot and says why, to its person that their seat is
played for them (and offers them no move); the replay and the hand record say who, or which
bot, made each move, and the takeover itself."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.helpers import ORGANISER, OpenTable, open_table
from tests.pages.tables import embedded, open_page

PEOPLE = [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]
BO_LEFT = "Bo's seat is played by the heuristic bot: left early"


def take_over(client: FlaskClient, table: OpenTable, seat: int, bot: str, reason: str) -> None:
    body = {"bot": bot, "reason": reason}
    taken = client.post(f"/tables/{table.id}/seats/{seat}/bot", json=body, headers=ORGANISER)
    assert taken.status_code == 201, taken.get_json()


def act(client: FlaskClient, table: OpenTable, seat: int, action: dict[str, Any]) -> None:
    acted = client.post(f"/tables/{table.id}/actions", json=action, headers=table.seat(seat))
    assert acted.status_code == 201, acted.get_json()


def moves_on(page: str) -> int:
    """How many moves the page offers (elements carrying an action body)."""
    return page.count("data-action='")


def turn_of(page: str) -> str:
    """The page's line saying whose turn it is."""
    found = re.search(r'id="turn"[^>]*>([^<]*)<', page)
    assert found, "no turn line"
    return found.group(1)


def page(client: FlaskClient, table: OpenTable, viewer: int | str | None) -> str:
    response = open_page(client, table, viewer)
    assert response.status_code == 200
    return str(response.get_data(as_text=True)).replace("&#39;", "'")


def test_the_table_page_says_who_plays_a_seat_taken_over(brokerless: Flask) -> None:
    """No broker: the bot never moves, so Bo's seat waits while the pages are read."""
    client = brokerless.test_client()
    table = open_table(client, "bottle-imp-3", seats=PEOPLE)
    take_over(client, table, 1, "heuristic", "left early")
    act(client, table, 0, {"type": "deal"})
    assert client.get(f"/tables/{table.id}/state", headers=table.seat(1)).get_json()[
        "to_act"] == [0, 1, 2]  # fmt: skip

    bo = page(client, table, 1)
    assert "The organiser handed your seat to the heuristic bot (left early)" in bo
    assert moves_on(bo) == 0 and embedded(bo)["live"]["mine"] is False  # nothing offered
    assert turn_of(bo).startswith("The organiser handed your seat")  # first, not far down
    cy = page(client, table, 2)
    assert BO_LEFT in cy and moves_on(cy) > 0
    public = page(client, table, None)
    assert BO_LEFT in public and 'class="tag heuristic-bot"' in public

    handed = client.delete(f"/tables/{table.id}/seats/1/bot", headers=ORGANISER)
    assert handed.status_code == 200
    bo = page(client, table, 1)
    assert moves_on(bo) > 0 and "handed your seat" not in bo
    assert BO_LEFT not in page(client, table, None)


def test_the_replay_and_the_hand_record_name_the_bot_that_moved(client: FlaskClient) -> None:
    """Bots move inside the request here: Ann deals, Bo's and Cy's seats are handed to
    bots, and Ann plays her own seat to the end of the deal."""
    table = open_table(client, "bottle-imp-3", seats=PEOPLE)
    act(client, table, 0, {"type": "deal"})
    take_over(client, table, 1, "heuristic", "left early")
    take_over(client, table, 2, "random", "phone died")
    while (now := client.get(f"/tables/{table.id}/state", headers=table.seat(0)).get_json())[
        "status"] != "finished":  # fmt: skip
        act(client, table, 0, now["legal_actions"][0])

    replay = client.application.test_client().get(f"/tables/{table.id}/deals/1/replay")
    assert replay.status_code == 200
    steps = embedded(replay.get_data(as_text=True))["steps"]
    taken = [step["text"] for step in steps if step["type"] == "SeatTakenOver"]
    assert taken == [[BO_LEFT], ["Cy's seat is played by the random bot: phone died"]]
    by = {step["by"] for step in steps}
    assert {"Ann", "the heuristic bot for Bo", "the random bot for Cy", "the organiser"} <= by
    assert not [b for b in by if "seat" in b]  # people's words, never "seat 1"

    record = client.get(f"/tables/{table.id}/deals/1?format=text").get_data(as_text=True)
    lines = record.splitlines()
    (bo_left,) = [line for line in lines if "SeatTakenOver" in line and "seat=1" in line]
    assert "bot=heuristic" in bo_left and "reason=left early" in bo_left
    assert any(line.split()[1:4] == ["bot", "heuristic", "seat"] for line in lines)
    assert any(line.split()[1:4] == ["bot", "random", "seat"] for line in lines)
