"""The event log guards itself: the database refuses to change or delete a recorded event.

Triggers (installed by migration 0008; ``cardledger guard --install`` puts them back) make
``events`` append-only and let a stream's head only move forward:

- an UPDATE or DELETE of an event row is refused, and so is TRUNCATE (PostgreSQL);
- a stream row is never deleted, and its ``version`` and ``head`` only move on (a new
  version) — the one change appending makes; its ``damage`` mark may be set and cleared.

On PostgreSQL the triggers are ``ENABLE ALWAYS``: they fire even for a session that set
``session_replication_role = replica``. Changing a row then needs a change of the schema
itself (dropping, disabling or replacing a trigger or its function), and every such change
moves the database's **guard stamp**: SQLite's ``schema_version``, PostgreSQL's catalog rows
of the triggers and their functions (a new row version, ``xmin``, on any change). Each load
reads the stamp with the stream's head (``service.storage.eventstore``), and a process trusts what
it has cached only while the stamp is the one it last checked the guard under
(``service.storage.streams``): a changed stamp makes it re-read and re-check every row it uses.
What slips past even that (an edit of the database files, a hand-forged ``schema_version``)
is found by the background verifier (``service.jobs.verifier``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, text

SQLITE = (
    """CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'cardledger: event rows are append-only'); END""",
    """CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'cardledger: event rows are append-only'); END""",
    """CREATE TRIGGER streams_forward_only BEFORE UPDATE ON streams
WHEN NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind OR NEW.created_at IS NOT OLD.created_at
  OR NEW.version < OLD.version OR (NEW.version = OLD.version AND NEW.head IS NOT OLD.head)
BEGIN SELECT RAISE(ABORT, 'cardledger: a stream''s head only moves forward'); END""",
    """CREATE TRIGGER streams_kept BEFORE DELETE ON streams
BEGIN SELECT RAISE(ABORT, 'cardledger: streams are never deleted'); END""",
)

POSTGRES_FUNCTIONS = (
    """CREATE OR REPLACE FUNCTION cardledger_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'cardledger: event rows are append-only (% refused)', TG_OP
    USING ERRCODE = 'restrict_violation';
END
$$""",
    """CREATE OR REPLACE FUNCTION cardledger_streams_forward() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'UPDATE' THEN
    RAISE EXCEPTION 'cardledger: streams are never deleted' USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.id IS DISTINCT FROM OLD.id OR NEW.kind IS DISTINCT FROM OLD.kind
     OR NEW.created_at IS DISTINCT FROM OLD.created_at OR NEW.version < OLD.version
     OR (NEW.version = OLD.version AND NEW.head IS DISTINCT FROM OLD.head) THEN
    RAISE EXCEPTION 'cardledger: a stream''s head only moves forward'
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END
$$""",
)

#: name -> (table, PostgreSQL ``tgtype`` bits, function): row-level (1) BEFORE (2) UPDATE
#: (16) and DELETE (8) = 27; statement-level BEFORE TRUNCATE (32) = 34.
POSTGRES_TRIGGERS = {
    "events_append_only": ("events", 27, "cardledger_append_only"),
    "events_no_truncate": ("events", 34, "cardledger_append_only"),
    "streams_forward_only": ("streams", 27, "cardledger_streams_forward"),
    "streams_no_truncate": ("streams", 34, "cardledger_streams_forward"),
}
_TIMING = {27: "BEFORE UPDATE OR DELETE", 34: "BEFORE TRUNCATE"}
_LEVEL = {27: "FOR EACH ROW", 34: "FOR EACH STATEMENT"}

#: PostgreSQL: the stamp, read in the same statement as a stream's head.
POSTGRES_STAMP = (
    "(SELECT string_agg(t.tgname || ':' || t.xmin::text || ':' || t.tgenabled::text || ':' "
    "|| p.xmin::text, ',' ORDER BY t.tgname) FROM pg_trigger t JOIN pg_proc p ON "
    "p.oid = t.tgfoid WHERE t.tgrelid IN ('events'::regclass, 'streams'::regclass) "
    "AND NOT t.tgisinternal)"
)
SQLITE_STAMP = "PRAGMA schema_version"
#: SQLite: the same stamp as a value, read in the same statement as a stream's head.
SQLITE_STAMP_VALUE = "(SELECT schema_version FROM pragma_schema_version)"


def _postgres_statements() -> list[str]:
    statements = list(POSTGRES_FUNCTIONS)
    for name, (table, bits, function) in POSTGRES_TRIGGERS.items():
        statements += [
            f"DROP TRIGGER IF EXISTS {name} ON {table}",
            f"CREATE TRIGGER {name} {_TIMING[bits]} ON {table} {_LEVEL[bits]} "
            f"EXECUTE FUNCTION {function}()",
            f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {name}",
        ]
    return statements


def install(connection: Connection) -> None:
    """Install (or put back) the guard's triggers, in the caller's transaction."""
    if connection.dialect.name == "postgresql":
        for statement in _postgres_statements():
            connection.execute(text(statement))
        return
    for statement in SQLITE:
        name = statement.split()[2]
        connection.execute(text(f"DROP TRIGGER IF EXISTS {name}"))
        connection.execute(text(statement))


def remove(connection: Connection) -> None:
    """Take the triggers away (a migration's downgrade, ``cardledger restore``)."""
    if connection.dialect.name == "postgresql":
        for name, (table, _, _) in POSTGRES_TRIGGERS.items():
            connection.execute(text(f"DROP TRIGGER IF EXISTS {name} ON {table}"))
        return
    for statement in SQLITE:
        connection.execute(text(f"DROP TRIGGER IF EXISTS {statement.split()[2]}"))


def stamp(connection: Connection) -> str:
    """The database's guard stamp now (what ``EventStore.head_row`` reads with a head)."""
    sql = f"SELECT {POSTGRES_STAMP}" if connection.dialect.name == "postgresql" else SQLITE_STAMP
    return str(connection.execute(text(sql)).scalar())


def _words(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip().lower()


def missing(connection: Connection) -> list[str]:
    """What is wrong with the guard now: the triggers absent, disabled or not ours (empty
    when it is whole). Checked whenever the stamp changes, so this may take its time."""
    if connection.dialect.name == "postgresql":
        return _postgres_missing(connection)
    found = dict(
        connection.execute(text("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")).all()
    )
    wrong = []
    for statement in SQLITE:
        name = statement.split()[2]
        if name not in found:
            wrong.append(f"trigger {name} is missing")
        elif _words(found[name]) != _words(statement):
            wrong.append(f"trigger {name} is not the guard's")
    return wrong


def _postgres_missing(connection: Connection) -> list[str]:
    rows: dict[str, Any] = {
        row.tgname: row
        for row in connection.execute(
            text(
                "SELECT t.tgname, t.tgtype, t.tgenabled::text AS enabled, "
                "c.relname AS table_name, p.proname, p.prosrc FROM pg_trigger t "
                "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid "
                "WHERE t.tgrelid IN ('events'::regclass, 'streams'::regclass) "
                "AND NOT t.tgisinternal"
            )
        )
    }
    sources = {
        re.search(r"FUNCTION (\w+)\(", f).group(1): f.split("$$")[1]  # type: ignore[union-attr]
        for f in POSTGRES_FUNCTIONS
    }
    wrong = []
    for name, (table, bits, function) in POSTGRES_TRIGGERS.items():
        row = rows.get(name)
        if row is None:
            wrong.append(f"trigger {name} is missing")
        elif row.enabled != "A":
            wrong.append(f"trigger {name} is not enabled always (tgenabled {row.enabled!r})")
        elif (row.table_name, row.tgtype, row.proname) != (table, bits, function) or _words(
            row.prosrc
        ) != _words(sources[function]):
            wrong.append(f"trigger {name} is not the guard's")
    return wrong


class Guard:
    """Whether the database's append-only guard has held since this process last checked
    it; every cache of the house registers here and is cleared when the stamp moves."""

    def __init__(self) -> None:
        self._stamp: str | None = None
        self._whole = False
        self._lock = threading.Lock()
        self._caches: list[Callable[[], None]] = []

    def register(self, clear: Callable[[], None]) -> None:
        self._caches.append(clear)

    def trusts(self, connection: Connection, stamp: str) -> bool:
        """Whether caches may be trusted under ``stamp`` (the guard is whole)."""
        if stamp == self._stamp:
            return self._whole
        whole = not missing(connection)
        with self._lock:
            for clear in self._caches:
                clear()
            self._stamp, self._whole = stamp, whole
        return whole

    @property
    def trusted_stamp(self) -> str | None:
        """The stamp caches are trusted under now (None: the guard is not whole, or not
        checked yet): what a checked append compares with the database's."""
        with self._lock:  # the pair ``trusts`` sets together
            return self._stamp if self._whole else None

    @property
    def whole(self) -> bool | None:
        """What the last check found (None: nothing checked yet)."""
        return None if self._stamp is None else self._whole


GUARD_KEY = "cardledger.guard"
