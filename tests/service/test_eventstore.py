"""The event store's contract, one suite run against every backend (SQLite and PostgreSQL).

Each test reads as a promise the store makes: versions 1..n without gaps, an append only
after the version the writer saw, nothing written by a refused or failed transaction, data
returned exactly as given, and a hash chain anyone can recompute from the stored rows.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError

from service.storage.db import Database, init_app, run_migrations
from service.storage.eventstore import (
    GENESIS,
    EventStore,
    NewEvent,
    StoredEvent,
    StreamNotFound,
    VersionConflict,
    canonical_event,
    canonical_json,
    chain_hash,
)
from service.storage.models import events

PROJECT_ROOT = Path(__file__).resolve().parents[2]

#: Which connection fixture of ``tests/conftest.py`` serves each backend.
BACKEND_FIXTURES = {"sqlite": "sqlite_url", "postgresql": "postgres_url"}


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)])
def store_url(request: pytest.FixtureRequest) -> str:
    """A migrated database on each backend (PostgreSQL is shared: use fresh stream ids)."""
    url: str = request.getfixturevalue(BACKEND_FIXTURES[request.param])
    run_migrations(url)
    return url


@pytest.fixture
def database(store_url: str) -> Iterator[Database]:
    """The database as the app holds it (on SQLite, with its one writer)."""
    database = init_app(Flask(__name__), store_url)
    yield database
    database.engine.dispose()


def new_stream() -> str:
    return uuid.uuid4().hex


def opened(n: int = 1) -> list[NewEvent]:
    return [NewEvent("TableOpened", {"n": n})]


def played(*cards: int) -> list[NewEvent]:
    """Cards played in turn, each by its seat (the actor is hashed with the event)."""
    return [
        NewEvent("CardPlayed", {"seat": i % 4, "card": c}, actor=f"seat {i % 4}")
        for i, c in enumerate(cards)
    ]


def create(database: Database, stream: str, first: list[NewEvent]) -> list[StoredEvent]:
    with database.writing() as connection:
        return EventStore(connection).create(stream, "table", first)


def append(
    database: Database, stream: str, expected: int, new: list[NewEvent]
) -> list[StoredEvent]:
    with database.writing() as connection:
        return EventStore(connection).append(stream, expected, new)


def read(
    database: Database,
    stream: str,
    after: int = 0,
    until: int | None = None,
    limit: int | None = None,
) -> list[StoredEvent]:
    with database.reading() as connection:
        return EventStore(connection).read(stream, after, until, limit)


def head(database: Database, stream: str) -> tuple[int, str]:
    with database.reading() as connection:
        return EventStore(connection).head(stream)


def head_at(database: Database, stream: str, version: int) -> str:
    """The hash of event ``version``."""
    return read(database, stream, after=version - 1, until=version)[0].hash


def stream_of(database: Database, length: int) -> str:
    """A stream of ``length`` events, appended one per transaction like API calls."""
    stream = new_stream()
    create(database, stream, opened())
    for version in range(1, length):
        append(database, stream, version, played(version))
    return stream


class TestAppend:
    def test_a_created_stream_reads_back_equal(self, database: Database) -> None:
        stream = new_stream()
        created = create(database, stream, [*opened(), *played(7, 12)])
        assert read(database, stream) == created
        assert [(e.stream, e.type) for e in created] == [
            (stream, "TableOpened"),
            (stream, "CardPlayed"),
            (stream, "CardPlayed"),
        ]
        assert head(database, stream) == (3, created[-1].hash)

    def test_versions_run_from_one_without_gaps(self, database: Database) -> None:
        stream = stream_of(database, 5)
        append(database, stream, 5, played(1, 2, 3))  # several events in one transaction
        assert [e.version for e in read(database, stream)] == list(range(1, 9))
        assert head(database, stream)[0] == 8

    def test_append_after_the_expected_version(self, database: Database) -> None:
        stream = new_stream()
        create(database, stream, opened())
        stored = append(database, stream, 1, played(5, 6))
        assert [e.version for e in stored] == [2, 3]
        assert read(database, stream, after=1) == stored
        assert head(database, stream) == (3, stored[-1].hash)

    @pytest.mark.parametrize("expected", [0, 1, 2, 4])
    @pytest.mark.parametrize("passes_hash", [False, True], ids=["reads head", "given hash"])
    def test_a_stale_or_future_expected_version_conflicts_and_writes_nothing(
        self, database: Database, expected: int, passes_hash: bool
    ) -> None:
        """Also when the caller passes the previous hash and so skips the head query: the
        guarded UPDATE of the stream's head still refuses."""
        stream = stream_of(database, 3)
        before = read(database, stream)
        previous = before[expected - 1].hash if passes_hash and 0 < expected <= 3 else None
        # The caller catches the refusal and commits: still nothing was written.
        with database.writing() as connection, pytest.raises(VersionConflict) as conflict:
            EventStore(connection).append(stream, expected, played(9), previous_hash=previous)
        assert (conflict.value.stream, conflict.value.expected, conflict.value.current) == (
            stream,
            expected,
            3,
        )
        assert read(database, stream) == before
        assert head(database, stream) == (3, before[-1].hash)

    def test_append_with_the_head_hash_given_chains_the_same(self, database: Database) -> None:
        stream = stream_of(database, 2)
        version, previous = head(database, stream)
        with database.writing() as connection:
            given = EventStore(connection).append(stream, version, played(4), previous)
        assert given[0].hash == chain_hash(
            previous,
            canonical_event(
                stream, 3, "CardPlayed", 1, given[0].data, given[0].recorded_at, "seat 0"
            ),
        )
        assert read(database, stream, after=2) == given

    def test_lock_reads_the_head(self, database: Database) -> None:
        stream = stream_of(database, 3)
        with database.writing() as connection:
            assert EventStore(connection).lock(stream) == head(database, stream)
            with pytest.raises(StreamNotFound):
                EventStore(connection).lock(new_stream())

    def test_appending_nothing_writes_nothing(self, database: Database) -> None:
        stream = stream_of(database, 2)
        assert append(database, stream, 2, []) == []
        assert head(database, stream)[0] == 2

    def test_a_second_stream_is_independent(self, database: Database) -> None:
        first, second = new_stream(), new_stream()
        create(database, first, opened(1))
        create(database, second, opened(2))
        append(database, first, 1, played(3, 4))
        assert [e.version for e in read(database, second)] == [1]
        assert read(database, second)[0].data == {"n": 2}
        assert append(database, second, 1, played(8))[0].version == 2
        assert [e.version for e in read(database, first)] == [1, 2, 3]
        assert {e.stream for e in read(database, first)} == {first}

    def test_an_unknown_stream_has_no_head_and_no_events(self, database: Database) -> None:
        stream = new_stream()
        with pytest.raises(StreamNotFound):
            head(database, stream)
        with pytest.raises(StreamNotFound):
            append(database, stream, 0, played(1))
        assert read(database, stream) == []

    def test_a_stream_is_created_once(self, database: Database) -> None:
        stream = stream_of(database, 1)
        with pytest.raises(IntegrityError):
            create(database, stream, opened())
        assert len(read(database, stream)) == 1


class TestRead:
    @pytest.mark.parametrize(
        ("window", "versions"),
        [
            ({}, [1, 2, 3, 4, 5, 6]),
            ({"after": 2}, [3, 4, 5, 6]),
            ({"until": 4}, [1, 2, 3, 4]),
            ({"after": 1, "until": 3}, [2, 3]),
            ({"limit": 2}, [1, 2]),
            ({"after": 3, "limit": 2}, [4, 5]),
            ({"after": 2, "until": 4, "limit": 5}, [3, 4]),
            ({"after": 6}, []),
            ({"after": 3, "until": 3}, []),
        ],
    )
    def test_a_window_of_versions(
        self, database: Database, window: dict[str, int], versions: list[int]
    ) -> None:
        stream = stream_of(database, 6)
        assert [e.version for e in read(database, stream, **window)] == versions


class TestHashChain:
    def test_the_chain_recomputes_from_the_stored_rows(self, database: Database) -> None:
        stream = stream_of(database, 4)
        append(database, stream, 4, played(30, 31, 32))
        with database.reading() as connection:
            rows = connection.execute(
                select(events).where(events.c.stream == stream).order_by(events.c.version)
            ).all()
        previous = GENESIS
        for row in rows:
            data = json.loads(row.data)
            assert row.data == canonical_json(data)  # stored canonical, as hashed
            canonical = canonical_event(
                row.stream, row.version, row.type, row.schema, data, row.recorded_at, row.actor
            )
            assert row.hash == chain_hash(previous, canonical), f"version {row.version}"
            previous = row.hash
        assert len(rows) == 7
        assert {row.actor for row in rows} == {None, "seat 0", "seat 1", "seat 2"}
        assert head(database, stream) == (7, previous)

    def test_version_one_chains_from_the_empty_string(self, database: Database) -> None:
        stream = new_stream()
        first = create(database, stream, opened())[0]
        canonical = canonical_event(stream, 1, "TableOpened", 1, {"n": 1}, first.recorded_at)
        assert first.hash == chain_hash("", canonical)

    def test_the_actor_reads_back_and_is_part_of_the_hash(self, database: Database) -> None:
        stream = stream_of(database, 1)
        by_seat = append(database, stream, 1, [NewEvent("Noted", {}, actor="seat 3")])[0]
        by_nobody = append(database, stream, 2, [NewEvent("Noted", {})])[0]
        assert [e.actor for e in read(database, stream, after=1)] == ["seat 3", None]
        assert by_seat.hash == chain_hash(
            head_at(database, stream, 1),
            canonical_event(stream, 2, "Noted", 1, {}, by_seat.recorded_at, "seat 3"),
        )
        assert by_nobody.hash == chain_hash(
            by_seat.hash, canonical_event(stream, 3, "Noted", 1, {}, by_nobody.recorded_at)
        )

    def test_the_stream_id_is_part_of_the_hash(self, database: Database) -> None:
        """Two streams with the same events hash apart, so no event can be moved between them."""
        one, two = new_stream(), new_stream()
        a, b = create(database, one, opened())[0], create(database, two, opened())[0]
        assert a.hash != b.hash


#: Data that trips naive encoders: non-ASCII, control characters, deep nesting, nulls.
AWKWARD_DATA: dict[str, Any] = {
    "name": 'Ærøskøbing — 悪魔の瓶 🍾 «quoted» "and" back\\slash',
    "control": "tab\tnew\nline\x00nul",
    "nested": [[1, [2, [3, []]]], {"deep": [None, True, False]}],
    "null": None,
    "numbers": [0, -1, 2**53 + 1, 10**30, 0.5, -0.0, 1e-300],
    "empty": {"list": [], "dict": {}, "string": ""},
    "order": {"z": 1, "a": 2, "m": {"y": 3, "b": 4}},
}


class TestData:
    def test_data_round_trips_exactly(self, database: Database) -> None:
        stream = new_stream()
        created = create(database, stream, [NewEvent("TableOpened", AWKWARD_DATA, schema=3)])
        back = read(database, stream)[0]
        assert back.data == AWKWARD_DATA
        assert back == created[0]
        assert back.schema == 3
        assert json.dumps(back.data, sort_keys=True) == json.dumps(AWKWARD_DATA, sort_keys=True)

    def test_appended_data_round_trips_exactly(self, database: Database) -> None:
        stream = stream_of(database, 1)
        stored = append(database, stream, 1, [NewEvent("Noted", AWKWARD_DATA)])
        assert read(database, stream, after=1) == stored
        assert stored[0].data == AWKWARD_DATA

    def test_what_append_returns_is_what_a_reader_gets(self, database: Database) -> None:
        """Tuples become lists and integer keys strings, already in the returned events."""
        stream = new_stream()
        created = create(database, stream, [NewEvent("TableOpened", {"hands": ((1, 2), (3,))})])
        assert created[0].data == {"hands": [[1, 2], [3]]}
        assert read(database, stream) == created

    def test_text_that_is_not_unicode_is_refused_and_writes_nothing(
        self, database: Database
    ) -> None:
        """A lone surrogate (JSON ``"\\ud800"``) has no UTF-8 form, so it cannot be hashed."""
        stream = new_stream()
        with pytest.raises(ValueError):
            create(database, stream, [NewEvent("TableOpened", {"name": "\ud800"})])
        with pytest.raises(StreamNotFound):
            head(database, stream)


class TestAtomicity:
    class Boom(Exception):
        pass

    def test_a_failed_transaction_leaves_nothing(self, database: Database) -> None:
        stream = stream_of(database, 2)
        before = read(database, stream)
        with pytest.raises(self.Boom), database.writing() as connection:
            EventStore(connection).append(stream, 2, played(1, 2))
            assert EventStore(connection).head(stream)[0] == 4  # visible inside, then undone
            raise self.Boom
        assert read(database, stream) == before
        assert head(database, stream) == (2, before[-1].hash)
        assert append(database, stream, 2, played(3))[0].version == 3  # the version is free

    def test_a_failed_creation_leaves_no_stream(self, database: Database) -> None:
        stream = new_stream()
        with pytest.raises(self.Boom), database.writing() as connection:
            EventStore(connection).create(stream, "table", opened())
            raise self.Boom
        with pytest.raises(StreamNotFound):
            head(database, stream)
        assert read(database, stream) == []

    def test_the_database_refuses_a_second_event_at_a_version(self, database: Database) -> None:
        """Even SQL that bypasses the store cannot put two events at one (stream, version)."""
        stream = stream_of(database, 2)
        before = read(database, stream)
        duplicate = text(
            "INSERT INTO events (stream, version, type, schema, data, recorded_at, hash) "
            "VALUES (:stream, 2, 'Forged', 1, '{}', :at, :hash)"
        )
        with pytest.raises(IntegrityError), database.writing() as connection:
            connection.execute(
                duplicate, {"stream": stream, "at": before[1].recorded_at, "hash": "0" * 64}
            )
        assert read(database, stream) == before


#: An UPDATE or DELETE aimed at the events table, in SQLAlchemy Core or in raw SQL.
RESTORE = str(Path("service") / "application" / "records.py")
MUTATES_EVENTS = re.compile(
    r"\b(?:update|delete)\(\s*(?:\w+\.)*events\b"  # update(events) / sa.delete(models.events)
    r"|\bevents\.(?:update|delete)\("  # events.update()
    r"|\bUPDATE\s+\"?events\b"
    r"|\bDELETE\s+FROM\s+\"?events\b",
    re.IGNORECASE,
)


def test_no_code_updates_or_deletes_event_rows() -> None:
    """The log is append-only: no module of the service, workers or domain mutates it."""
    sources = [
        path
        for package in ("service", "workers", "domain")
        for path in sorted((PROJECT_ROOT / package).rglob("*.py"))
    ]
    assert PROJECT_ROOT / "service" / "storage" / "eventstore.py" in sources
    offending = [
        f"{path.relative_to(PROJECT_ROOT)}:{text[: m.start()].count(chr(10)) + 1}: {m.group()}"
        for path in sources
        for text in [path.read_text(encoding="utf-8")]
        for m in MUTATES_EVENTS.finditer(text)
    ]
    # The one exception, by design: ``cardledger restore`` puts a damaged table's rows back
    # from a signed export, lifting the database's guard inside its own transaction.
    restore = [o for o in offending if o.startswith(RESTORE) and o.endswith("delete(events")]
    assert len(restore) == 1, offending
    assert [o for o in offending if o not in restore] == []


@pytest.mark.parametrize(
    "line",
    [
        "connection.execute(update(events).values(data='{}'))",
        "sa.delete(models.events).where(x)",
        "events.update().values(hash='')",
        'text("UPDATE events SET data = :d")',
        "DELETE FROM events WHERE stream = :s",
    ],
)
def test_the_source_check_catches_a_mutation(line: str) -> None:
    """The pattern above is not vacuous: each of these would fail the check."""
    assert MUTATES_EVENTS.search(line)


@pytest.mark.parametrize("line", ["update(streams)", "insert(events)", "UPDATE streams SET"])
def test_the_source_check_allows_the_stream_head(line: str) -> None:
    assert not MUTATES_EVENTS.search(line)


_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_json_values = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200)
@given(
    stream=st.text() | _scalars,
    version=st.integers(min_value=1) | _scalars,
    kind=st.text() | _scalars,
    schema=st.integers(min_value=1, max_value=99) | _scalars,
    data=_json_values,
    at=st.text() | _scalars,
    actor=st.none() | st.text() | _scalars,
)
def test_the_hashed_text_is_the_canonical_json_of_the_event(
    stream: Any, version: Any, kind: Any, schema: Any, data: Any, at: Any, actor: Any
) -> None:
    """``canonical_event`` writes its keys around the data by hand (one serialisation per
    append); it must be exactly ``canonical_json`` of the whole event, quotes, control
    characters and non-ASCII text included, and for a damaged row's odd types too (a
    version stored as text must not hash like the number)."""
    whole = {
        "by": actor,
        "data": data,
        "recorded_at": at,
        "schema": schema,
        "stream": stream,
        "type": kind,
        "version": version,
    }
    assert canonical_event(stream, version, kind, schema, data, at, actor) == canonical_json(whole)
