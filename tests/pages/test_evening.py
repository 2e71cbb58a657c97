"""The README's club evening ("A club evening in the browser"), walked in Chromium by
``tests/pages/evening.py`` against a server of the test's own: a Swiss of Bottle Imp for
three people and a bot over two rounds, a lone table recorded with real cards. Every step
is reached, and what the browser did is what the server then says: the tournament
finished after two rounds with its three people ranked, and the lone table dealt from the
cards tapped in.

On failure the last step's page is saved under ``tests/artifacts/`` at phone and desk size.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from flask import Flask

from tests.helpers import ADMIN_TOKEN
from tests.pages.conftest import ARTIFACTS
from tests.pages.evening import NAMES, all_sizes, evening

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

#: The steps every evening reaches, whoever deals round 2 (a bot dealer leaves no physical
#: deal to record there: the lone table records one).
STEPS = [
    "01-console", "02-choose-game", "03-new-tournament", "04-tournament", "05-entries",
    "06-round-1", "07-slips", "08-seat-before-deal", "09-seat-playing", "10-round-status",
    "11-seat-finished", "12-round-1-finished", "13-console-table", "14-new-link",
    "16-round-2", "19-adjusted", "20-organiser-table", "21-organiser-table-finished",
    "22-round-2-finished", "23-finished", "24-standings", "25-home", "26-rules",
    "27-new-table", "28-lone-table", "29-record-deal", "30-deal-tapped", "31-lone-seat-link",
]  # fmt: skip


def test_the_readmes_club_evening_runs_in_chromium(
    browser: Browser, live_app: Flask, base_url: str
) -> None:
    shots: list[tuple[str, Page]] = []
    try:
        console = evening(browser, base_url, ADMIN_TOKEN, lambda *shot: shots.append(shot))
    except BaseException:
        if shots:
            all_sizes(ARTIFACTS / "evening-failed")(*shots[-1])
        raise
    seen = [name for name, _ in shots]
    assert [step for step in seen if step in STEPS] == STEPS, seen

    client = live_app.test_client()
    (tournament,) = re.findall(r"/console/tournaments/([0-9a-f-]+)$", console)
    shown = client.get(f"/tournaments/{tournament}").get_json()
    assert (shown["name"], shown["status"]) == ("Tuesday club", "finished")
    standings = client.get(f"/tournaments/{tournament}/standings").get_json()
    assert standings["rounds_played"] == 2
    assert sorted(row["player"] for row in standings["rows"]) == sorted(NAMES)
    tables = client.get("/tables?limit=100").get_json()["tables"]
    played = client.get(f"/tables?tournament={tournament}&limit=100").get_json()["tables"]
    assert len(played) >= 2 and all(t["status"] == "finished" for t in played), played
    lone = [t for t in tables if t["id"] not in {t["id"] for t in played}]
    assert [(t["status"], t["deal"]) for t in lone] == [("in_deal", 1)]  # dealt from the taps
