"""Whole deals played in a real browser by tapping only (``docs/api.md``, Pages): each human
seat has its own browser context at a phone's size (390x844) that opened its token link
once; the test reads the page's ``data-action`` and ``data-pick`` elements from the DOM
(what the game's declared actions offer) and taps one of them at a time, as a player would,
while a bot holds another seat. Every registered game and variant (``domain.games.SPECS``),
with the game's quick options. Also: a token link leaves no token in the address or in
``document.cookie``, and a move sent without the page's CSRF token or from another site is
refused.

On failure each open page is saved under ``tests/artifacts/`` at phone and desktop size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from flask import Flask

from domain.games import SPECS
from tests.factories import table_body
from tests.helpers import post_table
from tests.pages.conftest import Phones
from tests.pages.tables import ORGANISER, Table, state
from tests.pages.tapping import play_by_tapping

if TYPE_CHECKING:
    from playwright.sync_api import Page

Json = dict[str, Any]


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    playwright_expect.set_options(timeout=10_000)
    return playwright_expect(target)


def seats(humans: int, players: int) -> list[Json]:
    names = ["Ann", "Bo", "Cy", "Di"]
    return [{"name": names[s]} if s < humans else {"bot": "random"} for s in range(players)]


def human_pages(phones: Phones, base_url: str, table: Table) -> list[Page]:
    pages = []
    for token in table.tokens:
        if token:
            page = phones.open(f"{base_url}/tables/{table.id}/view?token={token}")
            assert "token" not in page.url
            pages.append(page)
    return pages


def fits_the_phone(page: Page) -> None:
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page scrolls sideways on a phone: {widths}"


#: A one-deal match of every game and variant at its smallest table: people at every seat
#: but the last, a bot's, and at both seats of a table of two.
GAMES = {
    f"{spec.id}-{variant}": table_body(
        game=spec.id,
        variant=variant,
        seats=seats(max(2, min(counts) - 1), min(counts)),
        rules=dict(spec.quick_options),
        target_score=None,
    )
    for spec in SPECS.values()
    for variant, counts in spec.players.items()
}


@pytest.mark.parametrize("kind", GAMES)
def test_a_whole_deal_is_played_by_tapping(
    phones: Phones, live_app: Flask, base_url: str, kind: str
) -> None:
    table = post_table(live_app.test_client(), GAMES[kind])
    pages = human_pages(phones, base_url, table)
    expect(pages[0].locator("#turn")).to_be_visible()
    fits_the_phone(pages[0])
    end = play_by_tapping(live_app, table, pages)
    assert end["status"] == "finished"
    for page in pages:
        expect(page.locator("#table")).to_have_attribute("data-status", "finished")
        expect(page.locator("#turn")).to_contain_text("The match is over")
        fits_the_phone(page)


def test_the_organiser_records_a_deal_for_every_seat(
    phones: Phones, live_app: Flask, base_url: str
) -> None:
    """A scorer at a physical table: the organiser's page offers every seat's moves."""
    table = post_table(live_app.test_client(), table_body(seats=seats(3, 3)))
    page = phones.open(f"{base_url}/tables/{table.id}/view?token=test-organiser-token")
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("section.moves")).to_have_count(3)
    expect(page.locator("section.moves h2").first).to_contain_text("Record for Ann")
    end = play_by_tapping(live_app, table, [page])
    assert end["status"] == "finished"


#: A recorded three-player deal (docs/rules/bottle-imp.md, "Recorded deals") in which Ann
#: (seat 0) holds every suit and Bo, who leads, holds the yellows: Ann must follow yellow.
YELLOW, BLUE, RED = (1, 2, 3, 5), (4, 6, 8, 10), (11, 14, 16, 21)
STACKED = [
    [*YELLOW, *BLUE, *RED],
    [7, 9, 12, 15, 18, 22, 25, 28, 13, 17, 23, 26],
    [20, 24, 27, 30, 32, 34, 29, 31, 33, 35, 36, 37],
]
#: Each seat buries and passes cards it can spare; Bo leads yellow 28, Cy (no yellow) plays
#: blue 20, and Ann, to play, holds yellows, blues and reds.
BEFORE_ANN = [
    {"type": "deal", "hands": STACKED},
    {"type": "discard", "seat": 0, "card": 21},
    {"type": "pass", "seat": 0, "left": 16, "right": 14},
    {"type": "discard", "seat": 1, "card": 23},
    {"type": "pass", "seat": 1, "left": 26, "right": 17},
    {"type": "discard", "seat": 2, "card": 37},
    {"type": "pass", "seat": 2, "left": 36, "right": 35},
    {"type": "play", "seat": 1, "card": 28},
    {"type": "play", "seat": 2, "card": 20},
]


def test_an_unplayable_card_says_why(phones: Phones, live_app: Flask, base_url: str) -> None:
    """Ann must follow the yellow led: her blues and reds are greyed, and a tap on one says
    why in the rules' words."""
    table = post_table(live_app.test_client(), table_body(seats=seats(3, 3)))
    client = live_app.test_client()
    for action in BEFORE_ANN:
        answer = client.post(f"/tables/{table.id}/actions", json=action, headers=ORGANISER)
        assert answer.status_code == 201, (action, answer.get_json())
    ann = state(client, table, 0)
    assert ann["to_act"] == [0] and set(YELLOW) <= set(ann["hands"][0])
    playable = {a["card"] for a in ann["legal_actions"]}
    assert playable == set(YELLOW)

    page = human_pages(phones, base_url, table)[0]
    greyed = page.locator("#table .unplayable")
    expect(greyed.first).to_be_visible()
    shown = {int(str(card)) for card in greyed.evaluate_all("cs => cs.map(c => c.dataset.card)")}
    assert shown == set(ann["hands"][0]) - set(YELLOW)
    assert greyed.first.get_attribute("data-action") is None
    greyed.first.click(force=True)  # aria-disabled, yet it answers a tap
    expect(page.locator("#table .reason")).to_contain_text("follow")


def test_a_token_link_leaves_no_token_in_the_page(
    phones: Phones, live_app: Flask, base_url: str
) -> None:
    table = post_table(live_app.test_client(), table_body(seats=seats(4, 4)))
    token = str(table.tokens[0])
    page = phones.open(f"{base_url}/tables/{table.id}/view?token={token}")
    assert page.url == f"{base_url}/tables/{table.id}/view"
    assert token not in page.content()
    assert page.evaluate("document.cookie") == ""  # HttpOnly: the script cannot read it
    (cookie,) = page.context.cookies()
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert cookie["path"] == f"/tables/{table.id}" and cookie["value"] == token
    expect(page.locator("#turn")).to_have_text("Your deal.")

    act = f"{base_url}/tables/{table.id}/view/act"
    version = page.locator("#table").get_attribute("data-version")
    headers = {"If-Match": f'"{version}"', "Content-Type": "application/json"}
    unsent = page.evaluate(
        """([url, headers]) => fetch(url, {method: "POST", headers: headers,
               body: JSON.stringify({type: "deal"})})
             .then(r => r.json().then(b => [r.status, b.code]))""",
        [act, headers],
    )
    assert unsent == [403, "csrf"]
    csrf = page.evaluate("JSON.parse(document.getElementById('live').textContent).csrf")
    forged = page.context.request.post(
        act, data={"type": "deal"},
        headers={**headers, "X-CSRF-Token": csrf, "Origin": "https://evil.example"},
    )  # fmt: skip
    assert forged.status == 403 and forged.json()["code"] == "csrf"
    assert state(live_app.test_client(), table)["status"] == "waiting_for_deal"
    page.locator('[data-action=\'{"type": "deal"}\']').click()
    expect(page.locator("#table")).to_have_attribute("data-status", "in_deal")


def test_a_stale_page_shows_the_refusal_and_catches_up(
    phones: Phones, live_app: Flask, base_url: str
) -> None:
    """A move tapped on a page that missed the news is refused (If-Match): the page says
    so in words, not as raw JSON, and then shows the table as it is."""
    table = post_table(live_app.test_client(), table_body(seats=seats(4, 4)))
    page = phones.open(f"{base_url}/tables/{table.id}/view?token={table.tokens[0]}")
    expect(page.locator("#turn")).to_have_text("Your deal.")
    page.route("**/view/news*", lambda route: route.abort())  # the page hears nothing
    client = live_app.test_client()
    dealt = client.post(f"/tables/{table.id}/actions", json={"type": "deal"}, headers=ORGANISER)
    assert dealt.status_code == 201
    page.locator("#table [data-action]").first.click()
    error = page.locator("#act-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("Not played: the table moved on before your tap arrived")
    assert "{" not in error.inner_text()
    page.unroute("**/view/news*")
    expect(page.locator("#table")).to_have_attribute("data-status", "in_deal")
    expect(page.locator("#turn")).to_contain_text("Your turn")
