"""Tables waiting on a bot: one row per table whose seats to act include a bot, so the
sweep (``cardledger.resume_bots``) finds the tables a lost task left waiting without
folding every table.

A read model like the others (``rebuild-projections`` recomputes it); filled here from the
tables already recorded, so a table that stalled before this upgrade resumes too. The
fill uses the pure rules engine only (``domain``), which reads every recorded schema.

Revision ID: 0006_bot_turns
Revises: 0005_table_imports
Create Date: 2026-12-06
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_bot_turns"
down_revision: str | None = "0005_table_imports"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

logger = logging.getLogger("alembic.runtime.migration")


def upgrade() -> None:
    bot_turns = op.create_table(
        "bot_turns",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("streams.id"), primary_key=True),
    )
    connection = op.get_bind()
    tables = connection.scalars(sa.text("SELECT id FROM streams WHERE kind = 'table'")).all()
    waiting = [{"table_id": t} for t in tables if _waits_on_bot(connection, t)]
    if waiting:
        op.bulk_insert(bot_turns, waiting)


def _waits_on_bot(connection: sa.Connection, table_id: str) -> bool:
    """Fold the table's log and say whether a bot seat is among those to act."""
    from domain.events import TableOpened, from_data
    from domain.games import game
    from domain.replay import event_from_json

    rows = connection.execute(
        sa.text("SELECT type, schema, data FROM events WHERE stream = :s ORDER BY version"),
        {"s": table_id},
    ).all()
    try:
        opened = from_data(TableOpened, json.loads(rows[0].data))
        rules = game(opened.game)
        state = rules.initial_state(opened.table())
        for row in rows[1:]:
            state = rules.evolve(
                state, event_from_json(opened.game, row.type, json.loads(row.data), row.schema)
            )
        to_act = rules.to_act(state)
    except Exception as error:  # an unreadable log: its bots are not resumed (verify says why)
        logger.warning("table %s: log unreadable, bots not resumed: %r", table_id, error)
        return False
    seats = opened.seats
    return any(seat < len(seats) and seats[seat].get("bot") for seat in to_act)


def downgrade() -> None:
    op.drop_table("bot_turns")
