"""A damaged stored log on real PostgreSQL (issue 12, finding 2): a process that did not
cache the table refuses writes with 409 ``log_damaged`` naming the first bad version,
reads answer with the verified prefix and say so, and nothing is appended.
(``tests/service/test_damaged_log.py`` covers the same on SQLite, and the cache.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask

from service.db import get_database
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
)

pytestmark = pytest.mark.integration


@pytest.fixture
def first(postgres_url: str) -> Iterator[Flask]:
    app = make_test_app(postgres_url)
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def restarted(postgres_url: str, first: Flask) -> Iterator[Flask]:
    app = make_test_app(postgres_url, migrate=False)
    yield app
    get_database(app).engine.dispose()


def test_a_changed_card_is_refused_on_postgresql_and_restoring_it_heals(
    first: Flask, restarted: Flask
) -> None:
    table_id = open_and_play(first.test_client(), seed="pg-damage")
    version, original = play_a_card_twice(first, table_id)
    rows = row_count(first)

    client = restarted.test_client()
    assert_writes_refused(client, table_id, version)
    assert_reads_say_damaged(client, table_id, version, "broken_chain")
    assert row_count(first) == rows

    set_data(first, table_id, version, original)
    play(client, table_id, 2, rng_seed=11)
    assert assert_reads_undamaged(client, table_id)["version"] > version


def test_the_last_row_deleted_is_log_damaged_on_postgresql(first: Flask, restarted: Flask) -> None:
    table_id = open_and_play(first.test_client(), seed="pg-tail")
    version = delete_last(first, table_id)
    rows = row_count(first)

    client = restarted.test_client()
    assert_writes_refused(client, table_id, version)
    assert_reads_say_damaged(client, table_id, version, "missing_event")
    assert row_count(first) == rows


def test_a_row_that_is_not_json_is_log_damaged_on_postgresql(
    first: Flask, restarted: Flask
) -> None:
    table_id = open_and_play(first.test_client(), seed="pg-json")
    version = make_unreadable(first, table_id)

    client = restarted.test_client()
    assert_writes_refused(client, table_id, version)
    assert_reads_say_damaged(client, table_id, version, "unreadable_event")


def test_a_row_beyond_the_head_is_log_damaged_on_postgresql(first: Flask, restarted: Flask) -> None:
    table_id = open_and_play(first.test_client(), seed="pg-extra")
    version = add_beyond_head(first, table_id)
    rows = row_count(first)

    response = restarted.test_client().post(
        f"/tables/{table_id}/actions",
        json={"type": "adjust", "seat": 0, "points": 5, "reason": "probe"},
        headers=ORGANISER,
    )
    assert assert_damaged_problem(response, table_id, version)["damaged"]["code"] == (
        "head_mismatch"
    )
    assert row_count(first) == rows
