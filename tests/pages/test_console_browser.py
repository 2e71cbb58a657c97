"""The organiser's console in a real browser at a phone's size (390x844): a club evening
run from the console alone, and a physical deal tapped in card by card. Each console page
is also photographed at 390x844 and 1280x800 under ``tests/artifacts/console/``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from flask import Flask

from tests.helpers import ADMIN_TOKEN
from tests.pages.conftest import ARTIFACTS, Phones
from tests.pages.tables import Table, open_table, state
from tests.pages.tapping import play_by_tapping

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 800}
SHOTS = ARTIFACTS / "console"


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    playwright_expect.set_options(timeout=10_000)
    return playwright_expect(target)


@pytest.fixture
def phone(browser: Browser, base_url: str) -> Iterator[Page]:
    """A phone-sized page holding the organiser's cookie (the console link opened once)."""
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors: list[str] = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    page.goto(f"{base_url}/console?token={ADMIN_TOKEN}")
    assert page.url == f"{base_url}/console"  # the token left the address bar
    yield page
    context.close()
    assert not errors, f"errors in the page's script: {errors}"


def shoot(page: Page, name: str) -> None:
    """The page at the phone's size and at a desk's; no horizontal scrolling on the phone."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name} scrolls sideways on a phone ({width} px)"
    page.screenshot(path=str(SHOTS / f"{name}-390.png"), full_page=True)
    page.set_viewport_size(DESK)
    page.screenshot(path=str(SHOTS / f"{name}-1280.png"), full_page=True)
    page.set_viewport_size(PHONE)


def test_an_evening_run_from_the_console(
    phone: Page, phones: Phones, live_app: Flask, base_url: str
) -> None:
    page = phone
    shoot(page, "index-empty")
    page.get_by_role("link", name="New tournament").click()
    page.locator('[data-game="bottle-imp"]').click()
    expect(page.locator('[data-default-match="standard-4"]')).to_contain_text("about")
    shoot(page, "new-tournament")
    page.get_by_label("Name").fill("Tuesday club")
    page.locator('select[name="table_size"]').select_option("4")
    page.locator('input[name="rounds"]').fill("2")
    page.locator('input[name="max_deals"]').fill("1")
    assert page.locator('input[name="fill_with_bots"]').is_checked()
    page.get_by_role("button", name="Create the tournament").click()
    expect(page.locator(".flash")).to_have_text("Tournament created.")
    tournament_url = page.url.split("?")[0]

    for name in ("Ann", "Bo", "Cy"):
        page.get_by_label("Guest's name").fill(name)
        page.get_by_role("button", name=re.compile("^Enter")).click()
        expect(page.locator(".flash")).to_have_text(f"{name} entered.")
    page.locator("#open-round").click()
    expect(page.locator(".flash")).to_have_text("Round 1 seated.")
    table_card = page.locator("#round-tables [data-table]")
    expect(table_card).to_have_count(1)
    expect(table_card).to_contain_text("random bot")
    expect(table_card.locator(".to-act")).not_to_have_count(0)  # somebody must deal or pass
    shoot(page, "tournament-round-1")

    page.locator("#print-slips").click()
    slips = page.locator(".slip")
    expect(slips).to_have_count(3)
    assert sorted(slips.locator(".who").all_inner_texts()) == ["Ann", "Bo", "Cy"]
    expect(slips.first.locator(".qr svg")).to_be_visible()
    links = slips.locator(".link").all_inner_texts()
    for link in links:
        assert re.fullmatch(rf"{base_url}/tournaments/[0-9a-f]{{32}}/me\?token=\S+", link)
    shoot(page, "slips")
    page.emulate_media(media="print")
    expect(page.locator("header.top")).to_be_hidden()
    expect(page.get_by_role("button", name="Print")).to_be_hidden()
    page.set_viewport_size({"width": 794, "height": 1123})  # an A4 sheet at 96 dpi
    page.screenshot(path=str(SHOTS / "slips-print-a4.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.emulate_media(media="screen")

    # the round can not be followed by another while its table plays
    page.goto(tournament_url)
    page.locator("#open-round").click()
    expect(page.locator('.refused[data-code="round_in_progress"]')).to_contain_text("(1)")

    # each person opens their slip's link on their own phone and plays by tapping; the
    # console follows the table
    table_id = str(table_card.get_attribute("data-table"))
    seats = [phones.open(link) for link in links]
    assert all("token" not in seat.url for seat in seats)
    play_by_tapping(live_app, Table(table_id, [], {"game": "bottle-imp"}), seats)
    page.goto(tournament_url)
    expect(page.locator('#round-tables [data-status="finished"]')).to_have_count(1)
    page.locator("#open-round").click()
    expect(page.locator(".flash")).to_have_text("Round 2 seated.")
    expect(page.locator("#standings tbody tr")).to_have_count(3)
    expect(page.locator("#standings")).to_contain_text("Ann")
    shoot(page, "tournament-round-2")
    page.goto(f"{base_url}/console")
    expect(page.locator("[data-tournament]")).to_contain_text("Tuesday club")
    shoot(page, "index")


def test_a_physical_deal_tapped_in(phone: Page, live_app: Flask, base_url: str) -> None:
    client = live_app.test_client()
    table = open_table(client, "bestia")
    page = phone
    page.goto(f"{base_url}/console/tables/new?game=bestia")
    expect(page.locator('select[name="opt-deck"]')).to_have_value("short")
    shoot(page, "new-table")
    page.goto(f"{base_url}/console/tables/{table.id}")
    shoot(page, "table")
    page.get_by_role("link", name="Record a physical deal").click()
    expect(page.locator("#deck [data-card]").first).to_be_visible()  # the deal sheet has loaded
    deck = [str(c) for c in page.locator("#deck [data-card]").evaluate_all(
        "els => els.map(e => e.dataset.card)")]  # fmt: skip
    dealer = state(client, table)["dealer"]

    # an incomplete deal: the rules say what is wrong, the tapped cards stay
    page.locator("#deck [data-card]").first.click()
    page.locator("#confirm-deal").click()
    expect(page.locator('.refused[data-code="invalid_deal"]')).to_be_visible()
    expect(page.locator('input[name="hands-0"]')).to_have_value(deck[0])
    page.locator('[data-cards-for="hands-0"] [data-card]').click()  # back into the deck

    hands = [deck[5 * s : 5 * s + 5] for s in range(3)]
    for seat, hand in enumerate(hands):
        page.locator(f'[data-pick-pile="hands-{seat}"]').click()
        for card in hand:
            page.locator(f'#deck [data-card="{card}"]').click()
        expect(page.locator(f'[data-count-for="hands-{seat}"]')).to_have_text("5/5")
    page.locator('[data-pick-pile="muestra"]').click()
    page.locator(f'#deck [data-card="{hands[dealer][0]}"]').click()
    expect(page.locator("#deal-progress")).to_have_text("15 of 15 cards placed")
    shoot(page, "deal")
    page.locator("#confirm-deal").click()
    expect(page.locator(".flash")).to_have_text("Deal recorded.")
    expect(page.locator("#table-status")).to_have_text("playing")
    after = state(client, table)
    assert [sorted(h) for h in after["hands"]] == [sorted(h) for h in hands]
