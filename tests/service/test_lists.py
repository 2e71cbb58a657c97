"""The lists (``docs/api.md``, Lists and seat tokens): ``GET /tables``, ``/tournaments`` and
``/players`` page newest first with an opaque cursor, filter, and show each item as its
own route does, without a hidden card, seed or salt; and the refusals of bad paging."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.factories import table_body
from tests.helpers import assert_problem, open_table
from tests.service.tournament_play import (
    ORGANISER,
    Json,
    created,
    enter,
    new_tournament,
    play_table,
    register,
    seat_round,
)


def pages(client: FlaskClient, path: str, key: str, **query: Any) -> list[list[Json]]:
    """Every page of a list, following ``next`` to the end."""
    out: list[list[Json]] = []
    after: str | None = None
    while True:
        params = {**query, **({"after": after} if after else {})}
        page = created(client.get(path, query_string=params), 200)
        out.append(page[key])
        after = page["next"]
        if after is None:
            return out
        assert page[key], "a page with a next is never empty"


def deal(client: FlaskClient, table: str) -> None:
    created(client.post(f"/tables/{table}/actions", json={"type": "deal"}, headers=ORGANISER))


# --- tables ----------------------------------------------------------------------------------


def test_tables_page_newest_first_across_pages_with_the_cursor(client: FlaskClient) -> None:
    opened = [open_table(client).id for _ in range(7)]
    got = pages(client, "/tables", "tables", limit=3)
    assert [len(p) for p in got] == [3, 3, 1]
    assert [t["id"] for p in got for t in p] == opened[::-1]
    assert created(client.get("/tables"), 200)["next"] is None  # default 50: one page


def test_a_table_listed_is_summarised_as_its_own_route_does(client: FlaskClient) -> None:
    table = open_table(client).id
    deal(client, table)
    (item,) = created(client.get("/tables"), 200)["tables"]
    alone = created(client.get(f"/tables/{table}"), 200)
    assert alone.pop("damaged") is None
    assert item == alone
    assert item["status"] == "in_deal" and item["deal"] == 1


def test_list_items_hide_every_card_seed_and_salt_until_the_match_ends(
    client: FlaskClient,
) -> None:
    table = open_table(client, seed="secret-seed-77").id
    deal(client, table)
    response = client.get("/tables", headers=ORGANISER)  # the organiser's list is public too
    text = response.get_data(as_text=True)
    (item,) = response.get_json()["tables"]
    assert item["seed"] is None and item["salt"] is None
    assert "secret-seed-77" not in text
    assert not {"hands", "devil_trick", "legal_actions"} & item.keys()
    play_table(client, table, random.Random(7))
    (ended,) = created(client.get("/tables"), 200)["tables"]
    assert ended["status"] == "finished" and ended["seed"] == "secret-seed-77"
    assert ended["salt"]
    alone = created(client.get(f"/tables/{table}"), 200)
    alone.pop("damaged")
    assert ended == alone


def test_tables_filter_by_status(client: FlaskClient) -> None:
    waiting = open_table(client).id
    dealt = open_table(client).id
    deal(client, dealt)
    ended = open_table(client).id
    play_table(client, ended, random.Random(1))
    for status, table in (("waiting_for_deal", waiting), ("in_deal", dealt), ("finished", ended)):
        listed = created(client.get("/tables", query_string={"status": status}), 200)["tables"]
        assert [t["id"] for t in listed] == [table], status


def test_tables_filter_by_tournament_and_page_within_it(client: FlaskClient) -> None:
    open_table(client)  # not in the tournament
    tournament = new_tournament(client, fill_with_bots="random", table_size=4, rounds=1)
    enter(client, tournament, *(f"Guest {i}" for i in range(9)))  # three tables, two bots
    seated = seat_round(client, tournament)
    ids = {t["id"] for t in seated["tables"]}
    got = pages(client, "/tables", "tables", tournament=tournament, limit=2)
    assert [len(p) for p in got] == [2, 1]
    assert {t["id"] for p in got for t in p} == ids
    other = "0" * 32
    assert created(client.get(f"/tables?tournament={other}"), 200) == {"tables": [], "next": None}


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        "limit=101",
        "limit=ten",
        "status=playing",
        "tournament=nope",
        "after=%21%21not-a-cursor",
        "after=bm90IGpzb24",  # too short to be one
        "after=AAAAAAAAAAAAAAAAAAAAAA%3D%3D",  # padded
        "after=AAAAAAAAAAAAAAAAAAAAA%2B",  # not URL-safe base64
        "colour=red",
    ],
)
def test_bad_paging_or_filters_are_validation_errors(client: FlaskClient, query: str) -> None:
    body = assert_problem(client.get(f"/tables?{query}"), 422, "validation_error")
    field = query.split("=")[0]
    assert field in body["errors"], body


def test_a_cursor_naming_nothing_here_is_not_found(client: FlaskClient) -> None:
    open_table(client)
    body = assert_problem(client.get("/tables?after=AAAAAAAAAAAAAAAAAAAAAA"), 404, "unknown_cursor")
    assert "AAAAAAAAAAAAAAAAAAAAAA" in body["detail"]
    register(client, "Ann")
    cursor = created(client.get("/players?limit=1"), 200)["next"]
    assert cursor is None  # one player: no next page
    register(client, "Bo")
    cursor = created(client.get("/players?limit=1"), 200)["next"]
    assert_problem(client.get(f"/tables?after={cursor}"), 404, "unknown_cursor")  # not a table


def test_a_cursor_keeps_its_place_when_its_table_leaves_the_filter(client: FlaskClient) -> None:
    """Paging waiting tables while the one at the cursor is dealt: the next page still
    starts right after it."""
    tables = [open_table(client).id for _ in range(4)]
    first = created(client.get("/tables?status=waiting_for_deal&limit=2"), 200)
    assert [t["id"] for t in first["tables"]] == tables[:1:-1]
    deal(client, tables[2])  # the cursor's table is no longer waiting
    rest = created(
        client.get("/tables", query_string={"status": "waiting_for_deal", "after": first["next"]}),
        200,
    )
    assert [t["id"] for t in rest["tables"]] == tables[1::-1] and rest["next"] is None


def test_list_routes_do_not_take_over_opening_or_importing(client: FlaskClient) -> None:
    assert client.post("/tables", json=table_body(), headers=ORGANISER).status_code == 201
    assert_problem(
        client.post("/tables/import", data="", headers=ORGANISER), 422, "import_rejected"
    )
    response = client.delete("/tables")
    assert_problem(response, 405, "method_not_allowed")
    assert {"GET", "POST"} <= set(response.headers["Allow"].split(", "))


# --- tournaments and players -----------------------------------------------------------------


def test_tournaments_page_newest_first_with_their_settings(client: FlaskClient) -> None:
    made = [new_tournament(client, seed=f"t-{i}") for i in range(5)]
    enter(client, made[0], "Ann", "Bo")
    got = pages(client, "/tournaments", "tournaments", limit=2)
    assert [len(p) for p in got] == [2, 2, 1]
    items = [t for p in got for t in p]
    assert [t["id"] for t in items] == made[::-1]
    oldest = items[-1]
    full = created(client.get(f"/tournaments/{made[0]}"), 200)
    assert oldest["entry_count"] == 2 == len(full.pop("entries"))
    full.pop("seatings")
    assert full.pop("damaged") is None  # a list folds nothing: no stream is read
    assert {k: v for k, v in oldest.items() if k != "entry_count"} == full
    assert all(t["seed"] is None and t["salt"] is None for t in items)


def test_players_page_newest_first_as_each_player_reads(client: FlaskClient) -> None:
    ids = [register(client, f"Member {i}") for i in range(4)]
    got = pages(client, "/players", "players", limit=3)
    assert [len(p) for p in got] == [3, 1]
    items = [p for page in got for p in page]
    assert [p["id"] for p in items] == ids[::-1]
    assert items == [created(client.get(f"/players/{i}"), 200) for i in ids[::-1]]
    assert_problem(client.get("/players?limit=0"), 422, "validation_error")
    assert_problem(client.get("/tournaments?after=x"), 422, "validation_error")


def test_empty_lists(client: FlaskClient) -> None:
    for path, key in (
        ("/tables", "tables"),
        ("/tournaments", "tournaments"),
        ("/players", "players"),
    ):
        assert created(client.get(path), 200) == {key: [], "next": None}


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(count=st.integers(min_value=0, max_value=9), limit=st.integers(min_value=1, max_value=10))
def test_paging_returns_every_player_once_in_order(
    client: FlaskClient, count: int, limit: int
) -> None:
    """Whatever the page size, following ``next`` lists everyone once, newest first, and
    items registered while paging never disturb the pages already given."""
    before = [p for page in pages(client, "/players", "players") for p in page]
    new = [register(client, f"P {count}-{limit}-{i}") for i in range(count)]
    first = created(client.get("/players", query_string={"limit": limit}), 200)
    late = register(client, f"Late {count}-{limit}")  # newer than the cursor: not after it
    rest = first["next"] and pages(client, "/players", "players", limit=limit, after=first["next"])
    listed = first["players"] + [p for page in (rest or []) for p in page]
    assert [p["id"] for p in listed] == new[::-1] + [p["id"] for p in before]
    assert late not in {p["id"] for p in listed}


@pytest.mark.integration
def test_the_lists_on_postgresql(pg_app: Flask) -> None:
    client = pg_app.test_client()
    tables = [open_table(client).id for _ in range(3)]
    deal(client, tables[0])
    # the schema is shared by this session's PostgreSQL tests: ours are the newest rows
    got = pages(client, "/tables", "tables", limit=2, status="waiting_for_deal")
    listed = [t["id"] for p in got for t in p]
    assert listed[:2] == tables[:0:-1]
    assert [i for i in listed if i in tables] == tables[:0:-1]
    tournament = new_tournament(client)
    enter(client, tournament, "Ann", "Bo")
    created(client.delete(f"/tournaments/{tournament}/entries/2", headers=ORGANISER), 200)
    item = created(client.get("/tournaments"), 200)["tournaments"][0]
    assert (item["id"], item["entry_count"]) == (tournament, 1)
    player = register(client, "Cy")
    assert created(client.get("/players"), 200)["players"][0]["id"] == player
