"""Two phones on personal links see each other's moves without reloading (``docs/api.md``,
"Live updates" and "Personal links"): Debian's Chromium, one browser context per person
at a phone's size, each opening only its own ``/tournaments/{id}/me?token=…`` link. The
pages' fallback polling is set to ten minutes, so whatever a page learns within the test
came through its event stream; a mark left in each page shows it was never reloaded.
The personal page itself sends its phone on to the next round's seat by itself."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from flask import Flask

from service.storage.db import get_database
from tests.factories import tournament_body
from tests.helpers import make_test_app
from tests.pages.browser import serve
from tests.pages.conftest import Phones
from tests.pages.tables import ORGANISER
from tests.pages.tapping import TAPPABLE, tap

if TYPE_CHECKING:
    from playwright.sync_api import Page

Json = dict[str, Any]
#: The pages' fallback polling: far longer than the test, so only the stream can tell.
NO_POLLING_MS = 600_000


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    path = tmp_path_factory.mktemp("live-pages") / "cardledger.db"
    built = make_test_app(f"sqlite:///{path}")
    built.config["PAGES_POLL_MS"] = NO_POLLING_MS
    built.config["LIVE_HEARTBEAT_SECONDS"] = 1.0  # closed pages' streams end soon after
    yield built
    get_database(built).engine.dispose()


@pytest.fixture(scope="module")
def url(app: Flask) -> Iterator[str]:
    with serve(app) as base:
        yield base


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    playwright_expect.set_options(timeout=10_000)
    return playwright_expect(target)


def api(app: Flask, method: str, path: str, body: Json | None = None) -> Any:
    response = app.test_client().open(path, method=method, json=body, headers=ORGANISER)
    assert response.status_code < 300, response.get_json()
    return response.get_json()


def version(page: Page) -> int:
    return int(page.locator("#table").get_attribute("data-version") or 0)


def sees(page: Page, at_least: int) -> None:
    """Wait until ``page`` shows the table at ``at_least`` (its stream told it)."""
    page.wait_for_function(
        "v => Number(document.querySelector('#table').dataset.version) >= v",
        arg=at_least,
        timeout=10_000,
    )


def move(page: Page, rng: random.Random, seconds: float = 20) -> int:
    """Tap what ``page`` offers until it has made a move; the version it then shows."""
    before = version(page)
    deadline = time.monotonic() + seconds
    while version(page) == before:
        assert time.monotonic() < deadline, "the page offered no move"
        if not tap(page, rng):
            time.sleep(0.05)
    return version(page)


def never_reloaded(pages: list[Page]) -> None:
    assert all(page.evaluate("window.__stayed === true") for page in pages)


def test_two_phones_on_personal_links_see_each_others_moves(
    phones: Phones, app: Flask, url: str
) -> None:
    body = tournament_body(rounds=2, fill_with_bots="random", max_deals=1, target_score=None)
    tournament = api(app, "POST", "/tournaments", body)["id"]
    ann, bo = (api(app, "POST", f"/tournaments/{tournament}/entries", {"name": name})["token"]
               for name in ("Ann", "Bo"))  # fmt: skip
    waiting = phones.open(f"{url}/tournaments/{tournament}/me?token={ann}")
    assert "token=" not in waiting.url
    expect(waiting.locator("#where")).to_contain_text("Round 1 has not begun yet")

    (table,) = api(app, "POST", f"/tournaments/{tournament}/rounds")["tables"]
    # Ann's page, open and waiting, goes to her seat by itself once the round is seated.
    waiting.wait_for_url(f"{url}/tables/{table['id']}/view", timeout=10_000)
    pages = [waiting, phones.open(f"{url}/tournaments/{tournament}/me?token={bo}")]
    for page in pages:
        expect(page.locator("#table")).to_be_visible()
        assert page.url == f"{url}/tables/{table['id']}/view"
        page.evaluate("window.__stayed = true")

    rng = random.Random(tournament)
    moved: set[int] = set()
    deadline = time.monotonic() + 60
    while moved != {0, 1}:  # until each phone has moved and the other has seen it
        assert time.monotonic() < deadline, f"only phones {moved} could move"
        offering = [i for i, page in enumerate(pages) if page.locator(TAPPABLE).count()]
        if not offering:
            time.sleep(0.05)  # bots moving, or news on its way
            continue
        mover = min(offering, key=lambda i: i in moved)  # one that has not moved yet first
        shown = move(pages[mover], rng)
        sees(pages[1 - mover], shown)
        moved.add(mover)
    never_reloaded(pages)
