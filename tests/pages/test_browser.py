"""The pages in a real browser (Playwright driving the system's Chromium, headless): a table
page follows the table as actions are recorded through the API; a replay steps with the
keyboard and honours its permalinks; the pages and the standings print black on white;
a table fits a phone's width."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask import Flask

from tests.pages.tables import ORGANISER, Table, act, finish, open_table, play, state

if TYPE_CHECKING:
    from playwright.sync_api import Page

Json = dict[str, Any]


def expect(target: Any) -> Any:
    """Playwright's ``expect``, imported once the ``browser`` fixture found Playwright."""
    from playwright.sync_api import expect as playwright_expect

    playwright_expect.set_options(timeout=10_000)  # a loaded CI machine is slower
    return playwright_expect(target)


def cards(page: Page, selector: str) -> list[str]:
    return [
        str(c) for c in page.locator(selector).evaluate_all("els => els.map(e => e.dataset.card)")
    ]


def test_a_table_page_follows_the_table(page: Page, live_app: Flask, base_url: str) -> None:
    client = live_app.test_client()
    table = open_table(client)
    now = play(client, table, lambda s: s["phase"] == "playing")
    (seat,) = now["to_act"]
    page.goto(f"{base_url}/tables/{table.id}/view?token={table.tokens[seat]}")
    hand = f'section[data-seat="{seat}"] .pile.hand'
    expect(page.locator(f"{hand} [data-card]")).to_have_count(len(now["hands"][seat]))
    expect(page.locator(".panel.centre .trick [data-card]")).to_have_count(0)
    expect(page.locator("#live-status")).to_contain_text("Live")

    action = state(client, table, seat)["legal_actions"][0]
    act(client, table, action)  # through the API, as the seat's phone would

    card = str(action["card"])
    expect(page.locator(f'.panel.centre .trick [data-card="{card}"]')).to_be_visible()
    expect(page.locator(f'{hand} [data-card="{card}"]')).to_have_count(0)
    expect(page.locator("#table")).to_have_attribute("data-version", str(now["version"] + 1))
    assert page.locator(f'section[data-seat="{seat}"]').get_attribute("class") == "panel seat"

    finish(client, table)
    expect(page.locator("#live-status")).to_have_text("The match is over.")
    expect(page.locator("#table")).to_have_attribute("data-status", "finished")


def test_a_replay_steps_with_the_keyboard(page: Page, live_app: Flask, base_url: str) -> None:
    client = live_app.test_client()
    table = open_table(client)
    finish(client, table)
    events = client.get(f"/tables/{table.id}/deals/1", headers=ORGANISER).get_json()["events"]
    count = len(events)
    url = f"{base_url}/tables/{table.id}/deals/1/replay"
    page.goto(url)
    step = page.locator("#step-count")
    trick = "#scene .panel.centre .trick"
    expect(step).to_contain_text(f"step 1 of {count}")
    expect(page.locator("#first")).to_be_disabled()
    expect(page.locator(".keys")).to_be_visible()  # a keyboard's keys, where there is one
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator(".keys")).to_be_hidden()  # a phone has no arrow keys to name
    page.set_viewport_size({"width": 1280, "height": 800})

    page.keyboard.press("End")
    expect(step).to_contain_text(f"step {count} of {count}")
    assert page.evaluate("location.hash") == f"#v={events[-1]['version']}"
    expect(page.locator("#last")).to_be_disabled()
    page.keyboard.press("Home")
    expect(step).to_contain_text(f"step 1 of {count}")

    first_trick = next(i for i, e in enumerate(events) if e["type"] == "TrickCompleted")
    for _ in range(first_trick):
        page.keyboard.press("ArrowRight")
    done = events[first_trick]["data"]
    expect(step).to_contain_text(f"step {first_trick + 1} of {count}")
    expect(page.locator("#step-text")).to_contain_text("Trick 1: ")
    assert cards(page, f"{trick} [data-card]") == [str(c) for c in done["cards"]]
    (winner,) = cards(page, f"{trick} .winner")
    assert done["seats"][[str(c) for c in done["cards"]].index(winner)] == done["winner"]
    assert page.evaluate("location.hash") == f"#v={events[first_trick]['version']}"

    page.keyboard.press("ArrowLeft")  # the trick's last card, as it was played
    last_play = events[first_trick - 1]
    seat, card = last_play["seat"], str(last_play["data"]["card"])
    assert cards(page, f"{trick} [data-card]")[-1] == card
    legal = sorted(str(body["card"]) for body in last_play["legal"])
    assert sorted(cards(page, f'section[data-seat="{seat}"] .hand .legal')) == legal
    assert cards(page, f'section[data-seat="{seat}"] .hand .played') == [card]

    page.get_by_role("button", name="Next step").click()
    expect(step).to_contain_text(f"step {first_trick + 1} of {count}")

    third = [e for e in events if e["type"] == "TrickCompleted"][2]
    permalink = page.context.new_page()
    permalink.goto(f"{url}#v={third['version']}")
    steps_in = f"step {events.index(third) + 1} of {count}"  # step numbers, never versions
    expect(permalink.locator("#step-count")).to_contain_text(steps_in)
    expect(permalink.locator("#step-count")).not_to_contain_text("version")
    shown = cards(permalink, f"{trick} [data-card]")
    assert shown == [str(c) for c in third["data"]["cards"]]
    expect(permalink.locator(f"#s-{third['version']}")).to_have_attribute("aria-current", "step")
    permalink.goto(f"{url}#v={events[0]['version']}")  # a changed hash moves the replay too
    expect(permalink.locator("#step-count")).to_contain_text("step 1 of")


def white(page: Page, selector: str) -> bool:
    colour = page.locator(selector).first.evaluate("e => getComputedStyle(e).backgroundColor")
    return colour in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)")


def test_pages_and_standings_print_black_on_white(
    page: Page, live_app: Flask, base_url: str
) -> None:
    client = live_app.test_client()
    body = {"name": "Print night", "game": "bottle-imp", "table_size": 4, "max_deals": 1,
            "rounds": 1, "seed": "print-night"}  # fmt: skip
    tournament = client.post("/tournaments", json=body, headers=ORGANISER).get_json()["id"]
    for name in ("Ann", "Bo", "Cy", "Di"):
        entry = {"name": name}
        response = client.post(f"/tournaments/{tournament}/entries", json=entry, headers=ORGANISER)
        assert response.status_code == 201, response.get_json()
    seated = client.post(f"/tournaments/{tournament}/rounds", headers=ORGANISER).get_json()
    (played,) = seated["tables"]

    page.goto(f"{base_url}/")
    page.locator(f'[data-tournament="{tournament}"] a', has_text="Print night").click()
    page.wait_for_url(f"**/tournaments/{tournament}/standings.html")
    page.emulate_media(media="print")
    expect(page.locator("table").first.locator("tbody tr")).to_have_count(4)  # the standings
    assert white(page, "body")
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF")

    page.goto(f"{base_url}/tables/{played['id']}/view")
    assert white(page, "body") and white(page, ".panel.centre")
    expect(page.locator("#live-status")).to_be_hidden()
    assert page.locator("h1").evaluate("e => getComputedStyle(e).color") == "rgb(0, 0, 0)"

    finish(client, Table(played["id"], [], {"game": "bottle-imp"}))
    page.goto(f"{base_url}/tables/{played['id']}/deals/1/replay")
    expect(page.locator(".controls")).to_be_hidden()
    expect(page.locator("#scene .card").first).to_be_visible()
    page.emulate_media(media="screen")
    expect(page.locator(".controls")).to_be_visible()


def test_a_table_fits_a_phone(page: Page, live_app: Flask, base_url: str) -> None:
    client = live_app.test_client()
    table = open_table(client, "bright-house")
    play(client, table, lambda s: s["tricks_played"] >= 2)
    page.set_viewport_size({"width": 360, "height": 740})
    for query in ("", f"?token={table.tokens[0]}"):
        page.goto(f"{base_url}/tables/{table.id}/view{query}")
        expect(page.locator(".panel.centre")).to_be_visible()
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], f"the page scrolls sideways on a phone: {widths}"
