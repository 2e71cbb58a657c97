"""The club evening of issue 20 ("Done when"), as five people and their organiser live it:
a Swiss of Bottle Imp (tables of three, one deal a match, three rounds) on a real ``make
run`` (``cardledger serve``, gunicorn and the jobs' workers on a SQLite file and broker of
its own, so bots really move by themselves), the organiser's console in one browser
context at a desk's size, and each person on a phone of their own (390x844) that opens
only the personal link printed on their slip.

- Five people at tables of three: two tables a round, one of three people and one of two
  people and a bot (the bots spread, nobody alone among bots), no byes.
- Round 1 is played by tapping; in its middle the organiser prints the slips again: the
  same links, and every phone is still logged in (its next tap plays, its page says
  "you").
- After every move, the other phones at that table show it without reloading: each page
  follows its table's event stream, and a mark left in it shows it was never reloaded.
- Round 2: one person leaves; the organiser hands their seat to a bot from the table's
  console (asked first); the phones say so, the bot plays the seat and the table finishes.
  The organiser withdraws that person (asked first) and undoes the withdrawal: seated again
  in round 3, where their personal link opens their new seat.
- Round 3 is played to the end: the standings say the tournament is final, five ranked.

The phones go on from round to round by their own pages ("On to your next table", then
the personal page opens the new seat once the round is seated), never by the test.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from tests.integration.test_embedded_jobs import EmbeddedServer
from tests.pages.conftest import SIZES, Phones
from tests.pages.tapping import TAP_QUIET_MS, TAPPABLE, tap

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

NAMES = ("Ann", "Bo", "Cy", "Dee", "Eve")
TABLE_PAGE = re.compile(r"/tables/([0-9a-f-]+)/view$")
#: Marks every table page as seen now (the mark ``tapping.SETTLED`` times its quiet moment
#: from), so a page swapped while the others were being tapped is ready sooner.
LOOK = """() => {
  const table = document.querySelector('#table');
  if (table) { table.seenAt = table.seenAt || performance.now(); }
}"""


@dataclass
class Person:
    name: str
    page: Page
    link: str
    entry: int
    table: str = ""
    seat: int = -1
    left: bool = False
    moves: int = 0  # moves of this round's seat that the others' phones were seen to show
    streams: list[tuple[str, int, str]] = field(default_factory=list)


def phone(phones: Phones, name: str, link: str, entry: int) -> Person:
    """A phone of the person's own (as ``Phones.open``), which notes every answer it gets
    from the server, then opens the person's link."""
    context = phones.browser.new_context(viewport=SIZES["phone"], has_touch=True)
    context.set_default_timeout(10_000)
    context.on("weberror", lambda error: phones.errors.append(str(error.error)))
    phones.contexts.append(context)
    person = Person(name, context.new_page(), link, entry)
    person.page.on("response", lambda r: person.streams.append(
        (r.url, r.status, r.headers.get("content-type", ""))))  # fmt: skip
    person.page.goto(link)
    return person


def expect(target: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(target)


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    """``make run`` on a SQLite file and broker of its own (one worker for the live tables)."""
    started = EmbeddedServer(
        tmp_path_factory.mktemp("club-swiss"),
        LIVE_WORKERS="1",
        CARDLEDGER_TAP_QUIET_MS=str(TAP_QUIET_MS),
    )
    try:
        yield started
    finally:
        started.close()


def api(server: EmbeddedServer, path: str) -> Any:
    status, found = server.request("GET", path)
    assert status == 200, (path, found)
    return found


def version(page: Page) -> int:
    return int(page.locator("#table").get_attribute("data-version") or 0)


def sees(page: Page, at_least: int) -> None:
    """Wait until ``page`` shows its table at ``at_least`` or later, by itself."""
    page.wait_for_function(
        "v => Number(document.querySelector('#table')?.dataset.version) >= v",
        arg=at_least,
        timeout=15_000,
    )


def seated(person: Person, seating: dict[str, Any]) -> None:
    """Wait until the person's phone shows their seat (their own page sent it there),
    check it is the seat the round gives them, and mark the page to catch a reload."""
    page = person.page
    page.wait_for_url(TABLE_PAGE, timeout=30_000)
    found = TABLE_PAGE.search(page.url)
    assert found, page.url
    (table, seat), *_ = [
        (t["id"], s["seat"]) for t in seating["tables"] for s in t["seats"]
        if s["entry"] == person.entry
    ]  # fmt: skip
    assert found.group(1) == table, (person.name, page.url, seating)
    person.table, person.seat, person.moves = table, seat, 0
    expect(page.locator("#table")).to_contain_text(f"You are {person.name}:", timeout=15_000)
    expect(page.locator("#table .totals li.me")).to_contain_text(person.name)
    page.evaluate("window.__stayed = true")


def never_reloaded(people: list[Person]) -> None:
    for person in people:
        assert person.page.evaluate("window.__stayed === true"), f"{person.name}'s page reloaded"


def followed_by_stream(person: Person) -> None:
    """The phone's page opened its table's event stream (and was answered with one)."""
    wanted = f"/tables/{person.table}/watch"
    opened = [(s, kind) for url, s, kind in person.streams if url.endswith(wanted)]
    assert any(s == 200 and kind.startswith("text/event-stream") for s, kind in opened), (
        person.name, person.streams)  # fmt: skip


def play_round(
    people: list[Person],
    rng: random.Random,
    moment: Callable[[], None] | None = None,
    minutes: float = 8,
) -> None:
    """Tap on every present person's phone until every phone of the round shows its table
    finished; after each move, the other phones at the same table show it by themselves.
    ``moment()`` is called between passes."""
    deadline = time.monotonic() + minutes * 60
    while not all(p.page.locator('#table[data-status="finished"]').count() for p in people):
        if time.monotonic() > deadline:
            seen = [(p.name, p.page.locator("#turn").inner_text(),
                     p.page.locator("#act-error").inner_text()) for p in people]  # fmt: skip
            raise AssertionError(f"the round did not end by tapping: {seen}")
        for person in people:
            person.page.evaluate(LOOK)
        tapped = False
        for person in people:
            page = person.page
            if person.left or not page.locator(TAPPABLE).count():
                continue
            before = version(page)
            if not tap(page, rng):
                continue
            tapped = True
            after = version(page)
            if after > before:  # a move (or news under the tap): the others show it too
                for other in people:
                    if other is not person and other.table == person.table:
                        sees(other.page, after)
                person.moves += 1
        if moment:
            moment()
        if not tapped:
            time.sleep(0.1)  # bots moving (through the worker), or news on its way
    for person in people:  # a whole deal: a discard, a pass and eleven tricks at least
        assert person.left or person.moves >= 13, (person.name, person.moves)


def moves_by(server: EmbeddedServer, table: str) -> list[tuple[int, str, Any]]:
    """(version, by, seat) of each recorded event of the table, from its export."""
    status, export = server.request("GET", f"/tables/{table}/export")
    assert status == 200, export
    lines = [json.loads(line) for line in export.splitlines() if line.strip()]
    return [(line["version"], line["by"], (line.get("data") or {}).get("seat"))
            for line in lines if "by" in line]  # fmt: skip


def shape(seating: dict[str, Any]) -> list[tuple[int, int]]:
    """(people, bots) at each table of a round, largest first."""
    counts = [
        (sum(1 for s in t["seats"] if not s["bot"]), sum(1 for s in t["seats"] if s["bot"]))
        for t in seating["tables"]
    ]
    return sorted(counts, reverse=True)


def print_slips(org: Page, round_number: int) -> dict[str, str]:
    """From the tournament's console page: its round's slips, name -> printed link."""
    org.locator("#print-slips").click()
    org.get_by_role("heading", name=re.compile(f"Seat slips: .*, round {round_number}")).wait_for()
    return slips_shown(org)


def slips_shown(org: Page) -> dict[str, str]:
    return {
        slip.locator(".who").inner_text().strip(): slip.locator(".link").inner_text().strip()
        for slip in org.locator(".slip").all()
    }


def open_round(org: Page, number: int) -> None:
    org.locator("#open-round").click()
    expect(org.locator("#round")).to_contain_text(f"Round {number}", timeout=30_000)


def on_to_next_table(person: Person, round_number: int) -> None:
    """The finished seat's own link on; the personal page says the next round is to come."""
    person.page.locator("#next-table").click()
    expect(person.page.locator("#where")).to_contain_text(f"Round {round_number + 1}")


@pytest.mark.timeout(1800)
def test_a_swiss_of_five_over_three_rounds_from_personal_links_only(
    browser: Browser, phones: Phones, server: EmbeddedServer
) -> None:
    url = f"http://127.0.0.1:{server.served.port}"
    rng = random.Random("club swiss")

    # The organiser's console, at a desk.
    desk = browser.new_context(viewport=SIZES["desktop"])
    desk.set_default_timeout(15_000)
    desk.on("weberror", lambda error: phones.errors.append(str(error.error)))
    phones.contexts.append(desk)  # saved on failure, closed after
    org = desk.new_page()
    org.goto(f"{url}/console?token={server.admin}")
    assert "token=" not in org.url, org.url

    # A Swiss of Bottle Imp: tables of three, three rounds of one deal, bots fill in.
    org.get_by_role("link", name="New tournament").click()
    org.locator('[data-game="bottle-imp"]').click()
    org.get_by_label("Name").fill("Thursday Swiss")
    org.locator('select[name="table_size"]').select_option("3")
    org.locator('input[name="rounds"]').fill("3")
    org.locator('select[name="pairing"]').select_option("swiss")
    org.locator('input[name="max_deals"]').fill("1")
    org.locator('input[name="seed"]').fill("club swiss")
    expect(org.locator('input[name="fill_with_bots"]')).to_be_checked()
    org.get_by_role("button", name="Create the tournament").click()
    org.wait_for_url(re.compile(r"/console/tournaments/[0-9a-f-]+"))
    tournament_page = org.url.split("?")[0]
    tournament = tournament_page.rsplit("/", 1)[1]

    for name in NAMES:
        org.locator('#enter input[name="name"]').fill(name)
        org.locator("#enter button[type=submit]").click()
        expect(org.locator("#entries")).to_contain_text(name)
    assert org.locator("#entries li[data-entry]").count() == 5

    # Round 1: two tables (three people; two people and a bot), no byes.
    open_round(org, 1)
    first = api(server, f"/tournaments/{tournament}/rounds/1")
    assert shape(first) == [(3, 0), (2, 1)], first
    assert not first.get("byes"), first
    cards = org.locator("#round-tables .item")
    expect(cards).to_have_count(2)
    shown = sorted((c.locator("ol.seats li").count(), c.locator("ol.seats li.bot").count())
                   for c in cards.all())  # fmt: skip
    assert shown == [(3, 0), (3, 1)], shown
    expect(org.get_by_text("Byes:")).to_have_count(0)

    links = print_slips(org, 1)
    assert sorted(links) == sorted(NAMES), links
    entries = {
        s.locator(".who").inner_text().strip(): int(s.get_attribute("data-entry") or -1)
        for s in org.locator(".slip").all()
    }

    # Each person opens their slip's link on a phone of their own: their seat.
    people: list[Person] = []
    for name in NAMES:
        assert links[name].startswith(f"{url}/tournaments/{tournament}/me?token="), links[name]
        people.append(phone(phones, name, links[name], entries[name]))
    for person in people:
        assert "token=" not in person.page.url, person.page.url
        seated(person, first)
    for person in people:
        followed_by_stream(person)

    # Round 1, reprinted in its middle (both tables past their passes, into the tricks).
    reprint: dict[str, int] = {}

    def reprint_in_the_middle() -> None:
        if reprint:
            return
        states = {t["id"]: api(server, f"/tables/{t['id']}/state") for t in first["tables"]}
        if not all(s["status"] == "in_deal" and s["phase"] == "playing" for s in states.values()):
            return
        reprint.update({table: s["version"] for table, s in states.items()})
        org.get_by_role("link", name="Back to the tournament").click()
        again = print_slips(org, 1)
        assert again == links  # the same links: nobody's is re-issued
        org.reload()  # the slips page read again
        assert slips_shown(org) == links
        for person in people:  # every phone's own cookie still opens its seat
            me = person.page.request.get(
                f"{url}/tournaments/{tournament}/me", headers={"Accept": "application/json"}
            )
            assert me.status == 200, (person.name, me.text())
            assert (me.json()["name"], me.json()["status"]) == (person.name, "playing")

    play_round(people, rng, reprint_in_the_middle)
    assert reprint, "both tables of round 1 never stood in their tricks together"
    for person in people:  # each phone played on after the reprint, and still says "you"
        played = [v for v, by, _ in moves_by(server, person.table)
                  if by == f"seat {person.seat}" and v > reprint[person.table]]  # fmt: skip
        assert played, f"{person.name}'s phone played no move after the reprint"
        expect(person.page.locator("#table")).to_contain_text(f"You are {person.name}:")
    never_reloaded(people)
    done = api(server, f"/tournaments/{tournament}/rounds/1")["tables"]
    assert [t["status"] for t in done] == ["finished"] * 2, done

    # On to round 2: each phone goes to its personal page, which opens the next seat.
    for person in people:
        on_to_next_table(person, 1)
    org.goto(tournament_page)
    open_round(org, 2)
    second = api(server, f"/tournaments/{tournament}/rounds/2")
    assert shape(second) == [(3, 0), (2, 1)], second
    for person in people:
        seated(person, second)
        followed_by_stream(person)

    # Round 2: someone at the table of three leaves once its tricks have begun.
    full = next(t for t in second["tables"] if not any(s["bot"] for s in t["seats"]))
    leaver = next(p for p in people if p.table == full["id"])
    taken_at: list[int] = []

    def someone_leaves() -> None:
        if taken_at or api(server, f"/tables/{full['id']}/state")["phase"] != "playing":
            return
        org.goto(tournament_page)
        item = org.locator(f'#round-tables .item[data-table="{full["id"]}"]')
        item.get_by_role("link", name="console").click()
        seat = org.locator(f'li[data-seat="{leaver.seat}"]')
        seat.locator("summary", has_text=f"Hand {leaver.name}'s seat to a bot").click()
        form = seat.locator("details.hand-to-bot form")
        form.locator('select[name="bot"]').select_option("heuristic")
        form.locator('input[name="reason"]').fill("left early")
        assert not form.evaluate("f => f.checkValidity()")  # asked first: not sent unticked
        form.get_by_label(f"yes, a bot plays {leaver.name}'s seat").check()
        taken_at.append(api(server, f"/tables/{full['id']}/state")["version"])
        form.get_by_role("button", name="Hand the seat to the bot").click()
        expect(org.locator(f'li[data-seat="{leaver.seat}"] p.taken-over')).to_have_text(
            f"{leaver.name}'s seat is played by the heuristic bot: left early"
        )
        leaver.left = True
        # The leaver's phone says so by itself and offers no move; the others say why.
        expect(leaver.page.locator("#table")).to_contain_text(
            "The organiser handed your seat to the heuristic bot (left early): it plays for "
            "you until they hand it back", timeout=15_000)  # fmt: skip
        expect(leaver.page.locator(TAPPABLE)).to_have_count(0)
        for other in people:
            if other is not leaver and other.table == leaver.table:
                expect(other.page.locator("#table")).to_contain_text(
                    f"{leaver.name}'s seat is played by the heuristic bot: left early",
                    timeout=15_000)  # fmt: skip

        # To keep them out of the next rounds the organiser withdraws them (asked first)...
        org.goto(tournament_page)
        entry = org.locator(f'#entries li[data-entry="{leaver.entry}"]')
        withdraw = entry.locator("form.withdraw")
        assert not withdraw.evaluate("f => f.checkValidity()")
        withdraw.get_by_label(f"yes, {leaver.name} plays no more").check()
        withdraw.get_by_role("button", name="Withdraw").click()
        expect(org.locator("p.flash")).to_contain_text(f"{leaver.name} withdrawn.")
        expect(entry.locator(".tag", has_text="withdrawn")).to_have_count(1)
        withdrawn = api(server, f"/tournaments/{tournament}")["entries"]
        assert [e["withdrawn"] for e in withdrawn if e["name"] == leaver.name] == [True]
        # ... and, as they come back after all, undoes it.
        entry.get_by_role("button", name=re.compile("Undo the withdrawal")).click()
        expect(org.locator("p.flash")).to_contain_text(
            f"{leaver.name} is back: seated from the next round."
        )
        expect(entry.locator(".tag", has_text="withdrawn")).to_have_count(0)
        expect(entry.locator("form.withdraw")).to_have_count(1)
        back = api(server, f"/tournaments/{tournament}")["entries"]
        assert [e["withdrawn"] for e in back] == [False] * 5, back

    play_round(people, rng, someone_leaves)
    assert taken_at, "the table of three never reached its tricks"
    assert leaver.moves >= 2, leaver.moves  # a discard and a pass before leaving
    never_reloaded(people)
    # The bot played the seat from the handover on; its person never moved again.
    after = [(by, seat) for v, by, seat in moves_by(server, full["id"]) if v > taken_at[0]]
    assert ("organiser (console)", leaver.seat) in after, after
    assert (f"bot heuristic seat {leaver.seat}", leaver.seat) in after, after
    assert f"seat {leaver.seat}" not in {by for by, _ in after}, after
    assert api(server, f"/tables/{full['id']}")["status"] == "finished"
    expect(leaver.page.locator("#table")).to_contain_text(
        "The organiser handed your seat to the heuristic bot (left early)"
    )

    # Round 3: everyone seated again, the one who came back too.
    for person in people:
        if person is not leaver:
            on_to_next_table(person, 2)
    org.goto(tournament_page)
    open_round(org, 3)
    third = api(server, f"/tournaments/{tournament}/rounds/3")
    assert shape(third) == [(3, 0), (2, 1)], third
    assert leaver.entry in {s["entry"] for t in third["tables"] for s in t["seats"]}, third
    assert print_slips(org, 3) == links  # the same links, round after round
    leaver.left = False
    leaver.page.goto(links[leaver.name])  # back at the club: their slip's link again
    for person in people:
        seated(person, third)
        followed_by_stream(person)

    play_round(people, rng)
    never_reloaded(people)

    # The tournament finished by itself: five ranked on its standings page.
    org.goto(tournament_page)
    expect(org.locator("#tournament-status")).to_have_text("finished")
    org.get_by_role("link", name="standings", exact=True).first.click()
    org.wait_for_url(f"{url}/tournaments/{tournament}/standings.html")
    expect(org.locator("main p.meta").first).to_contain_text("after 3 of 3 rounds · final")
    rows = org.locator("main > .scroll > table:not(.cross) tbody tr")
    expect(rows).to_have_count(5)
    ranked = {r.locator("td.player").inner_text().strip(): r.locator("td.rank").inner_text()
              for r in rows.all()}  # fmt: skip
    assert sorted(ranked) == sorted(NAMES), ranked
    assert all(rank.strip().isdigit() for rank in ranked.values()), ranked
    standings = api(server, f"/tournaments/{tournament}/standings")
    assert standings["rounds_played"] == 3
    assert sorted(row["tables"] for row in standings["rows"]) == [3] * 5, standings
    assert api(server, f"/tournaments/{tournament}")["status"] == "finished"
