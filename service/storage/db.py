"""One SQLAlchemy engine and session factory per app (or per house: ``service.core.resources``).

Per app rather than global so tests can run several apps on different databases side by side.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from sqlalchemy import Connection, Engine, MetaData, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session, sessionmaker

from service.core.config import PROJECT_ROOT
from service.core.resources import Resources, resources

if TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig
    from flask import Flask

EXTENSION_KEY = "cardledger.db"

# Stable constraint names, so Alembic migrations can drop or alter them on every backend.
metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)


#: The connections a process may hold at once, all kept open once opened: SQLAlchemy's
#: default allows as many (15) but keeps only 5, so a process serving more than five
#: requests at a time opened and closed a connection for each one past them (on
#: PostgreSQL, a server process started and ended per request: the load of
#: ``bench/api_load.py`` did so a few times a second).
POOL_SIZE = 15


def make_engine(url: str) -> Engine:
    """Create an engine tuned for its backend.

    SQLite: WAL lets readers run beside the one writer, and a busy timeout makes a second
    writer wait instead of failing at once. PostgreSQL: a ping drops connections the server
    closed (``_ping_when_idle``), and a connect timeout keeps `/health` from hanging on an
    unreachable host.
    """
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    pooled = {"pool_size": POOL_SIZE, "max_overflow": 0}
    if backend == "sqlite":
        in_memory = not parsed.database or parsed.database == ":memory:"
        if not in_memory:
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, **({} if in_memory else pooled))  # in memory: one a thread
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    connect_args: dict[str, Any] = {"connect_timeout": 5} if backend == "postgresql" else {}
    engine = create_engine(url, connect_args=connect_args, **pooled)
    _ping_when_idle(engine)
    event.listen(engine, "before_cursor_execute", _held_write_first)
    return engine


#: ``Connection.info`` key of a write held back (``service.storage.eventstore``'s checked
#: append): a callable, taking whether it may run alone, sent before the next statement on
#: the connection or at the end of its unit of work, whichever comes first.
HELD_WRITE = "cardledger.held_write"


def send_held_write(connection: Connection, *, alone: bool = False) -> None:
    """Send the write held back on ``connection``, if any (``alone``: as the whole of its
    transaction, when nothing else has been sent in it)."""
    held = connection.info.pop(HELD_WRITE, None)
    if held is not None:
        held(alone)


def drop_held_write(connection: Connection) -> None:
    """Forget a held write unsent (its transaction failed): the pooled connection's
    ``info`` outlives the transaction, and the write must never reach another one."""
    connection.info.pop(HELD_WRITE, None)


def _held_write_first(connection: Connection, *_: Any) -> None:
    """Any statement sent on a connection holding a write sends that write first, so
    statements reach the database in the order the code issued them."""
    if HELD_WRITE in connection.info:
        send_held_write(connection)


#: A pooled connection idle for longer is pinged before use (the server may have closed it).
IDLE_BEFORE_PING = 5.0


def _ping_when_idle(engine: Engine) -> None:
    """``pool_pre_ping``, but only for connections that sat idle a while: a ping is a round
    trip, as dear as a statement, and a connection used a moment ago is alive. A failed
    ping makes the pool retry with a new connection (SQLAlchemy's disconnect recipe); a
    connection that dies within the window fails its request, and SQLAlchemy then drops
    every pooled connection opened before it."""

    def note_idle(_dbapi_connection: Any, record: Any) -> None:
        if record is not None:
            record.info["idle_since"] = time.monotonic()

    def ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < IDLE_BEFORE_PING:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except Exception as error:
            raise DisconnectionError(f"a pooled connection failed its ping: {error}") from error
        if not alive:
            raise DisconnectionError("a pooled connection failed its ping")

    event.listen(engine.pool, "checkin", note_idle)
    event.listen(engine.pool, "checkout", ping_if_idle)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # We issue BEGIN ourselves (``_sqlite_begin``): the driver's implicit one is deferred.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")  # WAL: safe across crashes, one fsync less
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _sqlite_begin(connection: Any) -> None:
    """Writers take SQLite's write lock up front (BEGIN IMMEDIATE): a deferred transaction
    that read first could not upgrade to writing once another writer committed, and would
    fail instead of waiting."""
    immediate = connection.get_execution_options().get("sqlite_immediate", False)
    connection.connection.driver_connection.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")


class SQLiteWriter:
    """SQLite's one writer: an OS file lock across threads and processes, and the process's
    writer connection, handed to whichever thread holds the lock.

    SQLite's own busy handler waits for the write lock by sleeping in growing steps (up to
    100 ms), which wrecks latency under concurrent writers; a blocked ``flock`` wakes as
    soon as the holder releases it. Since only the lock holder writes, one connection and
    one open lock file per process serve every writer: opening either per transaction cost
    more than the statements did. A forked child opens its own (a descriptor shared with
    the parent would share its lock, and SQLite connections must not cross a fork).
    """

    def __init__(self, engine: Engine, path: Path) -> None:
        self.engine, self.path = engine, path
        self.threads = threading.Lock()
        self._holder: int | None = None  # the thread in a write transaction
        self._lock_file: BinaryIO | None = None
        self._connection: Connection | None = None
        self._inherited: tuple[object, ...] = ()
        os.register_at_fork(after_in_child=partial(_after_fork, weakref.ref(self)))

    def after_fork(self) -> None:
        """In a forked child use and close nothing the parent opened. Fork only while no
        write is under way: SQLite's own lock state would be copied into the child, whose
        writes would then fail as locked (the new thread lock makes that an error, not a
        hang)."""
        self._inherited = (self._lock_file, self._connection)
        self.threads = threading.Lock()
        self._holder = None
        self._lock_file = self._connection = None
        self.engine.dispose(close=False)

    def _open(self) -> tuple[BinaryIO, Connection]:
        if self._lock_file is None:
            self._lock_file = open(self.path, "a+b")  # noqa: SIM115 - kept open
        connection = self._connection
        if connection is None or connection.closed or connection.invalidated:
            connection = self.engine.connect().execution_options(sqlite_immediate=True)
            self._connection = connection
        return self._lock_file, connection

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        if self._holder == threading.get_ident():  # it would wait for itself forever
            raise RuntimeError("a write transaction inside a write transaction of one thread")
        with self.threads:
            self._holder = threading.get_ident()
            lock_file, connection = self._open()
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            try:
                with connection.begin():
                    yield connection
            finally:
                fcntl.flock(lock_file, fcntl.LOCK_UN)
                self._holder = None


def _after_fork(writer: weakref.ref[SQLiteWriter]) -> None:
    """Run in every forked child, before any of its threads (``os.register_at_fork``)."""
    alive = writer()
    if alive is not None:
        alive.after_fork()


@dataclass(frozen=True, slots=True)
class Database:
    """An app's engine and its session factory."""

    engine: Engine
    sessions: sessionmaker[Session]
    writer: SQLiteWriter | None = None

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session in one transaction: committed on success, rolled back on any error."""
        with self.sessions.begin() as session:
            yield session

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """A connection in one write transaction (on SQLite, holding the write lock)."""
        if self.writer is not None:
            with self.writer.transaction() as connection:
                yield connection
            return
        with self.engine.connect() as connection:
            connection = connection.execution_options(sqlite_immediate=True)
            with connection.begin():
                yield connection

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A connection in one read transaction: a consistent snapshot."""
        with self.engine.connect() as connection, connection.begin():
            yield connection


def init_app(app: Flask, url: str) -> Database:
    """The app's database (``app.extensions``)."""
    return install(app.extensions, url)


def install(resources: Resources, url: str) -> Database:
    """A database on ``url`` among ``resources`` (an app's extensions, or a house of its own)."""
    engine = make_engine(url)
    path = engine.url.database if engine.url.get_backend_name() == "sqlite" else None
    writer = (
        SQLiteWriter(engine, Path(path + ".writer-lock")) if path and path != ":memory:" else None
    )
    database = Database(engine, sessionmaker(engine, expire_on_commit=False), writer)
    resources[EXTENSION_KEY] = database
    return database


def get_database(app: Flask | None = None) -> Database:
    """The database of `app`, or of the house the caller runs in (``service.core.resources``)."""
    database: Database = (app.extensions if app is not None else resources())[EXTENSION_KEY]
    return database


def alembic_config(url: str) -> AlembicConfig:
    """An Alembic configuration aimed at `url`, leaving the caller's logging alone."""
    from alembic.config import Config as AlembicConfig

    alembic_cfg = AlembicConfig(str(PROJECT_ROOT / "alembic.ini"))
    alembic_cfg.attributes["database_url"] = url
    alembic_cfg.attributes["configure_logging"] = False
    return alembic_cfg


def run_migrations(url: str, revision: str = "head") -> None:
    """Upgrade the database at `url`, as `alembic upgrade` would (tests use this)."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)
