"""What a walk of the README's club evening found on the pages, each kept from coming back:
a table's status said in other words on the table's console page and the club's home; the
API's numbered refusals ("'Bo' has already entered (entry 2)") shown to the organiser; an
empty hand bar ("no cards yet") pinned under a finished match; a person whose seat a bot
plays told only far down their page."""

from __future__ import annotations

import html
import re

from flask import Flask
from flask.testing import FlaskClient

from tests.pages.consoles import log_in, post
from tests.pages.tables import ORGANISER, finish, open_page, open_table, state
from tests.service.tournament_play import enter, new_tournament, seat_round


def text(response: object) -> str:
    return html.unescape(response.get_data(as_text=True))  # type: ignore[attr-defined]


def status_on(page: str, marker: str) -> str:
    """The words of the status badge after ``marker`` (an element's opening text)."""
    found = re.search(re.escape(marker) + r"[^>]*>([^<]*)<", page)
    assert found, f"no {marker!r} on the page"
    return found.group(1).strip()


def test_a_tables_status_is_said_alike_on_every_page(client: FlaskClient) -> None:
    """The round's card in the console, the table's console page and the club's home say
    one thing: "waiting for the deal", then "playing"."""
    log_in(client)
    tournament = new_tournament(client, table_size=3, rounds=1, max_deals=1)
    enter(client, tournament, "Ann", "Bo", "Cy")
    table = seat_round(client, tournament)["tables"][0]["id"]
    for expected, deal in (("waiting for the deal", False), ("playing", True)):
        if deal:
            state = client.get(f"/tables/{table}/state", headers=ORGANISER).get_json()
            acted = client.post(f"/tables/{table}/actions", json=state["legal_actions"][0],
                                headers=ORGANISER)  # fmt: skip
            assert acted.status_code == 201, acted.get_json()
        console_table = text(client.get(f"/console/tables/{table}"))
        assert status_on(console_table, 'id="table-status"') == expected
        home = text(client.get("/"))
        row = home.split(f'<tr data-table="{table}">')[1].split("</tr>")[0]
        assert status_on(row, '<span class="status') == expected
        card = text(client.get(f"/console/tournaments/{tournament}"))
        assert expected in card
        for page in (console_table, row):
            assert not re.search(r">\s*(in deal|waiting for deal)\s*<", page), page


def test_the_console_names_no_entry_by_its_number(client: FlaskClient) -> None:
    """Entering a name twice, or opening the next round too early: the organiser reads what
    is wrong in people's words, not the API's "(entry 2)", and a sentence starts with a capital."""
    log_in(client)
    tournament = new_tournament(client, table_size=3, rounds=2, max_deals=1)
    enter(client, tournament, "Ann", "Bo", "Cy")
    again = post(client, f"/console/tournaments/{tournament}/entries", {"name": "Bo"})
    assert again.status_code == 422, again.status_code
    said = text(again)
    assert "This person has entered already" in said
    assert "(entry" not in said and "'Bo'" not in said
    seat_round(client, tournament)
    early = post(client, f"/console/tournaments/{tournament}/rounds")
    assert early.status_code == 409, early.status_code
    said = text(early)
    assert "Round 1 has tables still playing (1)" in said  # a sentence: which tables


def test_a_finished_match_keeps_no_empty_hand_bar(client: FlaskClient) -> None:
    """Before the deal the bar says the hand is still to come; once the match is over and
    every card played it is gone, not "no cards yet" under the result."""
    table = open_table(client, "bottle-imp-3", seed="walk")
    waiting = next(s for s in range(3) if s not in state(client, table)["to_act"])  # not the dealer
    before = text(open_page(client, table, waiting))
    assert 'id="my-hand"' in before and "no cards yet" in before
    finish(client, table, seed="walk")
    after = text(open_page(client, table, waiting))
    assert "The match is over" in after
    assert "no cards yet" not in after and 'id="dock"' not in after


def test_a_person_handed_to_a_bot_reads_it_first(brokerless: Flask) -> None:
    """No broker: the bot never moves. The person's turn line, the first thing on their
    phone, says that a bot plays for them and why; handed back, it says whose turn it is."""
    client = brokerless.test_client()
    table = open_table(client, "bottle-imp-3", seats=[{"name": n} for n in ("Ann", "Bo", "Cy")])
    body = {"bot": "heuristic", "reason": "left early"}
    taken = client.post(f"/tables/{table.id}/seats/1/bot", json=body, headers=ORGANISER)
    assert taken.status_code == 201, taken.get_json()
    bo = text(open_page(client, table, 1))
    turn = status_on(bo, 'id="turn"')
    assert turn.startswith("The organiser handed your seat to the heuristic bot (left early)")
    assert status_on(text(open_page(client, table, 2)), 'id="turn"') == "Waiting: Ann deals."
    handed = client.delete(f"/tables/{table.id}/seats/1/bot", headers=ORGANISER)
    assert handed.status_code == 200, handed.get_json()
    assert status_on(text(open_page(client, table, 1)), 'id="turn"') == "Waiting: Ann deals."
