"""A table whose stored log was damaged behind the service's back (issue 12, finding 2).

A process that reads the log from the database (no cache: a restart, another worker)
checks the rows' hash chain, their versions and the stream's recorded head. A damaged
log takes no more writes (409 ``log_damaged`` naming the first bad version), while reads
answer with the verified prefix and say where the damage is. A log already cached at its
head is used without reading or hashing a row, and a cached log is extended by checking
only the rows recorded since.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service.commands import table_logs
from service.config import PROJECT_ROOT
from service.db import get_database
from service.tablelog import TableLog
from tests.helpers import make_test_app
from tests.service.log_damage import (
    ORGANISER,
    add_beyond_head,
    assert_damaged_problem,
    assert_reads_say_damaged,
    assert_reads_undamaged,
    assert_writes_refused,
    delete_last,
    make_unreadable,
    open_and_play,
    play,
    play_a_card_twice,
    row_count,
    set_data,
    stored,
)


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'damaged.db'}"


@pytest.fixture
def first(url: str) -> Iterator[Flask]:
    """The process that recorded the table."""
    app = make_test_app(url)
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def restarted(url: str, first: Flask) -> Iterator[Flask]:
    """A process started after the damage: nothing cached."""
    app = make_test_app(url, migrate=False)
    yield app
    get_database(app).engine.dispose()


def test_a_card_changed_in_the_database_stops_a_fresh_process_writing(
    first: Flask, restarted: Flask
) -> None:
    table_id = open_and_play(first.test_client())
    version, _ = play_a_card_twice(first, table_id)
    rows = row_count(first)

    client = restarted.test_client()
    assert_writes_refused(client, table_id, version)
    assert_reads_say_damaged(client, table_id, version, "broken_chain")
    assert row_count(first) == rows  # nothing was built on the broken link


def test_the_last_row_deleted_is_log_damaged_not_a_table_that_kept_changing(
    first: Flask, restarted: Flask
) -> None:
    table_id = open_and_play(first.test_client())
    version = delete_last(first, table_id)
    rows = row_count(first)

    client = restarted.test_client()
    assert_writes_refused(client, table_id, version)
    assert_reads_say_damaged(client, table_id, version, "missing_event")
    assert row_count(first) == rows


def test_a_row_that_is_not_json_is_log_damaged_for_writes_and_shown_before_it(
    first: Flask, restarted: Flask
) -> None:
    table_id = open_and_play(first.test_client())
    version = make_unreadable(first, table_id)
    rows = row_count(first)

    client = restarted.test_client()
    assert_writes_refused(client, table_id, version)
    assert_reads_say_damaged(client, table_id, version, "unreadable_event")
    assert row_count(first) == rows


def test_a_row_stored_beyond_the_head_refuses_writes_naming_it(
    first: Flask, restarted: Flask
) -> None:
    table_id = open_and_play(first.test_client())
    version = add_beyond_head(first, table_id)
    rows = row_count(first)

    client = restarted.test_client()
    state = client.get(f"/tables/{table_id}/state", headers=ORGANISER).get_json()
    response = client.post(
        f"/tables/{table_id}/actions", json=state["legal_actions"][0], headers=ORGANISER
    )
    problem = assert_damaged_problem(response, table_id, version)
    assert problem["damaged"]["code"] == "head_mismatch"
    assert row_count(first) == rows


def test_a_damaged_table_opening_answers_log_damaged_everywhere_never_5xx(
    first: Flask, restarted: Flask
) -> None:
    table_id = open_and_play(first.test_client(), actions=2)
    opened = stored(first, table_id)[0]
    set_data(first, table_id, 1, json.dumps({**json.loads(opened.data), "seed": "stacked"}))

    client = restarted.test_client()
    for route in ("", "/state", "/events", "/deals/1"):
        response = client.get(f"/tables/{table_id}{route}", headers=ORGANISER)
        assert_damaged_problem(response, table_id, 1)
    response = client.post(f"/tables/{table_id}/actions", json={"type": "deal"}, headers=ORGANISER)
    assert_damaged_problem(response, table_id, 1)
    assert client.get(f"/tables/{table_id}/verify", headers=ORGANISER).status_code == 200


def test_a_fresh_subprocess_refuses_to_write_on_a_damaged_log(url: str, first: Flask) -> None:
    """A real second process (like a restarted gunicorn worker) on the same database file."""
    table_id = open_and_play(first.test_client())
    version, _ = play_a_card_twice(first, table_id)
    rows = row_count(first)
    script = (
        "import json, sys\n"
        "from tests.helpers import ADMIN_TOKEN, make_test_app\n"
        "url, table = sys.argv[1], sys.argv[2]\n"
        "client = make_test_app(url, migrate=False).test_client()\n"
        "auth = {'Authorization': f'Bearer {ADMIN_TOKEN}'}\n"
        "state = client.get(f'/tables/{table}/state', headers=auth)\n"
        "act = client.post(f'/tables/{table}/actions', json=state.json['legal_actions'][0],"
        " headers=auth)\n"
        "print(json.dumps([state.status_code, state.json['damaged'], act.status_code, act.json]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, url, table_id],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    read_status, damaged, write_status, problem = json.loads(done.stdout.splitlines()[-1])
    assert (read_status, damaged["version"], damaged["code"]) == (200, version, "broken_chain")
    assert (write_status, problem["code"], problem["version"]) == (409, "log_damaged", version)
    assert row_count(first) == rows


def test_restoring_the_row_lets_the_table_take_actions_again(
    first: Flask, restarted: Flask
) -> None:
    """What the 409 tells the organiser to do works, in the process that saw the damage."""
    table_id = open_and_play(first.test_client())
    version, original = play_a_card_twice(first, table_id)
    client = restarted.test_client()
    assert_writes_refused(client, table_id, version)

    set_data(first, table_id, version, original)

    before = assert_reads_undamaged(client, table_id)["version"]
    play(client, table_id, 3, rng_seed=9)
    assert assert_reads_undamaged(client, table_id)["version"] > before
    report = client.get(f"/tables/{table_id}/verify", headers=ORGANISER).get_json()
    assert report["ok"] is True, report


# --- the cache: undamaged tables keep their fast paths ---------------------------------------


def statements_of_a_load(app: Flask, table_id: str) -> tuple[TableLog, list[str]]:
    """Load the table once, tracing every SQL statement SQLite runs for it."""
    seen: list[str] = []
    with app.app_context(), get_database().reading() as connection:
        driver: Any = connection.connection.driver_connection
        driver.set_trace_callback(seen.append)
        try:
            log = table_logs().load(connection, table_id)
        finally:
            driver.set_trace_callback(None)
    return log, seen


def test_an_undamaged_table_loaded_fresh_takes_actions_in_both_processes(
    first: Flask, restarted: Flask
) -> None:
    table_id = open_and_play(first.test_client(), actions=6)
    clients = [restarted.test_client(), first.test_client()]
    for step in range(8):
        play(clients[step % 2], table_id, 1, rng_seed=step)
    for client in clients:
        assert assert_reads_undamaged(client, table_id)["version"] == len(stored(first, table_id))


def test_a_log_cached_at_its_head_is_used_without_reading_or_hashing_a_row(
    first: Flask,
) -> None:
    table_id = open_and_play(first.test_client(), actions=6)
    cached, _ = statements_of_a_load(first, table_id)

    again, statements = statements_of_a_load(first, table_id)

    assert again is cached
    assert len(statements) == 1 and statements[0].startswith("SELECT version, head FROM streams")


def test_a_cached_log_is_extended_by_checking_only_the_rows_recorded_since(
    first: Flask, restarted: Flask
) -> None:
    table_id = open_and_play(first.test_client(), actions=6)
    cached, _ = statements_of_a_load(first, table_id)
    play(restarted.test_client(), table_id, 2, rng_seed=5)  # the other process appends

    extended, statements = statements_of_a_load(first, table_id)

    assert extended.damage is None and extended.version > cached.version
    assert extended.rows[: cached.version] == cached.rows
    reads = [s for s in statements if s.startswith("SELECT version, type")]
    assert reads and all(f"version > {cached.version}" in s for s in reads), statements


def test_a_damaged_row_among_those_recorded_since_the_cache_is_caught(
    first: Flask, restarted: Flask
) -> None:
    table_id = open_and_play(first.test_client(), actions=6)
    cached, _ = statements_of_a_load(first, table_id)
    play(restarted.test_client(), table_id, 4, rng_seed=5)
    newer = [r for r in stored(first, table_id) if r.version > cached.version]
    set_data(first, table_id, newer[1].version, json.dumps({"seat": 0, "card": "forged"}))

    client = first.test_client()
    assert_writes_refused(client, table_id, newer[1].version)
    assert_reads_say_damaged(client, table_id, newer[1].version, "broken_chain")
