"""A club evening driven through the browser alone, as the README's "A club evening in the
browser" walks it: the organiser's console on a phone, seat slips, each player's phone,
a physical table recorded by the organiser, standings.

    .venv/bin/python -m tests.pages.evening URL TOKEN [OUT [LANG]]   # against `make run`

``tests.pages.readme_screenshot`` runs the same walk on a throw-away server and keeps a few
of its shots for the README; this entry point runs it against any server (e.g. the one
`make run` started, token from ``var/admin-token``) and keeps every step's shot in OUT
(``tests/artifacts/evening/``), at 390x844 and 1280x800. LANG (``es``, ``fi``, ``fr``) is
the browsers' language: the walk finds every button by the words the compiled catalogue
gives it, so a page still in English fails it.
"""

from __future__ import annotations

import gettext
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright

from tests.helpers import wait_for
from tests.pages.browser import launch
from tests.pages.tapping import TAPPABLE, tap

ROOT = Path(__file__).resolve().parents[2]
PHONE: ViewportSize = {"width": 390, "height": 844}
DESK: ViewportSize = {"width": 1280, "height": 800}
NAMES = ("Ann", "Bo", "Cy")
TRANSLATIONS = ROOT / "service" / "web" / "translations"
#: a walk's language -> the browsers' locale (their Accept-Language)
LOCALES = {"en": "en-GB", "es": "es-ES", "fi": "fi-FI", "fr": "fr-FR"}

#: step name -> called with the page at that step (the README keeps some of them)
Shooter = Callable[[str, Page], None]


def all_sizes(out: Path) -> Shooter:
    """Keep every step, full page, at a phone's size and a desk's."""

    def shoot(name: str, page: Page) -> None:
        out.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out / f"{name}-390.png"), full_page=True)
        size = page.viewport_size
        page.set_viewport_size(DESK)
        page.screenshot(path=str(out / f"{name}-1280.png"), full_page=True)
        if size:
            page.set_viewport_size(size)
        wide = page.evaluate("document.documentElement.scrollWidth")
        if wide > PHONE["width"]:
            print(f"  ! {name}: {wide} px wide on a phone")

    return shoot


def words(lang: str) -> Callable[[str], str]:
    """The pages' words in ``lang``, from the compiled catalogue (English: as written)."""
    if lang == "en":
        return str
    return gettext.translation("messages", TRANSLATIONS, languages=[lang]).gettext


def saying(said: str) -> re.Pattern[str]:
    """A translated message with ``%(name)s`` placeholders, as a pattern of the page's text."""
    parts = re.split(r"%\(\w+\)s", said)
    return re.compile(".+".join(re.escape(part) for part in parts))


def play(pages: list[Page], rng: random.Random, minutes: float = 4,
         moment: Callable[[int], None] | None = None) -> None:  # fmt: skip
    """Tap on every page until each says the match is over; ``moment(n)`` after n moves."""
    deadline = time.monotonic() + minutes * 60
    taps = 0
    while not all(p.locator('#table[data-status="finished"]').count() for p in pages):
        if time.monotonic() > deadline:
            seen = [
                (p.url, p.locator("#turn").inner_text(), p.locator("#live-status").inner_text(),
                 p.locator("#act-error").inner_text(), p.locator(TAPPABLE).count())
                for p in pages
            ]  # fmt: skip
            raise AssertionError(f"the round did not end by tapping: {seen}")
        tapped = False
        for page in pages:
            if tap(page, rng):
                tapped = True
                taps += 1
                if moment:
                    moment(taps)
        if not tapped:
            time.sleep(0.3)  # bots, or a page waiting for its news


def console(browser: Browser, url: str, token: str, lang: str = "en") -> Page:
    """The organiser's phone: the console link opened once (the token becomes a cookie)."""
    page = browser.new_context(viewport=PHONE, locale=LOCALES[lang]).new_page()
    page.goto(f"{url}/console?token={token}")
    assert "token=" not in page.url, page.url
    return page


def evening(
    browser: Browser, url: str, token: str, shoot: Shooter, seed: str = "", lang: str = "en"
) -> str:
    """The whole evening; returns the tournament's console address (``seed``: the
    tournament's, else drawn by the server; ``lang``: the browsers' language)."""
    rng = random.Random("evening")
    _ = words(lang)
    org = console(browser, url, token, lang)
    shoot("01-console", org)

    # A tournament: Bottle Imp, tables of four, two rounds of one deal, bots fill a table.
    org.get_by_role("link", name=_("New tournament")).click()
    shoot("02-choose-game", org)
    org.locator('[data-game="bottle-imp"]').click()
    org.get_by_label(_("Name"), exact=True).fill("Tuesday club")
    org.locator('select[name="table_size"]').select_option("4")
    org.locator('input[name="rounds"]').fill("2")
    org.locator('input[name="max_deals"]').fill("1")
    if seed:
        org.locator('input[name="seed"]').fill(seed)
    shoot("03-new-tournament", org)
    org.get_by_role("button", name=_("Create the tournament")).click()
    org.wait_for_url(re.compile(r"/console/tournaments/[0-9a-f-]+"))
    tournament = org.url.split("?")[0]
    shoot("04-tournament", org)

    for name in NAMES:
        org.locator('#enter input[name="name"]').fill(name)
        org.locator("#enter button[type=submit]").click()
        org.locator("#entries").get_by_text(name, exact=True).wait_for()
    shoot("05-entries", org)

    # Round 1: seat it, print the slips, every player opens their own.
    org.locator("#open-round").click()
    org.locator("#round-tables").wait_for()
    shoot("06-round-1", org)
    org.locator("#print-slips").click()
    org.locator(".slip").first.wait_for()
    shoot("07-slips", org)
    links = [s.inner_text().strip() for s in org.locator(".slip .link").all()]
    assert len(links) == len(NAMES), links

    locale = LOCALES[lang]
    phones = [browser.new_context(viewport=PHONE, locale=locale).new_page() for _link in links]
    for phone, link in zip(phones, links, strict=True):
        phone.goto(url + link[link.index("/tournaments/") :])  # the slip's link, at this server
        assert "token=" not in phone.url, phone.url
    shoot("08-seat-before-deal", phones[0])

    shown: list[int] = []

    def moment(taps: int) -> None:
        """Past the first few moves, the first time the first phone has a choice to show."""
        mine = phones[0]
        if taps >= 8 and not shown and mine.locator("#table [data-action]:visible").count():
            shown.append(taps)
            shoot("09-seat-playing", mine)
            org.goto(tournament)
            shoot("10-round-status", org)

    play(phones, rng, moment=moment)
    shoot("11-seat-finished", phones[0])
    org.goto(tournament)
    org.locator('#round-tables [data-status="finished"]').first.wait_for()
    shoot("12-round-1-finished", org)

    # A phone is lost: the seat's console page re-issues its link (the old one stops).
    first_table = org.locator("#round-tables .item").first
    first_table.get_by_role("link", name=_("console"), exact=True).click()
    shoot("13-console-table", org)
    new_link = org.locator("li[data-seat] form.new-link").first  # the first person's seat
    new_link.locator("input[name=sure]").check()  # asked first: the old link stops
    new_link.locator("button").click()
    org.locator("#reissued").wait_for()
    shoot("14-new-link", org)

    # Round 2 at a physical table: the organiser taps the real deal in, then records every
    # person's play from the table page.
    org.goto(tournament)
    org.locator("#open-round").click()
    org.locator('#round[data-round="2"]').wait_for()
    shoot("16-round-2", org)
    first = str(org.locator("#round-tables .item").first.get_attribute("data-table"))
    wait_for(lambda: dealt_unless_by_a_person(org, url, first), 60, "a bot dealer's deal")
    org.reload()  # a bot dealer has dealt by itself (through the worker): look again
    table = org.locator("#round-tables .item").first
    if table.get_by_role("link", name=_("record a deal")).count():
        table.get_by_role("link", name=_("record a deal")).click()
        record_deal(org, rng, shoot, "17", _)
    else:  # its dealer is a bot, who dealt at once: the organiser records the plays only
        print("  round 2's dealer is a bot: no physical deal to record (see the lone table)")
        table.get_by_role("link", name=_("console"), exact=True).click()

    # A director's ruling on that table, while its match runs.
    org.locator('#adjust select[name="seat"]').select_option("0")
    org.locator('#adjust input[name="points"]').fill("-2")
    org.locator('#adjust input[name="reason"]').fill("card exposed in the deal")
    org.get_by_role("button", name=_("Record the adjustment")).click()
    org.get_by_text(saying(_("%(points)s to %(name)s recorded."))).first.wait_for()
    shoot("19-adjusted", org)
    org.get_by_role("link", name=_("Open the table page")).click()
    org.locator("#table").wait_for()
    shoot("20-organiser-table", org)
    play([org], rng)
    shoot("21-organiser-table-finished", org)
    org.goto(tournament)
    shoot("22-round-2-finished", org)

    org.locator("#round-tables").wait_for()
    while org.locator('#round-tables .item:not([data-status="finished"])').count():
        # the other tables of round 2 (if any): the organiser plays them too
        item = org.locator('#round-tables .item:not([data-status="finished"])').first
        item.get_by_role("link", name=_("table page")).click()
        play([org], rng)
        org.goto(tournament)

    if org.locator("#finish").count():  # a tournament of planned rounds finishes itself
        org.get_by_label(_("yes, finish it")).check()
        org.locator("#finish").click()
    org.locator('#tournament-status[data-status="finished"]').wait_for()
    shoot("23-finished", org)
    org.get_by_role("link", name=_("standings"), exact=True).first.click()
    shoot("24-standings", org)
    org.goto(f"{url}/")
    shoot("25-home", org)
    org.goto(f"{url}/rules/bottle-imp")
    shoot("26-rules", org)

    # A lone table of four people with real cards, its first dealer a person.
    org.goto(f"{url}/console")
    org.get_by_role("link", name=_("New table")).click()
    org.locator('[data-game="bottle-imp"]').click()
    for seat, name in enumerate(("Ann", "Bo", "Cy", "Di")):
        org.locator(f'select[name="seat-{seat}-kind"]').select_option("person")
        org.locator(f'input[name="seat-{seat}-who"]').fill(name)
    org.locator('input[name="max_deals"]').fill("1")
    shoot("27-new-table", org)
    org.get_by_role("button", name=_("Open the table")).click()
    org.get_by_text(_("Table opened.")).wait_for()
    shoot("28-lone-table", org)
    org.get_by_role("link", name=_("Record a physical deal")).click()
    record_deal(org, rng, shoot, "29", _)
    new_link = org.locator('li[data-seat="2"] form.new-link')
    new_link.locator("input[name=sure]").check()  # asked first: the old link stops
    new_link.locator("button").click()
    org.locator("#reissued").wait_for()
    shoot("31-lone-seat-link", org)
    return tournament


def dealt_unless_by_a_person(org: Page, url: str, table_id: str) -> bool:
    """Whether a table no longer waits for a bot to deal: dealt, or its dealer a person
    (read from the public API, in the organiser's browser)."""
    state = org.request.get(f"{url}/tables/{table_id}/state").json()
    seats = org.request.get(f"{url}/tables/{table_id}").json()["seats"]
    return state["status"] != "waiting_for_deal" or "bot" not in seats[state["dealer"]]


def record_deal(
    org: Page, rng: random.Random, shoot: Shooter, step: str, _: Callable[[str], str] = str
) -> None:
    """On a table's "record a deal" page: tap the deck's cards into the piles, confirm
    (``_``: the page's words)."""
    shoot(f"{step}-record-deal", org)
    deck = org.locator('#deck [data-card][aria-disabled="false"]')
    for _tap in range(200):
        progress = org.locator("#deal-progress").inner_text()
        placed, wanted = re.findall(r"\d+", progress)[:2]
        if placed == wanted:
            break
        if int(placed) == int(wanted) // 2:
            shoot(f"{step}-half-tapped", org)
        deck.nth(rng.randrange(deck.count())).click()  # as the cards come off the table
    shoot(f"{int(step) + 1}-deal-tapped", org)
    org.locator("#confirm-deal").click()
    org.get_by_text(_("Deal recorded.")).wait_for()


def main(argv: list[str]) -> None:
    url, token = argv[0].rstrip("/"), argv[1]
    out = Path(argv[2]) if len(argv) > 2 else ROOT / "tests" / "artifacts" / "evening"
    lang = argv[3] if len(argv) > 3 else "en"
    with sync_playwright() as playwright:
        browser = launch(playwright)
        print(evening(browser, url, token, all_sizes(out), lang=lang))
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])


__all__: list[Any] = ["evening", "main"]
