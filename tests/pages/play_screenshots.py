"""Screenshots of a seat's table page mid-deal in every game, at a phone's and a desk's size.

    .venv/bin/python -m tests.pages.play_screenshots      # writes tests/artifacts/play/*.png

Each table is played by random legal moves (through the API) until the seat that opens
its link has a choice to make, then shot at 390x844 and 1280x800 (full page), with a
pick already made where the move is built in steps, so the shot shows the builder.
"""

from __future__ import annotations

import random
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from service.storage.db import get_database
from tests.helpers import make_test_app
from tests.pages.browser import launch, serve
from tests.pages.tables import act, open_table, state

ROOT = Path(__file__).resolve().parents[2]
Json = dict[str, Any]

#: kind -> (the moment to stop at, seen by the organiser's state, the seat to shoot)
MOMENTS: dict[str, Callable[[Json], bool]] = {
    "bottle-imp": lambda s: (
        s["phase"] == "playing" and s["tricks_played"] >= 2 and len(s["trick"]["cards"]) == 1
    ),
    "bottle-imp-3": lambda s: s["phase"] == "preparing" and s["passes"][0] is None,
    "lopaka": lambda s: s["phase"] == "playing" and s["tricks_played"] >= 1 and 0 in s["to_act"],
    "bright-house": lambda s: (
        s["phase"] == "playing" and s["tricks_played"] >= 1 and 0 in s["to_act"]
    ),
    "bestia": lambda s: s["phase"] == "exchanging" and 0 in s["to_act"],
    "bestia-tricks": lambda s: (
        s["phase"] == "playing" and s["tricks_played"] >= 1 and 0 in s["to_act"]
    ),
    "oh-quay": lambda s: s["phase"] == "loading" and 0 in s["to_act"] and s["turn"] >= 4,
}


def reach(client: Any, kind: str, seed: int) -> Any:
    for attempt in range(40):
        table = open_table(client, kind.removesuffix("-tricks"))
        rng = random.Random(f"{seed}-{attempt}")
        while (now := state(client, table))["status"] != "finished":
            if MOMENTS[kind](now) and (0 in now["to_act"] or kind == "bottle-imp"):
                return table, now
            act(client, table, rng.choice(now["legal_actions"]))
    raise AssertionError(f"no {kind} table reached the moment")


def main(out: Path = ROOT / "tests" / "artifacts" / "play") -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        app = make_test_app(f"sqlite:///{tmp}/shots.db")
        client = app.test_client()
        with serve(app) as url, sync_playwright() as playwright:
            browser = launch(playwright)
            for kind in MOMENTS:
                table, now = reach(client, kind, 1)
                seat = now["to_act"][0]
                for size, viewport in (("phone", (390, 844)), ("desktop", (1280, 800))):
                    context = browser.new_context(
                        viewport={"width": viewport[0], "height": viewport[1]}
                    )
                    page = context.new_page()
                    page.goto(f"{url}/tables/{table.id}/view?token={table.tokens[seat]}")
                    page.locator("#turn").wait_for()
                    picks = page.locator("#table [data-pick]:visible")
                    if picks.count() > 1:
                        picks.nth(1).click()
                    path = out / f"{kind}-{size}.png"
                    page.screenshot(path=str(path), full_page=True)
                    print(path)
                    context.close()
            browser.close()
        get_database(app).engine.dispose()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "artifacts" / "play")
