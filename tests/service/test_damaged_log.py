"""A stored log damaged behind the service's back, on SQLite and PostgreSQL, seen by a
process that had the table cached (warm) and by one that had not (cold).

Whatever a process cached, a damaged log takes no more writes (409 ``log_damaged``
naming the first bad version) and its reads answer with the verified prefix and say
where the damage is; nothing is appended on top of it. Restoring the rows makes the
table writable again. An undamaged table keeps its fast paths: a log cached at its head
is used without reading a row. (The same against a real gunicorn with several worker
processes: ``tests/integration/test_damaged_log_served.py``.)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import Engine

from service.application.tables import table_logs
from service.core.signing import new_private_key
from service.storage import eventstore, guard
from service.storage.db import get_database
from service.storage.guard import Guard
from service.storage.tablelog import TableLog
from tests.helpers import make_test_app
from tests.service.log_damage import (
    ORGANISER,
    FlaskCaller,
    add_beyond_head,
    append_forged,
    assert_damaged_problem,
    assert_reads_say_damaged,
    assert_reads_undamaged,
    assert_writes_refused,
    delete_row,
    make_unreadable,
    open_and_play,
    play,
    play_a_card_twice,
    reorder,
    rewrite_from,
    row_count,
    set_data,
    stored,
    tampering,
)

BACKENDS = {"sqlite": "sqlite_url", "postgresql": "damage_postgres_url"}


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)])
def url(request: pytest.FixtureRequest) -> str:
    found: str = request.getfixturevalue(BACKENDS[request.param])
    return found


@pytest.fixture
def key() -> str:
    """The server's signing key: its processes share it."""
    return new_private_key()


@pytest.fixture
def warm(url: str, key: str) -> Iterator[Flask]:
    """The process that recorded the table, and has it cached."""
    app = make_test_app(url, signing_key=key)
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def cold(url: str, key: str, warm: Flask) -> Iterator[Flask]:
    """A process that has not read the table before the damage (a restart, another worker)."""
    app = make_test_app(url, migrate=False, signing_key=key)
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def engine(warm: Flask) -> Engine:
    """The database as an insider reaches it."""
    return get_database(warm).engine


def ruled_and_played(warm: Flask) -> str:
    """A table with a director's ruling (``Adjusted``) among its plays, cached in ``warm``."""
    caller = FlaskCaller(warm.test_client())
    table_id = open_and_play(caller, actions=6)
    ruling = {"type": "adjust", "seat": 1, "points": -10, "reason": "slow play"}
    assert caller.request("POST", f"/tables/{table_id}/actions", ruling, ORGANISER)[0] == 201
    play(caller, table_id, 6, rng_seed=4)
    return table_id


def adjusted_version(engine: Engine, table_id: str) -> int:
    return int(next(r.version for r in stored(engine, table_id) if r.type == "Adjusted"))


def edit(engine: Engine, table_id: str) -> tuple[int, str]:
    return play_a_card_twice(engine, table_id)[0], "broken_chain"


def unreadable(engine: Engine, table_id: str) -> tuple[int, str]:
    return make_unreadable(engine, table_id), "unreadable_event"


def delete_middle(engine: Engine, table_id: str) -> tuple[int, str]:
    return delete_row(engine, table_id, 5), "missing_event"


def delete_last(engine: Engine, table_id: str) -> tuple[int, str]:
    return delete_row(engine, table_id), "missing_event"


def swap(engine: Engine, table_id: str) -> tuple[int, str]:
    return reorder(engine, table_id), "broken_chain"


def beyond_head(engine: Engine, table_id: str) -> tuple[int, str]:
    return add_beyond_head(engine, table_id), "head_mismatch"


def rewritten(engine: Engine, table_id: str) -> tuple[int, str]:
    """The ruling changed and every hash after it recomputed, the head moved to match."""
    version = adjusted_version(engine, table_id)
    rewrite_from(engine, table_id, version, {"seat": 1, "points": 50, "reason": "slow play"})
    return version, "bad_signature"


def forged(engine: Engine, table_id: str) -> tuple[int, str]:
    """A ruling appended by hand, chained and the head moved on, but unsigned."""
    body = {"seat": 0, "points": 99, "reason": "forged"}
    return append_forged(engine, table_id, body), "unsigned_head"


DAMAGES: dict[str, Callable[[Engine, str], tuple[int, str]]] = {
    "edited": edit,
    "unreadable": unreadable,
    "deleted-middle": delete_middle,
    "deleted-last": delete_last,
    "reordered": swap,
    "beyond-head": beyond_head,
    "rewritten-with-recomputed-hashes": rewritten,
    "forged-append": forged,
}


def refused_everywhere(warm: Flask, cold: Flask, engine: Engine, damage: str) -> None:
    """Damage the table ``warm`` has cached; every process refuses and reports it."""
    table_id = ruled_and_played(warm)
    for app in (warm,):  # every read path of the warm process has it at its head
        assert_reads_undamaged(FlaskCaller(app.test_client()), table_id)
    version, code = DAMAGES[damage](engine, table_id)
    rows = row_count(engine)
    for app in (warm, cold):
        caller = FlaskCaller(app.test_client())
        assert_writes_refused(caller, table_id, version)
        assert_reads_say_damaged(caller, table_id, version, code)
    assert row_count(engine) == rows  # nothing was built on the damage


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_log_is_refused_by_warm_and_cold_processes(
    warm: Flask, cold: Flask, engine: Engine, damage: str
) -> None:
    refused_everywhere(warm, cold, engine, damage)


def test_a_warm_process_that_trusted_its_cache_would_accept_the_write(
    warm: Flask, cold: Flask, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mutation check: with the guard stamp ignored (the cache trusted over the database,
    as before), the test above fails: it can catch the bug it names."""
    monkeypatch.setattr(Guard, "trusts", lambda self, connection, stamp: True)
    with pytest.raises(AssertionError):
        refused_everywhere(warm, cold, engine, "edited")


def written_onto(warm: Flask, engine: Engine, damage: str) -> None:
    """Damage the table ``warm`` has cached at its head, then write there before any read:
    the write itself must find the damage (on PostgreSQL a warm process's append checks
    the stored head in its own statement, having read nothing first)."""
    table_id = ruled_and_played(warm)
    version, _ = DAMAGES[damage](engine, table_id)
    rows = row_count(engine)
    ruling = {"type": "adjust", "seat": 0, "points": 5, "reason": "first, no read"}
    caller = FlaskCaller(warm.test_client())
    status, problem = caller.request("POST", f"/tables/{table_id}/actions", ruling, ORGANISER)
    assert_damaged_problem(status, problem, table_id, version)
    assert row_count(engine) == rows  # nothing was built on the damage


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_warm_process_writing_before_any_read_builds_nothing_on_damage(
    warm: Flask, engine: Engine, damage: str
) -> None:
    written_onto(warm, engine, damage)


@pytest.mark.integration
def test_a_checked_append_that_ignored_the_guard_stamp_would_build_on_damage(
    damage_postgres_url: str, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mutation check: with the stamp and damage mark left out of the checked append's
    UPDATE (the head alone compared), the test above fails on PostgreSQL."""
    monkeypatch.setattr(
        eventstore,
        "_CHECKED_MOVE",
        f"{eventstore._MOVE_HEAD} AND head = ? AND ?::text IS NOT NULL",
    )
    app = make_test_app(damage_postgres_url, signing_key=key)
    try:
        with pytest.raises(AssertionError):
            written_onto(app, get_database(app).engine, "edited")
    finally:
        get_database(app).engine.dispose()


def test_the_database_refuses_to_change_or_delete_an_event_row(warm: Flask, engine: Engine) -> None:
    table_id = ruled_and_played(warm)
    for statement in (
        f"UPDATE events SET data = '{{}}' WHERE stream = '{table_id}' AND version = 3",
        f"DELETE FROM events WHERE stream = '{table_id}' AND version = 3",
        f"UPDATE streams SET version = 2 WHERE id = '{table_id}'",
        f"DELETE FROM streams WHERE id = '{table_id}'",
    ):
        with pytest.raises(Exception, match="cardledger:"), engine.begin() as connection:
            connection.exec_driver_sql(statement)
    assert_reads_undamaged(FlaskCaller(warm.test_client()), table_id)
    with engine.connect() as connection:
        assert guard.missing(connection) == []


def test_restoring_the_rows_makes_the_table_writable_in_every_process(
    warm: Flask, cold: Flask, engine: Engine
) -> None:
    """What the 409 tells the organiser to do works, in the processes that saw the damage,
    though the damage was marked in the database."""
    table_id = ruled_and_played(warm)
    version, original = play_a_card_twice(engine, table_id)
    for app in (warm, cold):
        assert_writes_refused(FlaskCaller(app.test_client()), table_id, version)
    with engine.connect() as connection:
        assert connection.exec_driver_sql(
            f"SELECT damage FROM streams WHERE id = '{table_id}'"
        ).scalar()  # marked: every process refuses it at once

    set_data(engine, table_id, version, original)

    for step, app in enumerate((cold, warm)):
        caller = FlaskCaller(app.test_client())
        before = assert_reads_undamaged(caller, table_id)["version"]
        play(caller, table_id, 2, rng_seed=9 + step)
        assert assert_reads_undamaged(caller, table_id)["version"] >= before + 2
    _, report = FlaskCaller(warm.test_client()).request(
        "GET", f"/tables/{table_id}/verify", None, ORGANISER
    )
    assert report["ok"] is True, report


def test_a_mark_alone_stops_every_process_until_the_rows_check_again(
    warm: Flask, cold: Flask, engine: Engine
) -> None:
    """The verifier's mark is honoured by a process whose cache and guard stamp saw
    nothing (damage the guard could not see, such as an edit of the database files)."""
    table_id = ruled_and_played(warm)
    version = 4
    problem = {"version": version, "code": "broken_chain", "detail": "found by the verifier"}
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "UPDATE streams SET damage = %s WHERE id = %s"
            if engine.dialect.name == "postgresql"
            else "UPDATE streams SET damage = ? WHERE id = ?",
            (json.dumps(problem), table_id),
        )
    # The rows are whole, so the first load that reads the mark re-checks them all and
    # clears it: the mark stands only while the damage does.
    caller = FlaskCaller(warm.test_client())
    assert assert_reads_undamaged(caller, table_id)["version"] == len(stored(engine, table_id))
    with engine.connect() as connection:
        mark = connection.exec_driver_sql(f"SELECT damage FROM streams WHERE id = '{table_id}'")
        assert mark.scalar() is None


def test_without_the_guard_nothing_is_cached_and_damage_is_still_caught(
    warm: Flask, engine: Engine
) -> None:
    """An insider who takes the guard away and leaves it off: every load reads and checks
    every row, so an edit made afterwards is caught at once; undamaged tables still play."""
    table_id = ruled_and_played(warm)
    other = open_and_play(FlaskCaller(warm.test_client()), actions=3, seed="other")
    with engine.begin() as connection:
        guard.remove(connection)
    caller = FlaskCaller(warm.test_client())
    play(caller, other, 2)  # writable: checked from the first row on
    assert_reads_undamaged(caller, table_id)
    with engine.begin() as connection:  # the guard is off: a plain UPDATE now works
        first = next(r for r in stored(engine, table_id) if r.type == "CardPlayed")
        connection.exec_driver_sql(
            f'UPDATE events SET data = \'{{"seat": 0, "card": 1}}\' '
            f"WHERE stream = '{table_id}' AND version = {first.version}"
        )
    assert_writes_refused(caller, table_id, first.version)
    with engine.begin() as connection:
        guard.install(connection)
        assert guard.missing(connection) == []


def test_a_damaged_table_opening_answers_log_damaged_everywhere_never_5xx(
    warm: Flask, cold: Flask, engine: Engine
) -> None:
    table_id = open_and_play(FlaskCaller(warm.test_client()), actions=2)
    opened = stored(engine, table_id)[0]
    set_data(engine, table_id, 1, json.dumps({**json.loads(opened.data), "seed": "stacked"}))
    for app in (warm, cold):
        caller = FlaskCaller(app.test_client())
        for route in ("", "/state", "/events", "/deals/1"):
            status, problem = caller.request("GET", f"/tables/{table_id}{route}", None, ORGANISER)
            assert_damaged_problem(status, problem, table_id, 1)
        status, problem = caller.request(
            "POST", f"/tables/{table_id}/actions", {"type": "deal"}, ORGANISER
        )
        assert_damaged_problem(status, problem, table_id, 1)
        assert caller.request("GET", f"/tables/{table_id}/verify", None, ORGANISER)[0] == 200


def test_a_damaged_tournament_refuses_writes_and_says_where(
    warm: Flask, cold: Flask, engine: Engine
) -> None:
    """Tournament streams get the same checks as tables."""
    caller = FlaskCaller(warm.test_client())
    body = {"name": "Club night", "game": "bottle-imp", "table_size": 3, "rounds": 2,
            "seed": "t"}  # fmt: skip
    status, created = caller.request("POST", "/tournaments", body, ORGANISER)
    assert status == 201, created
    tournament = created["id"]
    for name in ("Ann", "Bo", "Cy"):
        path = f"/tournaments/{tournament}/entries"
        assert caller.request("POST", path, {"name": name}, ORGANISER)[0] == 201
    entry = stored(engine, tournament)[2]
    set_data(engine, tournament, entry.version, json.dumps({**json.loads(entry.data),
                                                            "name": "Mallory"}))  # fmt: skip
    for app in (warm, cold):
        other = FlaskCaller(app.test_client())
        status, problem = other.request(
            "POST", f"/tournaments/{tournament}/entries", {"name": "Di"}, ORGANISER
        )
        assert (status, problem["code"], problem["version"]) == (409, "log_damaged", 3), problem
        status, shown = other.request("GET", f"/tournaments/{tournament}", None, ORGANISER)
        assert status == 200 and shown["damaged"]["version"] == 3, shown
        assert [e["name"] for e in shown["entries"]] == ["Ann"]


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


@pytest.fixture
def sqlite_warm(sqlite_url: str, key: str) -> Iterator[Flask]:
    app = make_test_app(sqlite_url, signing_key=key)
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def sqlite_cold(sqlite_url: str, key: str, sqlite_warm: Flask) -> Iterator[Flask]:
    app = make_test_app(sqlite_url, migrate=False, signing_key=key)
    yield app
    get_database(app).engine.dispose()


def test_a_log_cached_at_its_head_is_used_without_reading_a_row(sqlite_warm: Flask) -> None:
    table_id = open_and_play(FlaskCaller(sqlite_warm.test_client()), actions=6)
    cached, _ = statements_of_a_load(sqlite_warm, table_id)

    again, statements = statements_of_a_load(sqlite_warm, table_id)

    assert again is cached
    called = [s for s in statements if not s.startswith("--")]  # not what SQLite ran inside
    assert called == [  # the head and the guard stamp in one statement, nothing else
        "SELECT kind, version, head, damage, (SELECT schema_version FROM pragma_schema_version) "
        f"FROM streams WHERE id = '{table_id}'"
    ]


def test_a_cached_log_is_extended_by_checking_only_the_rows_recorded_since(
    sqlite_warm: Flask, sqlite_cold: Flask
) -> None:
    table_id = open_and_play(FlaskCaller(sqlite_warm.test_client()), actions=6)
    cached, _ = statements_of_a_load(sqlite_warm, table_id)
    play(FlaskCaller(sqlite_cold.test_client()), table_id, 2, rng_seed=5)  # the other appends

    extended, statements = statements_of_a_load(sqlite_warm, table_id)

    assert extended.damage is None and extended.version > cached.version
    assert extended.rows[: cached.version] == cached.rows
    reads = [s for s in statements if s.startswith("SELECT version, type")]
    assert reads and all(f"version > {cached.version}" in s for s in reads), statements


def test_a_damaged_row_among_those_recorded_since_the_cache_is_caught(
    sqlite_warm: Flask, sqlite_cold: Flask
) -> None:
    engine = get_database(sqlite_warm).engine
    table_id = open_and_play(FlaskCaller(sqlite_warm.test_client()), actions=6)
    cached, _ = statements_of_a_load(sqlite_warm, table_id)
    play(FlaskCaller(sqlite_cold.test_client()), table_id, 4, rng_seed=5)
    newer = [r for r in stored(engine, table_id) if r.version > cached.version]
    with tampering(engine) as connection:
        connection.exec_driver_sql(
            "UPDATE events SET data = ? WHERE stream = ? AND version = ?",
            (json.dumps({"seat": 0, "card": "forged"}), table_id, newer[1].version),
        )

    caller = FlaskCaller(sqlite_warm.test_client())
    assert_writes_refused(caller, table_id, newer[1].version)
    assert_reads_say_damaged(caller, table_id, newer[1].version, "broken_chain")
