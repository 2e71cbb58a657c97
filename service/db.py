"""One SQLAlchemy engine and session factory per Flask app.

Per app rather than global so tests can run several apps on different databases side by side.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, current_app
from sqlalchemy import Connection, Engine, MetaData, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from service.config import PROJECT_ROOT

if TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig

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


def make_engine(url: str) -> Engine:
    """Create an engine tuned for its backend.

    SQLite: WAL lets readers run beside the one writer, and a busy timeout makes a second
    writer wait instead of failing at once. PostgreSQL: pre-ping drops connections the server
    closed, and a connect timeout keeps `/health` from hanging on an unreachable host.
    """
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url)
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    connect_args: dict[str, Any] = {"connect_timeout": 5} if backend == "postgresql" else {}
    return create_engine(url, pool_pre_ping=True, connect_args=connect_args)


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


class WriterLock:
    """Serialises SQLite writers across threads and processes with an OS file lock.

    SQLite's own busy handler waits for the write lock by sleeping in growing steps (up to
    100 ms), which wrecks latency under concurrent writers; a blocked ``flock`` wakes as
    soon as the holder releases it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.threads = threading.Lock()

    @contextmanager
    def held(self) -> Iterator[None]:
        with self.threads, open(self.path, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


@dataclass(frozen=True, slots=True)
class Database:
    """An app's engine and its session factory."""

    engine: Engine
    sessions: sessionmaker[Session]
    writer_lock: WriterLock | None = None

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session in one transaction: committed on success, rolled back on any error."""
        with self.sessions.begin() as session:
            yield session

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """A connection in one write transaction (on SQLite, holding the write lock)."""
        with self._writer(), self.engine.connect() as connection:
            connection = connection.execution_options(sqlite_immediate=True)
            with connection.begin():
                yield connection

    def _writer(self) -> AbstractContextManager[None]:
        return self.writer_lock.held() if self.writer_lock else nullcontext()

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A connection in one read transaction: a consistent snapshot."""
        with self.engine.connect() as connection, connection.begin():
            yield connection


def init_app(app: Flask, url: str) -> Database:
    engine = make_engine(url)
    path = engine.url.database if engine.url.get_backend_name() == "sqlite" else None
    lock = WriterLock(Path(path + ".writer-lock")) if path and path != ":memory:" else None
    database = Database(engine, sessionmaker(engine, expire_on_commit=False), lock)
    app.extensions[EXTENSION_KEY] = database
    return database


def get_database(app: Flask | None = None) -> Database:
    """The database of `app`, or of the app handling the current request."""
    database: Database = (app or current_app).extensions[EXTENSION_KEY]
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
