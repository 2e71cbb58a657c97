"""Jobs: bot autoplay and simulations, with each simulation chunk's result.

A chunk's row is written once (its primary key refuses a second), so a chunk a dead
worker left half done and another worker redid cannot count twice.

Revision ID: 0004_jobs
Revises: 0003_tournaments
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_jobs"
down_revision: str | None = "0003_tournaments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("result", sa.Text),
        sa.Column("error", sa.Text),
        sa.Column("table_id", sa.String(64)),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "job_chunks",
        sa.Column("job_id", sa.String(32), sa.ForeignKey("jobs.id"), nullable=False),
        sa.Column("chunk", sa.Integer, nullable=False),
        sa.Column("result", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("job_id", "chunk", name="pk_job_chunks"),
    )


def downgrade() -> None:
    op.drop_table("job_chunks")
    op.drop_table("jobs")
