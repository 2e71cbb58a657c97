"""The console's recoverable evening (issue 20, item 3) through the Flask client: a seat
handed to a bot and back from the table's console page, a withdrawal undone from the
tournament's, and every destructive form asking first (a box the server checks: a tap
alone changes nothing). The API is the witness of what was recorded."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.helpers import ORGANISER, assert_problem, bearer, export_of, open_table
from tests.pages.consoles import log_in, new_form_key, post

LEFT = {"bot": "heuristic", "reason": "left early", "sure": "yes"}


@pytest.fixture
def console(client: FlaskClient) -> FlaskClient:
    return log_in(client)


def text(response: Any) -> str:
    return html.unescape(response.get_data(as_text=True))


def refused(response: Any) -> str | None:
    found = re.search(r'class="refused"[^>]*data-code="([^"]+)"', response.get_data(as_text=True))
    return found.group(1) if found else None


def recorded(client: FlaskClient, table: str) -> list[tuple[str, str]]:
    """(type, by) of each event after the opening, from the organiser's export."""
    lines = [json.loads(line) for line in export_of(client, table).splitlines()[2:]]
    return [(line["type"], line["by"]) for line in lines]


def takeovers(client: FlaskClient, table: str) -> list[str]:
    return [kind for kind, _ in recorded(client, table) if kind.startswith("Seat")]


def test_a_seat_is_handed_to_a_bot_only_once_asked_and_back(console: FlaskClient) -> None:
    table = open_table(console)  # Ann, Bo, Cy, Di; Ann deals
    url = f"/console/tables/{table.id}/seats/1"
    page = text(console.get(f"/console/tables/{table.id}"))
    assert f'action="{url}/bot"' in page and "Hand Bo's seat to a bot" in page

    unasked = post(console, f"{url}/bot", {"bot": "heuristic", "reason": "left early"})
    assert unasked.status_code == 422 and refused(unasked) == "validation_error"
    assert "left early" in text(unasked)  # what was typed is kept
    no_reason = post(console, f"{url}/bot", {**LEFT, "reason": " "})
    assert no_reason.status_code == 422 and refused(no_reason) == "validation_error"
    assert takeovers(console, table.id) == []

    key = new_form_key()
    handed = post(console, f"{url}/bot", LEFT, key=key)
    assert handed.status_code == 303
    again = post(console, f"{url}/bot", LEFT, key=key)  # a second tap: nothing more
    assert again.headers["Location"] == handed.headers["Location"]
    landed = text(console.get(handed.headers["Location"]))
    assert "Bo's seat is played by the heuristic bot: left early" in landed
    assert f'action="{url}/return"' in landed and f'action="{url}/bot"' not in landed
    assert recorded(console, table.id) == [("SeatTakenOver", "organiser (console)")]
    taken = post(console, f"{url}/bot", LEFT)
    assert taken.status_code == 422 and refused(taken) == "already_taken_over"

    back = post(console, f"{url}/return")
    assert back.status_code == 303
    assert "Bo's seat is handed back: Bo plays it again" in text(
        console.get(back.headers["Location"])
    )
    assert takeovers(console, table.id) == ["SeatTakenOver", "SeatReturned"]
    twice = post(console, f"{url}/return")
    assert twice.status_code == 422 and refused(twice) == "not_taken_over"
    assert takeovers(console, table.id) == ["SeatTakenOver", "SeatReturned"]


def test_a_finished_table_offers_neither_and_refuses_a_stale_form(console: FlaskClient) -> None:
    table = open_table(console, "oh-quay", seats=[{"name": "Ann"}, {"bot": "random"}],
                       rules={"max_turns": 4})  # fmt: skip
    url = f"/console/tables/{table.id}/seats/0/bot"
    assert post(console, url, LEFT).status_code == 303  # the bots play Ann's seat to the end
    assert console.get(f"/tables/{table.id}").get_json()["status"] == "finished"
    page = text(console.get(f"/console/tables/{table.id}"))
    assert "Ann's seat is played by the heuristic bot: left early" in page
    assert "/seats/0/return" not in page and 'action="' + url not in page
    stale = post(console, url, LEFT)
    assert stale.status_code == 409 and refused(stale) == "match_finished"
    assert post(console, f"/console/tables/{table.id}/seats/0/return").status_code == 409


def test_a_seats_new_link_is_asked_first(console: FlaskClient) -> None:
    table = open_table(console)
    url = f"/console/tables/{table.id}/seats/1/token"
    unasked = post(console, url)
    assert unasked.status_code == 422 and refused(unasked) == "validation_error"
    state = f"/tables/{table.id}/state"
    assert console.get(state, headers=table.seat(1)).status_code == 200  # still Bo's link
    issued = post(console, url, {"sure": "yes"})
    assert issued.status_code == 200 and 'id="reissued"' in text(issued)
    assert console.get(state, headers=table.seat(1)).status_code == 401


def test_a_withdrawal_is_asked_first_and_undone(console: FlaskClient) -> None:
    made = console.post("/tournaments", headers=ORGANISER, json={
        "name": "Tuesday", "game": "bottle-imp", "table_size": 3, "max_deals": 1})  # fmt: skip
    tid = made.get_json()["id"]
    for name in ("Ann", "Bo", "Cy"):
        post(console, f"/console/tournaments/{tid}/entries", {"name": name})
    page = text(console.get(f"/console/tournaments/{tid}"))
    assert page.count('name="sure"') >= 3  # every Withdraw asks

    unasked = post(console, f"/console/tournaments/{tid}/entries/2/withdraw")
    assert unasked.status_code == 422 and refused(unasked) == "validation_error"

    def entries() -> dict[str, bool]:
        found = console.get(f"/tournaments/{tid}").get_json()["entries"]
        return {e["name"]: e["withdrawn"] for e in found}

    assert entries() == {"Ann": False, "Bo": False, "Cy": False}
    withdrawn = post(console, f"/console/tournaments/{tid}/entries/2/withdraw", {"sure": "yes"})
    assert withdrawn.status_code == 303 and entries()["Bo"] is True
    page = text(console.get(f"/console/tournaments/{tid}"))
    assert f'action="/console/tournaments/{tid}/entries/2/return"' in page

    # typing Bo's name again offers the undo instead of a duplicate's refusal
    again = post(console, f"/console/tournaments/{tid}/entries", {"name": "  bo "})
    assert again.status_code == 200 and refused(again) is None
    offer = text(again).split('id="returning"', 1)[1].split("</div>", 1)[0]
    assert "Bo withdrew" in offer and "/entries/2/return" in offer
    assert len(entries()) == 3

    undone = post(console, f"/console/tournaments/{tid}/entries/2/return")
    assert undone.status_code == 303 and entries()["Bo"] is False
    assert "Bo is back" in text(console.get(undone.headers["Location"]))
    dup = post(console, f"/console/tournaments/{tid}/entries", {"name": "Bo"})
    assert dup.status_code == 422 and refused(dup) == "duplicate_entry"  # entered, not withdrawn


def test_the_api_answers_the_consoles_takeover_alike(console: FlaskClient) -> None:
    """The console's form and the API's route are one command: what one recorded, the
    other refuses again with the same code."""
    table = open_table(console)
    assert post(console, f"/console/tables/{table.id}/seats/2/bot", LEFT).status_code == 303
    again = console.post(f"/tables/{table.id}/seats/2/bot", headers=ORGANISER,
                         json={"bot": "random", "reason": "twice"})  # fmt: skip
    assert_problem(again, 422, "already_taken_over")
    acted = console.post(f"/tables/{table.id}/actions", headers=bearer(str(table.tokens[2])),
                         json={"type": "discard", "seat": 2, "card": 5})  # fmt: skip
    assert_problem(acted, 409, "seat_taken_over")
