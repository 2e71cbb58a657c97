"""Fixtures for the browser tests: the app on a real server, the system's Chromium, and a
screenshot of every open page under ``tests/artifacts/`` when a test fails.

A missing Chromium (or Playwright) skips the browser tests locally and fails them under
``CI=true`` (``tests/conftest.py``, ``service_missing``).
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from flask import Flask

from service.storage.db import get_database
from tests.conftest import service_missing
from tests.helpers import make_test_app
from tests.pages.browser import launch, serve
from tests.pages.tapping import TAP_QUIET_MS

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
#: The sizes a failing page is saved at: a phone's and a desk's.
SIZES: dict[str, ViewportSize] = {
    "phone": {"width": 390, "height": 844},
    "desktop": {"width": 1280, "height": 800},
}


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the test item, so fixtures can see a failure."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="module")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """An app on its own SQLite file whose pages poll every 200 ms and settle after a redraw
    in ``TAP_QUIET_MS``."""
    path = tmp_path_factory.mktemp("pages") / "cardledger.db"
    app = make_test_app(f"sqlite:///{path}", tap_quiet_ms=TAP_QUIET_MS)
    app.config["PAGES_POLL_MS"] = 200
    yield app
    get_database(app).engine.dispose()


@pytest.fixture(scope="module")
def base_url(live_app: Flask) -> Iterator[str]:
    with serve(live_app) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError as error:
        service_missing("Playwright", str(error))
    with sync_playwright() as playwright:
        try:
            chromium = launch(playwright)
        except (FileNotFoundError, Error) as error:
            service_missing("Chromium", str(error).splitlines()[0])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Generator[Page, None, None]:
    """A fresh phone-or-desktop page; page errors fail the test; screenshots on failure."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.set_default_timeout(10_000)
    opened = context.new_page()
    errors: list[str] = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    yield opened
    failed = any(
        getattr(getattr(request.node, f"report_{when}", None), "failed", False)
        for when in ("setup", "call")
    )
    if failed:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^\w.-]+", "_", request.node.nodeid)
        for i, shown in enumerate(context.pages):
            for size, viewport in SIZES.items():  # as the phone and the desk would show it
                shown.set_viewport_size(viewport)
                shown.screenshot(path=str(ARTIFACTS / f"{name}-{i}-{size}.png"), full_page=True)
    context.close()
    assert not errors, f"errors in the page's script: {errors}"


class Phones:
    """One browser context per human seat, at a phone's size; on failure every page is
    saved at phone and at desktop size."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def open(self, url: str) -> Page:
        context = self.browser.new_context(viewport=SIZES["phone"], has_touch=True)
        context.set_default_timeout(10_000)
        context.on("weberror", lambda error: self.errors.append(str(error.error)))
        self.contexts.append(context)
        page = context.new_page()
        page.goto(url)
        return page

    def save(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for c, context in enumerate(self.contexts):
            for p, page in enumerate(context.pages):
                for size, viewport in SIZES.items():
                    page.set_viewport_size(viewport)
                    path = ARTIFACTS / f"{name}-{c}-{p}-{size}.png"
                    page.screenshot(path=str(path), full_page=True)


@pytest.fixture
def phones(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Phones]:
    opened = Phones(browser)
    yield opened
    failed = any(
        getattr(getattr(request.node, f"report_{when}", None), "failed", False)
        for when in ("setup", "call")
    )
    if failed:
        opened.save(re.sub(r"[^\w.-]+", "_", request.node.nodeid))
    for context in opened.contexts:
        context.close()
    assert not opened.errors, f"errors in the page's script: {opened.errors}"
