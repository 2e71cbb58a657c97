"""Playing a table page by tapping only what it offers (``data-action`` and ``data-pick``
elements), as a player's thumb would: shared by the browser tests."""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Any

from flask import Flask

from tests.pages.tables import Table, state

if TYPE_CHECKING:
    from playwright.sync_api import Page

Json = dict[str, Any]
TAPPABLE = "#table [data-action]:visible, #table [data-pick]:visible"
#: How long the test servers' pages ignore taps after a redraw (``CARDLEDGER_TAP_QUIET_MS``;
#: 600 ms by default, for thumbs): long enough for the double-tap test, short enough that a
#: deal tapped through is not mostly waiting.
TAP_QUIET_MS = 150
#: The version of the table shown, once it has stood still longer than the page ignores
#: taps after a redraw (its ``quiet_ms``), as a thumb waits for the screen to settle; timed
#: from when this helper first saw it, and marked as the table about to be tapped.
SETTLED = """() => {
  const table = document.querySelector('#table');
  if (!table) { return null; }
  table.seenAt = table.seenAt || performance.now();
  const quiet = JSON.parse(table.querySelector('#live').textContent).quiet_ms;
  if (performance.now() - table.seenAt <= quiet + 50) { return null; }
  table.tapped = true;
  return table.dataset.version;
}"""
#: After a move's tap: the page shows another version, says why not, or was redrawn
#: under the tap (news arrived first: the tap fell in its quiet moment).
ANSWERED = """v => {
  const table = document.querySelector('#table');
  return table.dataset.version !== v || !table.tapped
      || !document.querySelector('#act-error').hidden;
}"""


def tap(page: Page, rng: random.Random) -> bool:
    """Tap one element the page offers now (a complete move or a pick); False if none."""
    if page.locator("body.sending").count():
        return False
    offered = page.locator(TAPPABLE)
    count = offered.count()
    if not count:
        return False
    from playwright.sync_api import TimeoutError as TapTimedOut

    before = page.wait_for_function(SETTLED, timeout=10_000).json_value()
    element = offered.nth(rng.randrange(count))
    try:
        is_move = element.get_attribute("data-action", timeout=1_000) is not None
        element.click(timeout=10_000)  # a card stands still late on a loaded machine (make test)
    except TapTimedOut:
        if moved_on(page, before) or offered.count() != count:  # redrawn under it: look again
            return False
        raise  # offered, the table unchanged, and yet it could not be tapped
    if is_move:  # wait until the page shows the table after the move (or says why not)
        page.wait_for_function(ANSWERED, arg=before, timeout=10_000)
        error = page.locator("#act-error")
        assert error.is_hidden() or "moved on" in error.inner_text(), error.inner_text()
    return True


def moved_on(page: Page, before: str | None) -> bool:
    """Whether the page changed under a tap: a move is being sent, or news arrived."""
    sending = page.locator("body.sending").count() > 0
    return sending or page.locator("#table").get_attribute("data-version") != before


def play_by_tapping(app: Flask, table: Table, pages: list[Page], seconds: float = 60) -> Json:
    """Tap on every human seat's page until the match is over."""
    client = app.test_client()
    rng = random.Random(table.id)
    deadline = time.monotonic() + seconds
    while (now := state(client, table))["status"] != "finished":
        assert time.monotonic() < deadline, f"the match did not end: {now['phase']}"
        if not any([tap(page, rng) for page in pages]):
            time.sleep(0.1)  # bots, or a page waiting for its news
    return now
