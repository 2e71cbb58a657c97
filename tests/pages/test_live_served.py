"""A seat's page never stays behind its table, against ``make run`` itself (gunicorn, and
the bots moving in its Celery workers), in Debian's Chromium at a phone's size.

The stall once seen in the README's evening under load: a phone kept showing "random bot
to act" while the bot had moved and the table waited for that very phone. Its move's
answer was slow; while it was on its way, the table's stream announced the bot's move, and
the page, busy sending, put the news off until the move was answered; the answer then
drew the table as it stood right after the move, and the news put off was forgotten (the
page polls only without a stream). Here the answer is held, as a loaded server or a slow
network holds it, until the page's own stream has announced the bot's move: the page must
then show the table as it is, not as the answer drew it.
"""

from __future__ import annotations

import contextlib
import random
import secrets
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.integration.served import MAKE_RUN, Served, free_port, server_env
from tests.pages.tapping import SETTLED

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Route

ADMIN = secrets.token_urlsafe(24)
ORGANISER = {"Authorization": f"Bearer {ADMIN}"}
Json = dict[str, Any]
#: Every ``version`` the page's own event streams announce, the highest kept in
#: ``window.__announced`` (the page's stream, observed: nothing of the page is replaced).
ANNOUNCED = """(() => {
  const Original = window.EventSource;
  window.__announced = 0;
  window.EventSource = class extends Original {
    constructor(url, options) {
      super(url, options);
      this.addEventListener("version", (event) => {
        window.__announced = Math.max(window.__announced, JSON.parse(event.data).version);
      });
    }
  };
})();"""
SHOWN = "() => Number(document.querySelector('#table').dataset.version)"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``make run`` on a SQLite file of its own, its bots moving in its own workers."""
    home = tmp_path_factory.mktemp("live-served")
    port = free_port()
    env = server_env(
        f"sqlite:///{home / 'cardledger.db'}", ADMIN, PORT=str(port), WORKERS="1",
        THREADS="4", LIVE_WORKERS="1", JOB_WORKERS="1",
        CARDLEDGER_BROKER_URL=f"sqla+sqlite:///{home / 'celery-broker.sqlite'}",
    )  # fmt: skip
    del env["CARDLEDGER_JOBS"]  # make run's own choice: its workers, never in the request
    served = Served(MAKE_RUN, env, port, home / "make-run.log")
    try:
        yield served
    finally:
        served.stop()


def call(server: Served, method: str, path: str, body: Any = None, token: str = ADMIN) -> Any:
    status, answer = server.request(method, path, body, {"Authorization": f"Bearer {token}"})
    assert status in (200, 201), (status, answer)
    return answer


def ann_to_play_before_a_bot(server: Served) -> tuple[str, str]:
    """A Bottle Imp table of Ann and two random bots, played (Ann by the API, the bots by
    themselves) until Ann is to play a card with a bot after her in the trick."""
    seats = [{"name": "Ann"}, {"bot": "random"}, {"bot": "random"}]
    body = {"game": "bottle-imp", "seats": seats, "rules": {"first_dealer": 1}}
    created = call(server, "POST", "/tables", body)
    table, ann = created["id"], created["seats"][0]["token"]
    rng = random.Random(table)
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "the bots did not hand the table to Ann"
        now = call(server, "GET", f"/tables/{table}/state", token=ann)
        assert now["status"] != "finished", "the match ended first"
        if now["to_act"] != [0]:
            time.sleep(0.05)  # the bots are moving
            continue
        trick = now.get("trick") or {}
        if now["phase"] == "playing" and len(trick.get("cards") or []) < 2:
            return table, ann
        call(server, "POST", f"/tables/{table}/actions", rng.choice(now["legal_actions"]), ann)


def test_a_move_answered_late_still_ends_on_the_table_as_it_is(
    browser: Browser, server: Served
) -> None:
    table, ann = ann_to_play_before_a_bot(server)
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    try:
        context.add_init_script(ANNOUNCED)
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{server.port}/tables/{table}/view?token={ann}")
        before = int(page.wait_for_function(SETTLED, timeout=10_000).json_value())
        page.wait_for_function("v => window.__announced >= v", arg=before, timeout=10_000)

        held: list[Route] = []
        page.route(f"**/tables/{table}/view/act", lambda route: held.append(route))
        page.locator("#table .moves [data-action]:visible").first.click()
        deadline = time.monotonic() + 10
        while not held:  # the tap's request, held by the route
            assert time.monotonic() < deadline, "the tap sent no move"
            page.wait_for_timeout(20)
        answer = held[0].fetch()  # recorded now: the bots move after it
        assert answer.status == 201, answer.text()[:300]
        # the bot's move reaches the page's stream while the move's answer is on its way
        page.wait_for_function("v => window.__announced >= v", arg=before + 2, timeout=20_000)
        held[0].fulfill(response=answer)

        head = page.evaluate("window.__announced")
        caught_up = f"() => ({SHOWN})() >= {head}"
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(caught_up, timeout=10_000)
        shown = page.evaluate(SHOWN)
        assert shown >= head > before + 1, f"the page shows {shown}; its stream announced {head}"
    finally:
        context.close()
