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


def project_opened_table(connection: Connection, log: TableLog) -> None:
    """The read models of a table just opened: its summary and, when a bot is the first
    to move, its ``bot_turns`` row."""
    project_table(connection, log)
    project_bot_turn(connection, log)


def project_appended(connection: Connection, before: TableLog, after: TableLog) -> None:
    """The read models of a table whose events after ``before`` were just appended
    (``after``): its ``bot_turns`` row and its summary, each only if it changed."""
    project_bot_turn(connection, after, waited=bot_to_move(before) is not None)
    project_table(connection, after, before.state)


def headline(log: TableLog, state: Any = None) -> dict[str, Any]:
    """What a table's public summary shows that play changes: ``status``, ``deal``,
    ``totals`` and ``ranking``, from the public view (no hidden card can be in it)."""
    shown = log.rules.view(log.state if state is None else state, None)
    return {key: shown[key] for key in ("status", "deal", "totals", "ranking")}


def project_table(connection: Connection, log: TableLog, before: Any = None) -> None:
    """Keep ``log``'s ``table_summaries`` row; ``before``: the state the row was written
    for (None: a table just opened, imported or restored, whose row may be missing). Only
    a change of the headline writes."""
    now = headline(log)
    if before is not None and headline(log, before) == now:
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
