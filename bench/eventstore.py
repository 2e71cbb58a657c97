"""Event-store speed: appends and replays on SQLite and PostgreSQL, ours beside eventsourcing's.

*Appends*: N streams x M events, one event per transaction (like one API call), streams
taken round-robin. Ours is ``EventStore.append`` (``create`` for version 1) inside
``Database.writing()`` of a ``Database`` built by ``service.storage.db.init_app``, as the app builds
it (with any writer lock it adds): expected-version check, hash chain, stream head, row.
Theirs is the ``eventsourcing`` library's ``ApplicationRecorder.insert_events`` (what its
``Application`` writes through) with one ``StoredEvent`` whose state is the same JSON.

*Replays*: read every event of a stream of ``REPLAY_LENGTH`` events and decode its JSON.
Ours is ``EventStore.read`` inside ``Database.reading()``; theirs ``select_events`` then
``json.loads`` of each state.

Fairness: the same payload (same JSON, same byte size) and the same database for both. On
SQLite both files are WAL with ``synchronous=NORMAL``: that is ours as shipped
(``service.storage.db``); the library's default is ``FULL`` (one more fsync per commit), so its
connections are set to ``NORMAL`` here. On PostgreSQL both commit every append with the
server's own durability settings (printed). Ours pings a pooled connection before use only
after it idled 5 s (as shipped; none does in these loops); the library does not ping. Each
contender runs in alternation a few rounds; the best round counts.

Where the gaps come from (measured with the raw driver, no library): an append of ours is
three statements, not one: the head read, the guarded head UPDATE that keeps the stream
head tamper-evident, and the INSERT; on SQLite those cost about as much as all of the
library's append. A replay is mostly ``json.loads``, the same for both: ours decodes a
whole read as one document, and the library pays more per row.

``python bench/eventstore.py [--quick]``; the last line printed is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask import Flask
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from service.storage.db import init_app, run_migrations
from service.storage.eventstore import EventStore, NewEvent

POSTGRES_URL = os.environ.get(
    "TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REPLAY_LENGTH = 300  # events in one replayed stream: a long match of The Bottle Imp
TARGETS = {"appends": 1.0, "replay": 3.0}  # ours / theirs, from the issue


def event_data(version: int) -> dict[str, Any]:
    """A mid-sized event (about 200 bytes of JSON), varying with the version."""
    card = version % 37 + 1
    return {
        "seat": version % 4,
        "card": card,
        "hand": "main",
        "trick": {"leader": version % 4, "cards": [card, (card + 5) % 37 + 1, 19, 7]},
        "bottle": {"price": 19 - version % 7, "owner": (version + 1) % 4},
        "scores": [version, -version, 2 * version, 0],
        "note": "Keawe sold the bottle for less than he paid",
    }


def their_json(data: dict[str, Any]) -> bytes:
    """As eventsourcing's ``JSONTranscoder`` encodes an event's state."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


PAYLOAD_BYTES = round(statistics.mean(len(their_json(event_data(v))) for v in range(1, 301)))


class Contender(Protocol):
    name: str

    def new_stream(self) -> Any: ...
    def append(self, stream: Any, version: int, data: dict[str, Any]) -> None: ...
    def load(self, stream: Any, count: int) -> None: ...
    def replay(self, stream: Any) -> int: ...
    def close(self) -> None: ...


class Ours:
    """``service.storage.eventstore`` through the app's ``Database``, as commands use it."""

    name = "cardledger"

    def __init__(self, url: str) -> None:
        run_migrations(url)
        self.database = init_app(Flask(__name__), url)  # as the app has it (SQLite: + lock)

    def new_stream(self) -> str:
        return uuid.uuid4().hex

    def append(self, stream: str, version: int, data: dict[str, Any]) -> None:
        with self.database.writing() as connection:
            store = EventStore(connection)
            if version == 1:
                store.create(stream, "table", [NewEvent("CardPlayed", data)])
            else:
                store.append(stream, version - 1, [NewEvent("CardPlayed", data)])

    def load(self, stream: str, count: int) -> None:
        events = [NewEvent("CardPlayed", event_data(v)) for v in range(1, count + 1)]
        with self.database.writing() as connection:
            EventStore(connection).create(stream, "table", events)

    def replay(self, stream: str) -> int:
        with self.database.reading() as connection:
            return len(EventStore(connection).read(stream))  # read decodes the JSON

    def close(self) -> None:
        self.database.engine.dispose()


class Theirs:
    """The ``eventsourcing`` library's application recorder (SQLite or PostgreSQL)."""

    name = "eventsourcing"

    def __init__(self, recorder: Any, close: Callable[[], None]) -> None:
        from eventsourcing.persistence import StoredEvent

        self.recorder, self._close, self.stored_event = recorder, close, StoredEvent
        recorder.create_table()

    def new_stream(self) -> uuid.UUID:
        return uuid.uuid4()

    def append(self, stream: uuid.UUID, version: int, data: dict[str, Any]) -> None:
        event = self.stored_event(stream, version, "CardPlayed", their_json(data))
        self.recorder.insert_events([event])

    def load(self, stream: uuid.UUID, count: int) -> None:
        self.recorder.insert_events(
            [
                self.stored_event(stream, v, "CardPlayed", their_json(event_data(v)))
                for v in range(1, count + 1)
            ]
        )

    def replay(self, stream: uuid.UUID) -> int:
        return len([json.loads(e.state) for e in self.recorder.select_events(stream)])

    def close(self) -> None:
        self._close()


def their_sqlite(path: Path) -> Theirs:
    from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore

    datastore = SQLiteDatastore(str(path))
    pool = datastore.pool
    connect = pool._create_connection  # the library has no setting for this pragma

    def connect_like_ours() -> Any:
        connection = connect()
        connection._sqlite_conn.execute("PRAGMA synchronous=NORMAL")
        return connection

    pool._create_connection = connect_like_ours  # type: ignore[method-assign]
    return Theirs(SQLiteApplicationRecorder(datastore), datastore.close)


def their_postgres(url: str, schema: str) -> Theirs:
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

    parsed = make_url(url)
    datastore = PostgresDatastore(
        dbname=parsed.database or "",
        host=parsed.host or "127.0.0.1",
        port=parsed.port or 5432,
        user=parsed.username or "",
        password=parsed.password or "",
        schema=schema,
    )
    return Theirs(PostgresApplicationRecorder(datastore), datastore.close)


@dataclass
class Figures:
    appends_per_s: float
    replay_events_per_s: float
    replay_ms_per_stream: float

    def rounded(self) -> dict[str, float]:
        return {
            "appends_per_s": round(self.appends_per_s),
            "replay_events_per_s": round(self.replay_events_per_s),
            "replay_ms_per_stream": round(self.replay_ms_per_stream, 3),
        }


def measure_appends(contender: Contender, streams: int, events: int) -> float:
    ids = [contender.new_stream() for _ in range(streams)]
    start = time.perf_counter()
    for version in range(1, events + 1):
        for stream in ids:
            contender.append(stream, version, event_data(version))
    return streams * events / (time.perf_counter() - start)


def measure_replay(contender: Contender, ids: list[Any], repeat: int) -> tuple[float, float]:
    """(events decoded per second, ms per stream)."""
    start = time.perf_counter()
    decoded = sum(contender.replay(stream) for _ in range(repeat) for stream in ids)
    elapsed = time.perf_counter() - start
    assert decoded == repeat * len(ids) * REPLAY_LENGTH, decoded
    return decoded / elapsed, elapsed * 1000 / (repeat * len(ids))


@dataclass(frozen=True)
class Sizes:
    streams: int
    events: int
    replay_streams: int
    replay_repeat: int
    rounds: int


def compare(contenders: list[Contender], sizes: Sizes) -> dict[str, Figures]:
    """Alternate the contenders for a few rounds; keep each one's best."""
    replayed: dict[str, list[Any]] = {}
    for contender in contenders:
        measure_appends(contender, 2, 5)  # warm up pools, caches, prepared statements
        replayed[contender.name] = [contender.new_stream() for _ in range(sizes.replay_streams)]
        for stream in replayed[contender.name]:
            contender.load(stream, REPLAY_LENGTH)
        contender.replay(replayed[contender.name][0])
    best: dict[str, Figures] = {}
    for _ in range(sizes.rounds):
        for contender in contenders:
            appends = measure_appends(contender, sizes.streams, sizes.events)
            rate, ms = measure_replay(contender, replayed[contender.name], sizes.replay_repeat)
            old = best.get(contender.name)
            best[contender.name] = Figures(
                max(appends, old.appends_per_s if old else 0.0),
                max(rate, old.replay_events_per_s if old else 0.0),
                min(ms, old.replay_ms_per_stream if old else float("inf")),
            )
    return best


def missing(module: str) -> str | None:
    """None when ``module`` imports, else why not (eventsourcing's backends are extras)."""
    try:
        __import__(module)
    except ImportError as error:
        return str(error)
    return None


def postgres_reachable(url: str) -> str | None:
    """None when reachable, else why not."""
    engine = create_engine(url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except SQLAlchemyError as error:
        return str(error).splitlines()[0]
    finally:
        engine.dispose()
    return None


@contextmanager
def postgres_schema(url: str) -> Iterator[tuple[str, str, dict[str, str]]]:
    """A fresh schema, dropped afterwards: (its name, a URL searching it, server settings)."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
            settings = {
                name: str(connection.scalar(text(f"SHOW {name}")))
                for name in ("synchronous_commit", "fsync", "server_version")
            }
        scoped = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
        yield schema, scoped.render_as_string(hide_password=False), settings
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


def run_backend(
    name: str, ours: Callable[[], Contender], theirs: Callable[[], Contender] | None, sizes: Sizes
) -> dict[str, Any]:
    contenders = [ours()]
    try:
        if theirs is not None:
            contenders.append(theirs())
        best = compare(contenders, sizes)
    finally:
        for contender in contenders:
            with suppress(Exception):
                contender.close()
    result: dict[str, Any] = {c: f.rounded() for c, f in best.items()}
    mine, other = best[Ours.name], best.get(Theirs.name)
    result["ratio"] = (
        {
            "appends": round(mine.appends_per_s / other.appends_per_s, 3),
            "replay": round(mine.replay_events_per_s / other.replay_events_per_s, 3),
        }
        if other
        else None
    )
    print_backend(name, best, result["ratio"])
    return result


def print_backend(name: str, best: dict[str, Figures], ratio: dict[str, float] | None) -> None:
    print(f"\n{name}")
    print(f"  {'':16}{'appends/s':>12}{'replay events/s':>18}{'ms per stream':>16}")
    for contender, f in best.items():
        print(
            f"  {contender:16}{f.appends_per_s:>12,.0f}{f.replay_events_per_s:>18,.0f}"
            f"{f.replay_ms_per_stream:>16.2f}"
        )
    if ratio:
        verdict = {
            key: "meets" if ratio[key] >= target else "MISSES" for key, target in TARGETS.items()
        }
        print(
            f"  {'ours / theirs':16}{ratio['appends']:>11.2f}x{ratio['replay']:>17.2f}x"
            f"   appends {verdict['appends']} ≥{TARGETS['appends']}x,"
            f" replay {verdict['replay']} ≥{TARGETS['replay']}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="well under a minute")
    args = parser.parse_args()
    sizes = (
        Sizes(streams=10, events=30, replay_streams=4, replay_repeat=3, rounds=3)
        if args.quick
        else Sizes(streams=20, events=50, replay_streams=10, replay_repeat=5, rounds=5)
    )
    sqlite_gap = missing("eventsourcing.sqlite")
    postgres_gap = missing("eventsourcing.postgres")
    print(
        f"appends: {sizes.streams} streams x {sizes.events} events, one per transaction;"
        f" replay: {sizes.replay_streams} streams x {REPLAY_LENGTH} events"
        f" x {sizes.replay_repeat}; best of {sizes.rounds} rounds;"
        f" payload {PAYLOAD_BYTES} B of JSON"
    )
    if sqlite_gap:
        print(f"eventsourcing unavailable ({sqlite_gap}): pip install -e '.[bench]' to compare")
    elif postgres_gap:
        print(
            f"eventsourcing's PostgreSQL persistence unavailable ({postgres_gap}):"
            " pip install 'eventsourcing[postgres]' to compare on PostgreSQL"
        )
    result: dict[str, Any] = {
        "payload_bytes": PAYLOAD_BYTES,
        "replay_length": REPLAY_LENGTH,
        "sizes": asdict(sizes),
        "targets": TARGETS,
    }

    with tempfile.TemporaryDirectory(prefix="cardledger-bench-") as directory:
        folder = Path(directory)
        result["sqlite"] = run_backend(
            "SQLite (WAL, synchronous=NORMAL for both)",
            lambda: Ours(f"sqlite:///{folder / 'ours.db'}"),
            None if sqlite_gap else lambda: their_sqlite(folder / "eventsourcing.db"),
            sizes,
        )

    why_not = postgres_reachable(POSTGRES_URL)
    if why_not:
        print(f"\nPostgreSQL unreachable ({why_not}): measured SQLite only")
        result["postgresql"] = None
    else:
        with postgres_schema(POSTGRES_URL) as (schema, url, settings):
            label = ", ".join(f"{k}={v}" for k, v in settings.items())
            result["postgresql"] = run_backend(
                f"PostgreSQL ({label}; schema {schema}, dropped after)",
                lambda: Ours(url),
                None if postgres_gap else lambda: their_postgres(POSTGRES_URL, schema),
                sizes,
            )
            result["postgresql"]["settings"] = settings
    print(json.dumps(result))


if __name__ == "__main__":
    main()
