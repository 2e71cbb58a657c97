"""A table's read models: its changing summary (``table_summaries``: what the lists show)
and whether it waits on a bot (``bot_turns``: what the sweep resumes).

Each row is written only when what it shows changes, so an ordinary move costs no
statement here.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, delete, update
from sqlalchemy.dialects import postgresql, sqlite

from service.storage.models import bot_turns, table_summaries
from service.storage.tablelog import TableLog, bot_to_move
from service.storage.transactions import is_writing, when_committed


def project_opened_table(connection: Connection, log: TableLog) -> None:
    """The read models of a table just opened: its summary and, when a bot is the first
    to move, its ``bot_turns`` row."""
    project_table(connection, log)
    project_bot_turn(connection, log)


def project_appended(connection: Connection, before: TableLog, after: TableLog) -> None:
    """The read models of a table whose events after ``before`` were just appended
    (``after``): its ``bot_turns`` row and its summary, each only if it changed."""
    project_bot_turn(connection, after, waited=bot_to_move(before) is not None)
    project_table(connection, after, before)


def headline(log: TableLog, state: Any = None) -> dict[str, Any]:
    """What a table's public summary shows that play changes: ``status``, ``deal``,
    ``totals`` and ``ranking``, as its public view shows them (the game's ``headline``)."""
    return log.rules.headline(log.state if state is None else state)


#: The headline each table was last seen with, at its version: an action compares its
#: table's new headline with the one the action before it wrote, so it draws one public
#: view, not two. A (table, version) names one state for good (the log is append-only
#: and chained), so a remembered headline is never stale, only missing.
_SEEN: dict[str, tuple[int, dict[str, Any]]] = {}


def _headline_at(log: TableLog, version: int, state: Any) -> dict[str, Any]:
    seen = _SEEN.get(log.id)
    if seen is not None and seen[0] == version:
        return seen[1]
    return headline(log, state)


def project_table(connection: Connection, log: TableLog, before: Any = None) -> None:
    """Keep ``log``'s ``table_summaries`` row; ``before``: the log the row was written for
    (None: a table just opened, imported or restored, whose row may be missing). Only a
    change of the headline writes."""
    now = headline(log)
    unchanged = before is not None and _headline_at(before, before.version, before.state) == now
    if is_writing(connection):  # remembered once committed: a rolled-back state never was
        seen = (log.version, now)
        when_committed(lambda: _SEEN.__setitem__(log.id, seen))
    if unchanged:
        return
    values = {
        "status": now["status"],
        "deal": now["deal"],
        "totals": json.dumps(now["totals"]),
        "ranking": None if now["ranking"] is None else json.dumps(now["ranking"]),
    }
    moved = connection.execute(
        update(table_summaries).where(table_summaries.c.table_id == log.id).values(values)
    )
    if moved.rowcount == 0:
        row = {"table_id": log.id, "created_at": log.rows[0].recorded_at, **values}
        connection.execute(insert_once(connection, table_summaries, row))


def project_bot_turn(connection: Connection, log: TableLog, waited: bool = False) -> None:
    """Keep ``log``'s ``bot_turns`` row: there while a bot must move. ``waited``: the row
    was there before (False for a table just opened). Only a change writes, so a person's
    move among persons, or a bot's among bots, costs no statement."""
    waits = bot_to_move(log) is not None
    if waits == waited:
        return
    if waits:
        connection.execute(insert_once(connection, bot_turns, {"table_id": log.id}))
    else:
        connection.execute(delete(bot_turns).where(bot_turns.c.table_id == log.id))


def insert_once(connection: Connection, table: Any, values: dict[str, Any]) -> Any:
    """An INSERT that leaves an existing row be: a projection row a rebuild or an older
    deployment left must not turn a person's action into a conflict."""
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    return dialect.insert(table).values(values).on_conflict_do_nothing()
