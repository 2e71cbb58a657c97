"""Take the README's screenshots: the club evening at a phone's size, and a replay.

    .venv/bin/python -m tests.pages.readme_screenshot [DIR]   # writes docs/*.png

On a throw-away database served on a loopback port, in the system's Chromium:

- the club evening of ``tests.pages.evening`` (the README's "A club evening in the
  browser"), of which a few steps are kept at 390x844: ``console-phone.png`` (a round
  being played, seen from the console), ``slips-phone.png``, ``seat-phone.png`` (a player's
  phone with its moves), ``deal-phone.png`` (a physical deal half tapped in) and
  ``standings-phone.png``; and the tournament's wall for the club room's screen at
  1920x1080, ``wall.png``;
- ``replay.png``: a four-player Bottle Imp deal (seed ``readme-demo``) played by random
  legal moves, opened at a play in a trick that buys the bottle, so the shot shows the
  legal choices and the bottle.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from flask import Flask
from playwright.sync_api import FloatRect, Page, sync_playwright

from service.storage.db import get_database
from tests.helpers import ADMIN_TOKEN, make_test_app
from tests.pages.browser import launch, serve
from tests.pages.evening import PHONE, evening
from tests.pages.tables import ORGANISER, finish, open_table

ROOT = Path(__file__).resolve().parents[2]
#: the evening's steps the README shows, and their file names under docs/
KEPT = {
    "10-round-status": "console-phone.png",
    "07-slips": "slips-phone.png",
    "09-seat-playing": "seat-phone.png",
    "29-half-tapped": "deal-phone.png",
    "24-standings": "standings-phone.png",
}


def _step(events: list[dict[str, Any]]) -> int:
    """The last play with a real choice in the first trick that bought the bottle; else
    the play with the most legal choices."""
    plays = [e for e in events if e["type"] == "CardPlayed" and len(e.get("legal") or ()) > 1]
    for event in events:
        data = event["data"]
        if event["type"] == "TrickCompleted" and data["price"] in data["cards"]:
            chosen = [p for p in plays if event["version"] - 5 < p["version"] < event["version"]]
            if chosen:
                return int(chosen[-1]["version"])
    return int(max(plays, key=lambda p: len(p["legal"]))["version"])


#: the address the README's slips show: a club's network, as `make run HOST=0.0.0.0` serves it
CLUB_ADDRESS = "192.168.1.20:8000"


def at_club_address(app: Flask) -> None:
    """Let the app believe it is asked at CLUB_ADDRESS (the browser talks to a loopback
    port), so the slips carry a club network's address and no loopback warning."""
    inner = app.wsgi_app

    def wsgi(environ: dict[str, Any], start_response: Any) -> Any:
        real = f"http://{environ.get('HTTP_HOST', '')}"
        environ["HTTP_HOST"] = CLUB_ADDRESS
        if environ.get("HTTP_ORIGIN") == real:
            environ["HTTP_ORIGIN"] = f"http://{CLUB_ADDRESS}"
        return inner(environ, start_response)

    app.wsgi_app = wsgi  # type: ignore[method-assign]


def evening_shots(out: Path) -> None:
    """Run the evening on a fresh server; keep the README's steps, one phone screen each."""

    def shoot(name: str, page: Page) -> None:
        if name not in KEPT:
            return
        page.evaluate("window.scrollTo(0, 0)")
        tall = page.evaluate("document.documentElement.scrollHeight")
        clip: FloatRect = {"x": 0, "y": 0, "width": PHONE["width"],
                           "height": min(PHONE["height"], tall)}  # fmt: skip
        page.screenshot(path=str(out / KEPT[name]), clip=clip)
        print(out / KEPT[name])

    with tempfile.TemporaryDirectory() as tmp:
        app = make_test_app(f"sqlite:///{tmp}/evening.db")
        app.config["PAGES_POLL_MS"] = 300
        at_club_address(app)
        with serve(app) as url, sync_playwright() as playwright:
            browser = launch(playwright)
            tournament = evening(browser, url, ADMIN_TOKEN, shoot, seed="readme-evening")
            wall = browser.new_page(viewport={"width": 1920, "height": 1080})
            wall.goto(tournament.replace("/console/tournaments/", "/tournaments/") + "/wall")
            wall.screenshot(path=str(out / "wall.png"))
            print(out / "wall.png")
            browser.close()
        get_database(app).engine.dispose()


def replay_shot(out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_test_app(f"sqlite:///{tmp}/demo.db")
        client = app.test_client()
        table = open_table(client, seed="readme-demo")
        finish(client, table, seed="readme")
        events = client.get(f"/tables/{table.id}/deals/1", headers=ORGANISER).get_json()
        version = _step(events["events"])
        with serve(app) as url, sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1180, "height": 900})
            page.goto(f"{url}/tables/{table.id}/deals/1/replay#v={version}")
            page.locator("#scene .panel.centre").wait_for()
            bottom = page.locator("#scene").bounding_box()
            assert bottom is not None
            height = bottom["y"] + bottom["height"] + 12
            out.parent.mkdir(parents=True, exist_ok=True)
            clip: FloatRect = {"x": 0, "y": 0, "width": 1180, "height": height}
            page.screenshot(path=str(out), clip=clip, full_page=True)
            browser.close()
        get_database(app).engine.dispose()
    print(f"{out} (table {table.id}, version {version})")


def main(out: Path = ROOT / "docs") -> None:
    out.mkdir(parents=True, exist_ok=True)
    replay_shot(out / "replay.png")
    evening_shots(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs")
