"""The organiser's console through the Flask test client: who may open it, that every form
needs its CSRF token, and every action it offers, checked against what the API then
says (the console calls the commands; the API is the witness)."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.games import SPECS
from domain.games.bestia.options import DEFAULTS as BESTIA_DEFAULTS
from service.web.pages.console import qr_svg
from service.web.pages.console_forms import option_fields
from service.web.pages.session import ORGANISER_COOKIE
from tests.helpers import ADMIN_TOKEN, VARIANT_KINDS
from tests.pages.consoles import csrf_of, log_in, new_form_key, post
from tests.pages.tables import ORGANISER, Table, finish, open_table, state

Json = dict[str, Any]


@pytest.fixture
def console(client: FlaskClient) -> FlaskClient:
    """A client that opened the organiser's link once (the session's cookie)."""
    return log_in(client)


def text(response: Any) -> str:
    return html.unescape(response.get_data(as_text=True))


def refused(response: Any) -> str | None:
    found = re.search(r'class="refused"[^>]*data-code="([^"]+)"', response.get_data(as_text=True))
    return found.group(1) if found else None


def location_id(response: Any) -> str:
    assert response.status_code == 303, text(response)[:2000]
    found = re.search(r"/([0-9a-f]{32})", response.headers["Location"])
    assert found, response.headers["Location"]
    return found.group(1)


def seat_token_in(response: Any) -> str:
    found = re.search(r"view\?token=([\w-]+)", text(response))
    assert found, "no seat link on the page"
    return found.group(1)


# --- who may open it -------------------------------------------------------------------------


def test_without_the_cookie_the_console_is_401(client: FlaskClient) -> None:
    assert client.get("/console").status_code == 401
    assert client.get("/console/tables/new").status_code == 401
    assert client.post("/console/tournaments/new?game=bestia", data={}).status_code == 401


def test_a_seat_token_is_not_the_organisers(client: FlaskClient) -> None:
    table = open_table(client)
    response = client.get(f"/console?token={table.tokens[0]}")
    assert response.status_code == 403
    assert client.get("/console").status_code == 401  # and no cookie was set


def test_the_organisers_link_becomes_a_cookie_and_a_clean_address(client: FlaskClient) -> None:
    response = client.get(f"/console?token={ADMIN_TOKEN}")
    assert response.status_code == 303
    assert response.headers["Location"] == "/console"
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith(f"{ORGANISER_COOKIE}=")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert ADMIN_TOKEN not in cookie  # a session id, never the organiser's token
    page = client.get("/console")
    assert page.status_code == 200
    assert ADMIN_TOKEN not in page.get_data(as_text=True)
    assert page.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize(
    "path",
    [
        "/console/tables/new?game=bestia",
        "/console/tournaments/new?game=bestia",
    ],
)
def test_a_form_without_its_csrf_token_is_refused(console: FlaskClient, path: str) -> None:
    response = console.post(path, data={"name": "x"})
    assert response.status_code == 403
    assert "csrf" in text(response)
    wrong = console.post(path, data={"csrf": "0" * 64, "form_key": new_form_key(), "name": "x"})
    assert wrong.status_code == 403
    other_site = post(console, path, {"name": "x"}, headers={"Origin": "https://evil.example"})
    assert other_site.status_code == 403
    keyless = console.post(path, data={"csrf": csrf_of(console), "name": "x"})
    assert keyless.status_code == 400 and "one-time key" in text(keyless)


def test_every_action_needs_the_csrf_token(console: FlaskClient) -> None:
    table = open_table(console)
    tid = location_id(post(console, "/console/tournaments/new?game=bestia",
                           {"name": "T", "table_size": "3"}))  # fmt: skip
    for path in (
        f"/console/tables/{table.id}/adjust",
        f"/console/tables/{table.id}/seats/0/token",
        f"/console/tables/{table.id}/deal",
        f"/console/tournaments/{tid}/entries",
        f"/console/tournaments/{tid}/entries/0/withdraw",
        f"/console/tournaments/{tid}/rounds",
        f"/console/tournaments/{tid}/rounds/1/slips",
        f"/console/tournaments/{tid}/finish",
    ):
        assert console.post(path, data={}).status_code == 403, path
    assert state(console, table)["version"] == 1  # nothing happened


# --- the forms come from the registry --------------------------------------------------------


def test_every_game_option_is_in_the_form_with_its_default(console: FlaskClient) -> None:
    for game_id, spec in SPECS.items():
        for path in ("/console/tables/new", "/console/tournaments/new"):
            page = console.get(f"{path}?game={game_id}").get_data(as_text=True)
            for name in spec.options:
                assert f'name="opt-{name}"' in page, (game_id, name)
    fields = {f.name: f for f in option_fields(SPECS["bestia"])}
    assert set(fields) == set(BESTIA_DEFAULTS)
    for name, default in BESTIA_DEFAULTS.items():
        shown = str(default).lower() if isinstance(default, bool) else str(default)
        assert fields[name].default == shown, name
    oh_quay = {f.name: f for f in option_fields(SPECS["oh-quay"])}
    assert oh_quay["max_turns"].default == "200"
    assert oh_quay["first_player"].default == "" and oh_quay["first_player"].choices == ("0", "1")


def test_the_default_match_says_how_long_it_runs(console: FlaskClient) -> None:
    page = text(console.get("/console/tables/new?game=bottle-imp"))
    found = re.search(r"standard, 4 players: first to 200: about (\d+) deals", page)
    assert found and 1 <= int(found.group(1)) <= 40
    assert "standard, 3 players: 6 deals" in text(console.get("/console/tables/new?game=bestia"))


# --- a new table -----------------------------------------------------------------------------


def table_form(**extra: str) -> dict[str, str]:
    return {
        "variant": "standard",
        "seat-0-kind": "person",
        "seat-0-who": "Ann",
        "seat-1-kind": "person",
        "seat-1-who": "Bo",
        "seat-2-kind": "bot:random",
        "first_dealer": "1",
        **extra,
    }


def test_a_table_opened_from_the_console(console: FlaskClient) -> None:
    form = table_form(**{"opt-ante": "3", "opt-panfilo": "false", "opt-deck": "short",
                         "seed": "club-7", "max_deals": "4"})  # fmt: skip
    table_id = location_id(post(console, "/console/tables/new?game=bestia", form))
    summary = console.get(f"/tables/{table_id}").get_json()
    assert [s.get("name") or s.get("bot") for s in summary["seats"]] == ["Ann", "Bo", "random"]
    assert summary["max_deals"] == 4
    export = console.get(f"/console/tables/{table_id}/export")
    assert export.status_code == 200 and export.mimetype == "application/x-ndjson"
    opened = json.loads(export.get_data(as_text=True).splitlines()[1])
    assert opened["type"] == "TableOpened" and opened["data"]["rules"]["ante"] == 3
    assert opened["data"]["rules"]["panfilo"] is False
    assert state(console, Table(table_id, [], {}))["dealer"] == 1
    page = text(console.get(f"/console/tables/{table_id}"))
    assert f"/tables/{table_id}/view" in page and "/rules/bestia" in page


def test_a_refused_table_shows_the_rule_and_keeps_what_was_typed(console: FlaskClient) -> None:
    response = post(console, "/console/tables/new?game=bestia",
                    table_form(**{"opt-max_exchange": "9", "seed": "kept-seed"}))  # fmt: skip
    assert response.status_code == 422
    assert refused(response) == "invalid_option"
    page = text(response)
    assert "max_exchange" in page and 'value="kept-seed"' in page and 'value="Ann"' in page

    not_a_number = post(console, "/console/tables/new?game=bestia",
                        table_form(**{"opt-ante": "lots"}))  # fmt: skip
    assert not_a_number.status_code == 422
    assert 'data-error-for="ante"' in text(not_a_number)

    nameless = post(console, "/console/tables/new?game=bestia", table_form(**{"seat-0-who": ""}))
    assert nameless.status_code == 422
    assert 'data-error-for="seat-0"' in text(nameless)
    assert refused(nameless) == "validation_error"  # said above the form too

    too_few = post(console, "/console/tables/new?game=bestia",
                   table_form(**{"seat-2-kind": "empty"}))  # fmt: skip
    assert too_few.status_code == 422 and refused(too_few) is not None


# --- a table's actions -----------------------------------------------------------------------


def test_an_adjustment_with_its_reason(console: FlaskClient) -> None:
    table = open_table(console)
    done = post(console, f"/console/tables/{table.id}/adjust",
                {"seat": "2", "points": "-10", "reason": "slow play"})  # fmt: skip
    assert done.status_code == 303
    assert "-10 to Cy recorded." in text(console.get(done.headers["Location"]))
    assert state(console, table)["totals"][2] == -10
    events = console.get(f"/tables/{table.id}/events", headers=ORGANISER).get_json()["events"]
    assert events[-1]["data"]["reason"] == "slow play"

    unexplained = post(console, f"/console/tables/{table.id}/adjust",
                       {"seat": "1", "points": "5", "reason": ""})  # fmt: skip
    assert unexplained.status_code == 422 and 'data-error-for="reason"' in text(unexplained)
    assert state(console, table)["totals"][1] == 0


def test_no_ruling_is_offered_once_the_match_is_over(console: FlaskClient) -> None:
    table = open_table(console)
    running = text(console.get(f"/console/tables/{table.id}"))
    assert 'id="adjust"' in running and 'id="no-adjust"' not in running
    finish(console, table)
    over = text(console.get(f"/console/tables/{table.id}"))
    assert 'id="adjust"' not in over and 'id="no-adjust"' in over
    late = post(console, f"/console/tables/{table.id}/adjust",
                {"seat": "0", "points": "-2", "reason": "a stale form"})  # fmt: skip
    assert late.status_code == 422 and refused(late) == "match_finished"


def test_a_seat_token_issued_again(console: FlaskClient) -> None:
    table = open_table(console)
    old = table.tokens[1]
    response = post(console, f"/console/tables/{table.id}/seats/1/token", {"sure": "yes"})
    assert response.status_code == 200
    new = seat_token_in(response)
    assert "<svg" in text(response)
    headers = {"Authorization": f"Bearer {old}"}
    assert console.get(f"/tables/{table.id}/state", headers=headers).status_code == 401
    headers = {"Authorization": f"Bearer {new}"}
    assert console.get(f"/tables/{table.id}/state", headers=headers).status_code == 200

    bots = open_table(console, seats=[{"name": "Ann"}, {"bot": "random"}, {"bot": "random"}])
    refusal = post(console, f"/console/tables/{bots.id}/seats/1/token", {"sure": "yes"})
    assert refusal.status_code == 422 and refused(refusal) == "bot_seat"


# --- recording a physical deal ---------------------------------------------------------------


def deck_of(page: str) -> list[str]:
    deck = page.split('id="deck"', 1)[1]
    return re.findall(r'data-card="([^"]+)"', deck)


@pytest.mark.parametrize("kind", VARIANT_KINDS)
def test_a_physical_deal_recorded_by_its_piles(console: FlaskClient, kind: str) -> None:
    """The deck tapped into the piles in order; a pile that marks a card of another
    (Bestia's muestra, a card of the dealer's hand) takes the first card of each pile in
    turn until the rules take the deal (a refused deal records nothing)."""
    table = open_table(console, kind)
    page = text(console.get(f"/console/tables/{table.id}/deal"))
    deck = deck_of(page)
    piles = re.findall(r'data-pile="([^"]+)" data-size="(\d+)"( data-marks)?', page)
    form: dict[str, str] = {}
    rest = list(deck)
    for name, size, marks in piles:
        if not marks:
            form[name], rest = " ".join(rest[: int(size)]), rest[int(size) :]
    marking = [name for name, _, marks in piles if marks]
    tries = [{m: cards.split()[0] for m in marking} for cards in form.values()]
    before = state(console, table)["version"]
    for marked in tries if marking else [{}]:
        done = post(console, f"/console/tables/{table.id}/deal", {**form, **marked})
        if done.status_code == 303:
            break
        assert refused(done) == "invalid_deal", text(done)[:3000]
    assert done.status_code == 303, text(done)[:3000]
    after = state(console, table)
    assert after["version"] > before and after["status"] != "waiting_for_deal"
    assert "is not waiting for a deal" in text(console.get(f"/console/tables/{table.id}/deal"))


def test_an_illegal_deal_shows_the_rules_error(console: FlaskClient) -> None:
    table = open_table(console, "bottle-imp")
    deck = deck_of(text(console.get(f"/console/tables/{table.id}/deal")))
    form = {f"hands-{s}": " ".join(deck[9 * s : 9 * s + 9]) for s in range(4)}
    form["hands-3"] = " ".join([*deck[27:35], deck[0]])  # a card dealt twice
    response = post(console, f"/console/tables/{table.id}/deal", form)
    assert response.status_code == 422
    assert refused(response) == "invalid_deal"
    assert "dealt twice" in text(response)
    assert f'value="{form["hands-3"]}"' in text(response)  # what was tapped stays
    assert state(console, table)["status"] == "waiting_for_deal"


# --- a tournament ----------------------------------------------------------------------------


def tournament_form(**extra: str) -> dict[str, str]:
    return {
        "name": "Tuesday",
        "variant": "standard",
        "table_size": "4",
        "rounds": "2",
        "max_deals": "1",
        "pairing": "swiss",
        "fill_with_bots": "random",
        **extra,
    }


def test_a_tournament_evening(console: FlaskClient) -> None:
    tid = location_id(post(console, "/console/tournaments/new?game=bottle-imp", tournament_form()))
    made = console.get(f"/tournaments/{tid}").get_json()
    assert (made["table_size"], made["rounds"], made["max_deals"]) == (4, 2, 1)
    assert made["fill_with_bots"] == "random"

    registered = console.post("/players", json={"name": "Dee"}, headers=ORGANISER)
    assert registered.status_code == 201, registered.get_json()
    offered = text(console.get(f"/console/tournaments/{tid}"))
    assert '<option value="Dee"></option>' in offered  # offered by name, entered by name
    for data in ({"name": "Ann"}, {"name": "Bo"}, {"player_id": "Dee"}, {"name": "Cy"}):
        assert post(console, f"/console/tournaments/{tid}/entries", data).status_code == 303
    sure = {"sure": "yes"}
    assert post(console, f"/console/tournaments/{tid}/entries/4/withdraw", sure).status_code == 303
    entries = console.get(f"/tournaments/{tid}").get_json()["entries"]
    assert [(e["name"], e["withdrawn"]) for e in entries] == [
        ("Ann", False), ("Bo", False), ("Dee", False), ("Cy", True)]  # fmt: skip

    assert post(console, f"/console/tournaments/{tid}/rounds").status_code == 303
    page = text(console.get(f"/console/tournaments/{tid}"))
    (table_id,) = re.findall(r'class="item" data-table="([0-9a-f]{32})"', page)
    assert "Still to act:" in page and f"/tables/{table_id}/view" in page
    assert "random bot" in page

    slips = post(console, f"/console/tournaments/{tid}/rounds/1/slips")
    assert slips.status_code == 200
    names = re.findall(r'<div class="who">([^<]+)</div>', text(slips))
    assert sorted(names) == ["Ann", "Bo", "Dee"]
    assert text(slips).count("<svg") == 3
    token = re.findall(r"/me\?token=([\w-]+)", text(slips))[0]  # a person's own link
    first_link = re.search(r'<div class="link">([^<]+)</div>', text(slips))
    assert first_link and str(qr_svg(first_link.group(1))) in slips.get_data(as_text=True)
    assert console.get(f"/tables/{table_id}/state",
                       headers={"Authorization": f"Bearer {token}"}).status_code == 200  # fmt: skip
    again = post(console, f"/console/tournaments/{tid}/rounds/1/slips")
    assert re.findall(r"/me\?token=([\w-]+)", text(again))[0] == token  # the same links
    assert console.get(f"/tables/{table_id}/state",
                       headers={"Authorization": f"Bearer {token}"}).status_code == 200  # fmt: skip

    late = post(console, f"/console/tournaments/{tid}/entries", {"name": "Eve"})
    assert late.status_code == 303  # a late entry, seated from the next round
    assert console.get(f"/tournaments/{tid}").get_json()["entries"][-1]["name"] == "Eve"

    busy = post(console, f"/console/tournaments/{tid}/rounds")
    assert busy.status_code == 409 and refused(busy) == "round_in_progress"
    assert "(1)" in text(busy)

    # a round's table says where it sits, and links back to its tournament
    seat_page = text(console.get(f"/tables/{table_id}/view"))
    standings = f'href="/tournaments/{tid}/standings.html" title="standings" id="seating">Tuesday'
    assert standings in seat_page
    assert "Round 1 · table 1" in seat_page
    assert f'href="/console/tables/{table_id}"' in seat_page  # the organiser's way back
    console_table = text(console.get(f"/console/tables/{table_id}"))
    back = f'<a href="/console/tournaments/{tid}?round=1#round">Tuesday · round 1 · table 1</a>'
    assert back in console_table
    assert "print-slips" in text(console.get(f"/console/tournaments/{tid}"))

    finish(console, Table(table_id, [], {"game": "bottle-imp"}))
    page = text(console.get(f"/console/tournaments/{tid}"))
    assert 'data-status="finished"' in page
    assert "print-slips" not in page  # no slips for a round whose tables are over
    assert re.search(r"<td>1</td><td>\w+</td>", page)  # standings rows
    assert f"/tournaments/{tid}/standings?format=csv" in page

    assert console.get(f"/console/tournaments/{tid}?round=nine").status_code == 200
    assert "Round 1" in text(console.get(f"/console/tournaments/{tid}?round=1"))

    unsure = post(console, f"/console/tournaments/{tid}/finish")
    assert unsure.status_code == 422 and refused(unsure) == "validation_error"
    assert console.get(f"/tournaments/{tid}").get_json()["status"] != "finished"
    assert post(console, f"/console/tournaments/{tid}/finish", {"sure": "yes"}).status_code == 303
    assert console.get(f"/tournaments/{tid}").get_json()["status"] == "finished"
    assert "Open round" not in text(console.get(f"/console/tournaments/{tid}"))


def test_a_refused_tournament_keeps_what_was_typed(console: FlaskClient) -> None:
    response = post(console, "/console/tournaments/new?game=bottle-imp",
                    tournament_form(table_size="7", name="Kept name"))  # fmt: skip
    assert response.status_code == 422 and refused(response) is not None
    assert 'value="Kept name"' in text(response)
    nameless = post(console, "/console/tournaments/new?game=bottle-imp", tournament_form(name=""))
    assert nameless.status_code == 422 and 'data-error-for="name"' in text(nameless)


def test_the_lists(console: FlaskClient) -> None:
    table = open_table(console)
    tid = location_id(post(console, "/console/tournaments/new?game=oh-quay",
                           tournament_form(table_size="2", name="Quay night")))  # fmt: skip
    for name in ("Ann", "Bo"):
        assert (
            post(console, f"/console/tournaments/{tid}/entries", {"name": name}).status_code == 303
        )
    assert post(console, f"/console/tournaments/{tid}/rounds").status_code == 303
    page = text(console.get("/console"))
    assert f'data-table="{table.id}"' in page and f'data-tournament="{tid}"' in page
    assert "Quay night" in page
    # a tournament's table by the club's name for it; a lone table by its game
    assert "Quay night · round 1 · table 1</a>" in page
    assert "The Bottle Imp table</a>" in page and table.id[:6] not in page.split("data-table")[0]
    finished = console.get("/console?status=finished")
    assert finished.status_code == 200
    assert f'data-table="{table.id}"' not in text(finished)
    assert "No table finished." in text(finished)
    waiting = console.get("/console?status=waiting_for_deal")
    assert waiting.status_code == 200 and f'data-table="{table.id}"' in text(waiting)


def test_links_at_this_computers_own_address_are_flagged(client: FlaskClient) -> None:
    """A seat link names the address the console was opened at: 127.0.0.1 reaches a
    player's phone itself, so the slips say so; the club network's address is fine."""
    for base, flagged in (("http://127.0.0.1:8000", True), ("http://192.168.1.20:8000", False)):
        log_in(client, base)
        tid = location_id(post(client, "/console/tournaments/new?game=bottle-imp",
                               tournament_form(), base_url=base))  # fmt: skip
        for name in ("Ann", "Bo"):
            post(client, f"/console/tournaments/{tid}/entries", {"name": name}, base_url=base)
        assert post(client, f"/console/tournaments/{tid}/rounds", base_url=base).status_code == 303
        slips = post(client, f"/console/tournaments/{tid}/rounds/1/slips", base_url=base)
        assert f'<div class="link">{base}/tournaments/' in text(slips)
        assert ('id="loopback"' in text(slips)) is flagged
        table_id = client.get(f"/tournaments/{tid}").get_json()["seatings"][0]["tables"][0]["id"]
        seat = int(re.findall(r'data-seat="(\d)"', text(slips))[0])
        again = post(client, f"/console/tables/{table_id}/seats/{seat}/token", {"sure": "yes"},
                     base_url=base)  # fmt: skip
        assert ('id="loopback"' in text(again)) is flagged
