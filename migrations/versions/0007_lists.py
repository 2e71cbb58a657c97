"""Lists: each table's changing summary (``table_summaries``), so ``GET /tables`` pages
and filters by status without folding a table, and the indexes the newest-first lists
(``GET /tables``, ``/tournaments``, ``/players``) and a round's seating read by.

A read model like the others (``rebuild-projections`` recomputes it); filled here from the
tables already recorded, with the pure rules engine only (``domain``), as 0006 does.

Revision ID: 0007_lists
Revises: 0006_bot_turns
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0007_lists"
down_revision: str | None = "0006_bot_turns"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

logger = logging.getLogger("alembic.runtime.migration")


def upgrade() -> None:
    summaries = op.create_table(
        "table_summaries",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("streams.id"), primary_key=True),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("status", sa.String(24), nullable=False),
        sa.Column("deal", sa.Integer, nullable=False),
        sa.Column("totals", sa.Text, nullable=False),
        sa.Column("ranking", sa.Text),
    )
    op.create_index("ix_table_summaries_newest", "table_summaries", ["created_at", "table_id"])
    op.create_index(
        "ix_table_summaries_status", "table_summaries", ["status", "created_at", "table_id"]
    )
    op.create_index("ix_players_newest", "players", ["created_at", "id"])
    op.create_index("ix_tournaments_newest", "tournaments", ["created_at", "id"])
    op.create_index(
        "ix_tournament_tables_round", "tournament_tables", ["tournament_id", "round", "number"]
    )
    connection = op.get_bind()
    tables = connection.scalars(sa.text("SELECT id FROM streams WHERE kind = 'table'")).all()
    rows = [row for t in tables if (row := _summary(connection, t))]
    if rows:
        op.bulk_insert(summaries, rows)


def _summary(connection: sa.Connection, table_id: str) -> dict[str, Any] | None:
    """Fold the table's log and take its public headline (status, deal, totals, ranking)."""
    from domain.events import TableOpened, from_data
    from domain.games import game
    from domain.replay import event_from_json

    rows = connection.execute(
        sa.text(
            "SELECT type, schema, data, recorded_at FROM events WHERE stream = :s ORDER BY version"
        ),
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
        shown = rules.view(state, None)
    except Exception as error:  # an unreadable log is left out of the lists (verify says why)
        logger.warning("table %s: log unreadable, not listed: %r", table_id, error)
        return None
    return {
        "table_id": table_id,
        "created_at": rows[0].recorded_at,
        "status": shown["status"],
        "deal": shown["deal"],
        "totals": json.dumps(shown["totals"]),
        "ranking": None if shown["ranking"] is None else json.dumps(shown["ranking"]),
    }


def downgrade() -> None:
    op.drop_index("ix_tournament_tables_round", "tournament_tables")
    op.drop_index("ix_tournaments_newest", "tournaments")
    op.drop_index("ix_players_newest", "players")
    op.drop_table("table_summaries")
