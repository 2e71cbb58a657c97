"""The pages in every language in Chromium (README.md, Languages; issue 22): at a phone's
width (390 px) no page in any language scrolls sideways and no button, label, heading or
cell spills its words out of its box (the seat page, the console, seat slips, the
standings); one deal played by tapping in Spanish and one in Finnish, the page in that
language from the first tap to the end. The catalogues' and pages' text checks are in
``test_languages.py``."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from flask import Flask
from flask_babel import force_locale, gettext

from service.web.languages import LANGUAGES
from tests.factories import table_body
from tests.helpers import ADMIN_TOKEN, post_table
from tests.pages.conftest import ARTIFACTS, Phones
from tests.pages.tapping import play_by_tapping
from tests.pages.test_play_browser import human_pages, seats
from tests.service.tournament_play import enter, new_tournament, play_round, seat_round

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

PHONE: Any = {"width": 390, "height": 844}
SHOTS = ARTIFACTS / "languages"
#: What spills at a phone's width: the page itself, or a box whose words do not fit it
#: (tables that scroll inside their own box, code and the cards' faces aside).
SPILLS = """() => {
  const found = [];
  const root = document.documentElement;
  if (root.scrollWidth > window.innerWidth) {
    found.push(`the page: ${root.scrollWidth} > ${window.innerWidth}`);
  }
  for (const el of document.querySelectorAll(
      'button, .button, label, h1, h2, h3, p, li, th, td, .tag, .status, summary, select')) {
    if (el.closest('.scroll, pre, code, .card, [hidden]') || !el.offsetParent) { continue; }
    const style = getComputedStyle(el);
    if (style.display.startsWith('inline') && el.tagName !== 'BUTTON' && el.tagName !== 'SELECT') {
      continue;
    }
    if (el.scrollWidth > el.clientWidth + 1) {
      const words = el.textContent.trim().slice(0, 60);
      found.push(`${el.tagName.toLowerCase()}.${el.className}: "${words}"`);
    }
  }
  return found;
}"""


#: A word broken across lines: a heading, button or column heading of one word that the
#: browser split to fit a narrow box (the crosstable's "Jugado/r" on a phone).
BROKEN_WORDS = """() => {
  const found = [];
  for (const el of document.querySelectorAll('th, h1, h2, h3, button, .button, summary, label')) {
    const text = el.textContent.trim();
    if (!el.offsetParent || el.children.length || /\\s/.test(text) || text.length < 2) { continue; }
    const range = document.createRange();
    range.selectNodeContents(el);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    if (lines.size > 1) { found.push(`${el.tagName.toLowerCase()}: "${text}" broken`); }
  }
  return found;
}"""
#: Every folded box unfolded, so that what it holds is measured too (the hand record).
UNFOLD = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    playwright_expect.set_options(timeout=10_000)
    return playwright_expect(target)


def said(app: Flask, language: str, english: str) -> str:
    """An English message as the pages say it in ``language``."""
    with app.test_request_context(), force_locale(language):
        return gettext(english)


@pytest.fixture
def organiser(browser: Browser, base_url: str) -> Iterator[Page]:
    """A phone holding the organiser's session."""
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{base_url}/console?token={ADMIN_TOKEN}")
    yield page
    context.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_spills_out_of_a_phone(
    organiser: Page, live_app: Flask, base_url: str, language: str
) -> None:
    api = live_app.test_client()
    tournament = new_tournament(api, name="Kerho", table_size=3, rounds=2)
    enter(api, tournament, "Ann", "Bo", "Cy", "Di", "Eki")
    seated = seat_round(api, tournament)
    table = seated["tables"][0]
    seat = next(s for s in table["seats"] if s.get("token"))
    hand_dealt = post_table(api, table_body(seats=seats(3, 3)))
    pages = {
        "seat": f"/tables/{table['id']}/view?token={seat['token']}",
        "console": "/console",
        "tournament": f"/console/tournaments/{tournament}",
        "new tournament": "/console/tournaments/new?game=bestia",
        "new table": "/console/tables/new?game=oh-quay",
        "round's table": f"/console/tables/{table['id']}",
        "deal sheet": f"/console/tables/{hand_dealt.id}/deal",
        "slips": f"/console/tournaments/{tournament}/rounds/1/slips",
        "standings": f"/tournaments/{tournament}/standings.html",
        "rules": "/rules/bestia",
        "home": "/",
    }
    spilled = {}
    SHOTS.mkdir(parents=True, exist_ok=True)
    organiser.goto(f"{base_url}/?lang={language}")
    for name, path in pages.items():
        organiser.goto(f"{base_url}{path}")
        expect(organiser.locator("html")).to_have_attribute("lang", language)
        organiser.evaluate(UNFOLD)
        shot = SHOTS / f"{language}-{name.replace(' ', '-').replace(chr(39), '')}.png"
        organiser.screenshot(path=str(shot), full_page=True)
        if found := organiser.evaluate(SPILLS) + organiser.evaluate(BROKEN_WORDS):
            spilled[name] = found
    assert spilled == {}, f"words spill out of a 390 px phone in {language}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_played_tournament_fits_a_phone(
    organiser: Page, live_app: Flask, base_url: str, language: str
) -> None:
    """After two rounds: the standings' crosstable (a column per round) keeps its headings'
    words whole, and a deal's replay with its hand record unfolded (its long seed and
    hashes) does not scroll sideways."""
    api = live_app.test_client()
    tournament = new_tournament(api, name="Kerho", table_size=3, rounds=2, max_deals=1)
    enter(api, tournament, "Ann", "Bo", "Cy")
    rng = random.Random(language)
    seated, _ = play_round(api, tournament, rng)
    play_round(api, tournament, rng)
    pages = {
        "crosstable": f"/tournaments/{tournament}/standings.html",
        "replay": f"/tables/{seated['tables'][0]['id']}/deals/1/replay",
        "wall": f"/tournaments/{tournament}/wall",
    }
    spilled = {}
    organiser.goto(f"{base_url}/?lang={language}")
    for name, path in pages.items():
        organiser.goto(f"{base_url}{path}")
        expect(organiser.locator("html")).to_have_attribute("lang", language)
        organiser.evaluate(UNFOLD)
        organiser.screenshot(path=str(SHOTS / f"{language}-played-{name}.png"), full_page=True)
        if found := organiser.evaluate(SPILLS) + organiser.evaluate(BROKEN_WORDS):
            spilled[name] = found
    assert spilled == {}, f"words spill out of a 390 px phone in {language}"


@pytest.mark.parametrize("language", ["es", "fi"])
def test_a_deal_is_played_by_tapping_in_the_players_language(
    phones: Phones, live_app: Flask, base_url: str, language: str
) -> None:
    table = post_table(live_app.test_client(), table_body(seats=seats(2, 3), max_deals=1))
    pages = human_pages(phones, f"{base_url}", table)
    for page in pages:
        page.goto(f"{base_url}/tables/{table.id}/view?lang={language}")
        expect(page.locator("html")).to_have_attribute("lang", language)
    english = "Live: this page follows the table as it moves."
    assert said(live_app, language, english) != english, f"not translated into {language} yet"
    expect(pages[0].locator("#live-status")).to_have_text(said(live_app, language, english))
    end = play_by_tapping(live_app, table, pages)
    assert end["status"] == "finished"
    over = said(live_app, language, "The match is over.")
    for page in pages:
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator("#live-status")).to_have_text(over)
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], f"the page scrolls sideways on a phone: {widths}"
