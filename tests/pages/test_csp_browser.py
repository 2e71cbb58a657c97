"""The pages under their Content-Security-Policy, in Chromium: every script runs (it carries
the response's nonce), no inline handler or style is refused, and the browser reports no
violation on the pages that script the most (issue 18, item 8)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask import Flask

from tests.helpers import ADMIN_TOKEN
from tests.pages.tables import ORGANISER, open_table, play

if TYPE_CHECKING:
    from playwright.sync_api import Page


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(target)


def test_scripted_pages_run_under_their_policy(page: Page, live_app: Flask, base_url: str) -> None:
    client = live_app.test_client()
    table = open_table(client, "bottle-imp")
    dealt = open_table(client, "bottle-imp")
    play(client, dealt, lambda s: s["deal"] == 2 or s["status"] == "finished")
    refused: list[str] = []
    page.on("console", lambda message: refused.append(message.text)
            if "Content Security Policy" in message.text else None)  # fmt: skip
    page.goto(f"{base_url}/console?token={ADMIN_TOKEN}")
    page.goto(f"{base_url}/console/tables/{table.id}/deal")
    expect(page.locator("#deal-progress")).to_have_text("0 of 36 cards placed")  # its script ran
    page.locator("#deck [data-card]").first.click()
    expect(page.locator("#deal-progress")).to_have_text("1 of 36 cards placed")
    page.goto(f"{base_url}/tables/{dealt.id}/deals/1/replay")
    expect(page.locator("#step-count")).to_contain_text("step 1 of")  # drawn by its script
    page.goto(f"{base_url}/tables/{table.id}/view")
    # the organiser deals from the page; its answer is awaited (the table's own text never
    # held "Deal.", so waiting for that to go did not wait for the deal at all)
    with page.expect_response(lambda r: "/view/act" in r.url, timeout=10_000) as answer:
        page.locator("[data-action]").first.click()
    assert answer.value.ok
    expect(page.locator("#table")).not_to_contain_text("waiting for the deal")
    assert client.get(f"/tables/{table.id}", headers=ORGANISER).get_json()["version"] > 1
    assert refused == []
