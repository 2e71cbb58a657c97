"""Tournament projections: players (with ratings), tournaments, their tables, standings.

Read models only: every row is recomputed from the event streams by
``flask --app service cardledger rebuild-projections``.

Revision ID: 0003_tournaments
Revises: 0002_event_store
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_tournaments"
down_revision: str | None = "0002_event_store"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(64), sa.ForeignKey("streams.id"), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("rated_tables", sa.Integer, nullable=False),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(64), sa.ForeignKey("streams.id"), primary_key=True),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("rounds_played", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("streams.id"), primary_key=True),
        sa.Column("tournament_id", sa.String(64), sa.ForeignKey("streams.id"), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
    )
    op.create_table(
        "standings",
        sa.Column("tournament_id", sa.String(64), sa.ForeignKey("streams.id"), nullable=False),
        sa.Column("entry", sa.Integer, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("player_id", sa.String(64)),
        sa.Column("withdrawn", sa.Boolean, nullable=False),
        sa.Column("match_points", sa.BigInteger, nullable=False),
        sa.Column("score", sa.BigInteger, nullable=False),
        sa.Column("tables", sa.Integer, nullable=False),
        sa.Column("byes", sa.Integer, nullable=False),
        sa.Column("buchholz", sa.BigInteger, nullable=False),
        sa.Column("head_to_head", sa.Integer),
        sa.PrimaryKeyConstraint("tournament_id", "entry", name="pk_standings"),
    )
    op.create_index("ix_standings_position", "standings", ["tournament_id", "position"])


def downgrade() -> None:
    op.drop_index("ix_standings_position", table_name="standings")
    op.drop_table("standings")
    op.drop_table("tournament_tables")
    op.drop_table("tournaments")
    op.drop_table("players")
