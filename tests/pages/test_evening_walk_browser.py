"""The club's home on a phone after an evening, as a walk of the README found it: the
lists' cells split words to squeeze their columns in ("The Bottl/e Imp", "standing/s",
"finishe/d"). Each word of a list stays on one line; a list too wide scrolls in its box."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from flask import Flask

from tests.service.tournament_play import enter, new_tournament, play_round

if TYPE_CHECKING:
    from playwright.sync_api import Browser

#: Each word of a list's cells (``table.list``) whose letters the browser set on more than
#: one line.
SPLIT_WORDS = """() => {
  const found = [];
  for (const cell of document.querySelectorAll('table.list th, table.list td')) {
    if (!cell.offsetParent) { continue; }
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.textContent.matchAll(/\\S{2,}/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (lines.size > 1) { found.push(word[0]); }
      }
    }
  }
  return found;
}"""


def test_the_homes_lists_keep_their_words_whole_on_a_phone(
    browser: Browser, live_app: Flask, base_url: str
) -> None:
    api = live_app.test_client()
    tournament = new_tournament(
        api, name="Tuesday club", table_size=4, rounds=2, max_deals=1, fill_with_bots="random"
    )
    enter(api, tournament, "Ann", "Bo", "Cy")  # and a bot: the README's evening
    rng = random.Random("walk")
    for _ in range(2):
        play_round(api, tournament, rng)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(f"{base_url}/?lang=en")
        assert page.locator("table.list td").count() > 0
        assert page.evaluate(SPLIT_WORDS) == []
        page_width = page.evaluate("document.documentElement.scrollWidth")
        assert page_width <= 390, page_width  # the page itself never scrolls sideways
    finally:
        context.close()
