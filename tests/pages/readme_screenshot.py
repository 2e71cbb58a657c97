"""Take the README's screenshot of the replay page from a finished demo deal.

    .venv/bin/python -m tests.pages.readme_screenshot      # writes docs/replay.png

A four-player Bottle Imp deal (seed ``readme-demo``) is played by random legal moves on a
throw-away database, served on a loopback port and opened in the system's Chromium at a
play in a trick that buys the bottle, so the shot shows the legal choices and the bottle.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import FloatRect, sync_playwright

from service.db import get_database
from tests.helpers import make_test_app
from tests.pages.browser import launch, serve
from tests.pages.tables import ORGANISER, finish, open_table

ROOT = Path(__file__).resolve().parents[2]


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


def main(out: Path = ROOT / "docs" / "replay.png") -> None:
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


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "replay.png")
