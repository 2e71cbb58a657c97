"""In Debian's Chromium at a phone's width (390 px): the rules pages, the home page and a
standings page with a withdrawn entry and a long name scroll only downwards, and the
rules' table of contents jumps to its sections."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from flask import Flask

from domain.games import SPECS
from tests.service.tournament_play import ORGANISER, enter, new_tournament, play_round

if TYPE_CHECKING:
    from playwright.sync_api import Page

PHONE = {"width": 390, "height": 844}


def test_rules_home_and_standings_fit_a_phone(page: Page, live_app: Flask, base_url: str) -> None:
    client = live_app.test_client()
    tournament = new_tournament(client, name="Spring cup of the long-named club", rounds=3)
    enter(client, tournament, "Ann", "Bo", "Cy", "Di", "Ida Longname-Smithson", "Flo")
    quitter = enter(client, tournament, "Quentin")[0]["entry"]
    client.delete(f"/tournaments/{tournament}/entries/{quitter}", headers=ORGANISER)
    play_round(client, tournament, random.Random(7))

    page.set_viewport_size(PHONE)
    urls = ["/", "/rules", *(f"/rules/{game}" for game in SPECS)]
    for url in [*urls, f"/tournaments/{tournament}/standings.html"]:
        page.goto(f"{base_url}{url}")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{url} is {width} px wide"


def test_the_contents_jump_to_the_options(page: Page, base_url: str) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{base_url}/rules/bestia")
    page.locator("nav.toc a", has_text="Table options").click()
    page.wait_for_url("**/rules/bestia#options")
    top = page.locator("#options").evaluate("e => e.getBoundingClientRect().top")
    assert abs(top) < 50  # scrolled to it (sub-pixel rounding aside)
    assert page.locator("#option-trick_pay").is_visible()
