"""A player's phone and the organiser's console in Chromium at 390x844 (issue 20, item 6):
the hand within reach without scrolling, while waiting and when it is one's turn; the title
saying whose turn it is (and the phone vibrating); the second tap of a double tap never
landing on the redrawn table; a long name never widening a page; an Oh Quay choice never
carried into the next turn; the deal sheet checking what is typed as it is typed.

On failure each open page is saved under ``tests/artifacts/`` at phone and desktop size.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from flask import Flask

from tests.factories import table_body
from tests.helpers import ADMIN_TOKEN, post_table
from tests.pages.conftest import Phones
from tests.pages.tables import ORGANISER, Table, state
from tests.pages.test_play_browser import BEFORE_ANN, expect, seats
from tests.service.tournament_play import enter, new_tournament, seat_round

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

Json = dict[str, Any]
PHONE_HEIGHT = 844


def ann_to_follow_yellow(app: Flask) -> Table:
    """Ann, Bo and Cy at a recorded deal, Ann to play (tests/pages/test_play_browser.py)."""
    client = app.test_client()
    table = post_table(client, table_body(seats=seats(3, 3)))
    for action in BEFORE_ANN:
        answer = client.post(f"/tables/{table.id}/actions", json=action, headers=ORGANISER)
        assert answer.status_code == 201, answer.get_json()
    return table


def seat_page(phones: Phones, base_url: str, table: Table, seat: int) -> Page:
    page = phones.open(f"{base_url}/tables/{table.id}/view?token={table.tokens[seat]}")
    page.locator("#table").wait_for()
    return page


def within_reach(cards: Locator) -> None:
    """Every card is on the phone's first screen, not scrolled to."""
    assert cards.count() > 0
    boxes = cards.evaluate_all("cs => cs.map(c => c.getBoundingClientRect().bottom)")
    assert max(boxes) <= PHONE_HEIGHT, boxes
    assert cards.first.evaluate("c => window.scrollY") == 0


def fits(page: Page, width: int = 390) -> None:
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, f"{page.url} is {wide} px wide on a {width} px phone"


def test_the_hand_is_within_reach_while_waiting_and_on_ones_turn(
    phones: Phones, live_app: Flask, base_url: str
) -> None:
    table = ann_to_follow_yellow(live_app)
    ann = seat_page(phones, base_url, table, 0)
    expect(ann.locator("#turn")).to_contain_text("Your turn")
    within_reach(ann.locator("#dock .moves [data-card]"))  # her cards to play, greyed or not
    bo = seat_page(phones, base_url, table, 1)
    expect(bo.locator("#turn")).to_contain_text("Waiting")
    held = state(live_app.test_client(), table, 1)["hands"][1]
    mine = bo.locator("#my-hand [data-card]")
    within_reach(mine)
    shown = mine.evaluate_all("cs => cs.map(c => c.dataset.card)")
    assert sorted(shown) == sorted(str(c) for c in held)


def test_the_title_says_your_turn_and_the_phone_vibrates(
    phones: Phones, live_app: Flask, base_url: str
) -> None:
    table = ann_to_follow_yellow(live_app)
    ann = seat_page(phones, base_url, table, 0)
    expect(ann).to_have_title("● Your turn — Card Ledger")
    client = live_app.test_client()
    ann_plays = {"type": "play", "seat": 0, "card": 1}  # a yellow: the trick is complete
    pages = [seat_page(phones, base_url, table, s) for s in (1, 2)]
    for page in pages:  # the phone records what it is asked to vibrate
        page.evaluate(
            "window.buzzed = []; navigator.vibrate = (p) => { buzzed.push(p); return true; }"
        )
        expect(page).not_to_have_title("● Your turn — Card Ledger")
    answer = client.post(f"/tables/{table.id}/actions", json=ann_plays, headers=ORGANISER)
    assert answer.status_code == 201, answer.get_json()
    (next_up,) = state(client, table)["to_act"]
    base = "The Bottle Imp · Ann, Bo, Cy · Card Ledger"
    expect(ann).to_have_title(base if next_up else "● Your turn — Card Ledger")
    if next_up:
        mine = pages[next_up - 1]
        expect(mine).to_have_title("● Your turn — Card Ledger")
        assert mine.evaluate("window.buzzed.length") == 1
        other = pages[2 - next_up]
        expect(other).to_have_title(base)
        assert other.evaluate("window.buzzed.length") == 0


#: The second tap of a double tap, landing where the first was at the very moment the table
#: is redrawn: what lay under it then, and whether the tap picked a card or sent a move.
SECOND_TAP = """([x, y]) => {
  new MutationObserver((changes, watching) => {
    if (!document.getElementById("table")) { return; }
    watching.disconnect();
    const under = document.elementFromPoint(x, y);
    const onAMove = under.closest("[data-action], [data-pick]") !== null;
    under.dispatchEvent(new MouseEvent("click", {bubbles: true, clientX: x, clientY: y}));
    document.body.dataset.secondTap = [
      onAMove ? "on-a-move" : "on-nothing",
      document.body.classList.contains("sending") ? "sent" : "not-sent",
      document.querySelectorAll("#table .picked").length ? "picked" : "not-picked",
    ].join(" ");
  }).observe(document.querySelector("main"), {childList: true});
}"""


def test_the_second_tap_of_a_double_tap_lands_on_nothing(
    phones: Phones, live_app: Flask, base_url: str
) -> None:
    """Ann taps Deal twice: the first deals, and the second, landing where the redrawn page
    now has a card to lay, picks nothing and sends nothing."""
    table = post_table(live_app.test_client(), table_body(seats=seats(3, 3)))
    ann = seat_page(phones, base_url, table, 0)
    box = ann.locator("#dock [data-action]").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    ann.evaluate(SECOND_TAP, [x, y])
    ann.mouse.click(x, y)
    expect(ann.locator("body")).to_have_attribute(
        "data-second-tap", "on-a-move not-sent not-picked"
    )
    expect(ann.locator("#table")).to_have_attribute("data-status", "in_deal")
    assert ann.locator("#table .picked").count() == 0
    version = int(str(ann.locator("#table").get_attribute("data-version")))
    assert state(live_app.test_client(), table)["version"] == version  # the deal alone


def test_a_long_name_never_widens_a_phones_page(
    phones: Phones, live_app: Flask, base_url: str
) -> None:
    client = live_app.test_client()
    long_name = "Bartholomew" + "x" * 69  # the API's longest name, without a space
    name = "The Thursday evening of the club " + "W" * 87
    tournament = new_tournament(client, name=name, table_size=3, rounds=2, max_deals=1)
    enter(client, tournament, "Ann", "Bo", long_name)
    seat_round(client, tournament)
    organiser = phones.open(f"{base_url}/console?token={ADMIN_TOKEN}")
    for path in (
        f"/console/tournaments/{tournament}",
        f"/console/tournaments/{tournament}/rounds/1/slips",
    ):
        organiser.goto(base_url + path)
        fits(organiser)
    links = organiser.locator(".slip .link").all_inner_texts()
    who = organiser.locator(".slip .who").all_inner_texts()
    player = phones.open(links[who.index(long_name)])  # the long name's own link
    player.locator("#table").wait_for()
    fits(player)
    for path in (f"/tournaments/{tournament}/standings.html", f"/tournaments/{tournament}/wall"):
        player.goto(base_url + path)
        fits(player)


def oh_quay_to_load(app: Flask) -> tuple[Table, int]:
    """Ann and Bo at Oh Quay, dealt; the seat to act, which may load."""
    client = app.test_client()
    body = table_body(game="oh-quay", seats=[{"name": "Ann"}, {"name": "Bo"}],
                      target_score=None, rules={})  # fmt: skip
    table = post_table(client, body)
    dealt = client.post(f"/tables/{table.id}/actions", json={"type": "deal"}, headers=ORGANISER)
    assert dealt.status_code == 201, dealt.get_json()
    (seat,) = state(client, table)["to_act"]
    return table, seat


def test_an_oh_quay_choice_is_not_carried_into_the_next_turn(
    phones: Phones, live_app: Flask, base_url: str
) -> None:
    """A turn loads, then launches (docs/rules/oh-quay.md, "A turn"): the load chosen on
    the page is not chosen again for the player when their next turn's load comes."""
    table, seat = oh_quay_to_load(live_app)
    client = live_app.test_client()
    page = seat_page(phones, base_url, table, seat)
    builder = page.locator('#dock .builder[data-key$="-load"]')
    builder.locator('.field[data-field="from"] [data-value=\'"own"\']').click()
    builder.locator('.field[data-field="position"] [data-value="0"]').click()
    assert builder.locator(".picked").count() == 2
    builder.locator(".confirm").click()
    expect(page.locator("#turn")).to_contain_text("launch")
    loaded = state(client, table)["version"]
    rng = random.Random("the rest of the turn")
    while (
        (now := state(client, table))["to_act"] != [seat]
        or now["version"] == loaded
        or not any(
            a == {"type": "load", "seat": seat, "from": "own", "position": 0}
            for a in now["legal_actions"]
        )
    ):  # the launch, the other player's turn: until the same load may be chosen again
        assert now["status"] == "in_deal", "the game ended first"
        move = rng.choice(now["legal_actions"])
        answer = client.post(f"/tables/{table.id}/actions", json=move, headers=ORGANISER)
        assert answer.status_code == 201, answer.get_json()
    expect(page.locator("#turn")).to_contain_text("Your turn: load cargo")
    expect(page.locator(f'#table[data-version="{now["version"]}"]')).to_be_attached()
    assert page.locator("#dock .builder .picked").count() == 0  # nothing chosen for them


def test_the_deal_sheet_checks_each_pile_as_it_is_typed(
    phones: Phones, live_app: Flask, base_url: str
) -> None:
    table = post_table(live_app.test_client(), table_body(seats=seats(3, 3)))
    organiser = phones.open(f"{base_url}/console?token={ADMIN_TOKEN}")
    organiser.goto(f"{base_url}/console/tables/{table.id}/deal")
    ann, bo = organiser.locator('input[name="hands-0"]'), organiser.locator('input[name="hands-1"]')
    said = organiser.locator('[data-typed-for="hands-0"]')
    confirm = organiser.locator("#confirm-deal")
    ann.fill("99 abc 7 7")
    expect(said).to_contain_text("“99” is not a card of this deck")
    expect(said).to_contain_text("“abc” is not a card of this deck")
    expect(said).to_contain_text("7 is typed twice")
    expect(confirm).to_be_disabled()
    ann.fill("7 8")
    bo.fill("8")
    expect(organiser.locator('[data-typed-for="hands-1"]')).to_have_text("8 is already in Ann")
    expect(said).to_have_text("")
    bo.fill(" ".join(str(c) for c in range(20, 34)))  # fourteen cards for a pile of twelve
    expect(organiser.locator('[data-typed-for="hands-1"]')).to_have_text(
        "Bo takes 12 cards, not 14"
    )
    bo.fill("9")
    expect(confirm).to_be_enabled()
    fits(organiser)
