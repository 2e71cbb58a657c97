"""Jobs: queues, cancellation, heartbeats.

- ``jobs``: who started a job (``started_by``: besides the organiser, who may cancel it),
  its last sign of life (``alive_at``), how many of a simulation's chunks went to the
  broker (``dispatched``: a simulation keeps only a few in flight) and how often the
  reaper resumed it (``resumed``); ``state`` may now also be ``cancelled``.
- ``job_chunk_starts``: how often each chunk began, so one that kills its worker every
  time fails its job instead of being retried forever, and its last sign of life, so
  the reaper sends again a chunk whose worker died while the job's other chunks go on.
- ``pending_autoplays``: a table's one pending autoplay (and the job it carries).
- ``job_heartbeats``: the workers' and the beat's signs of life, one row each for
  ``live``, ``simulations`` and ``beat`` (created here, so stamps are plain UPDATEs).

Jobs recorded before this upgrade were started by the organiser or a seat; which one is
not known, so only the organiser may cancel them.

Revision ID: 0009_jobs
Revises: 0008_append_only
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_jobs"
down_revision: str | None = "0008_append_only"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HEARTBEATS = ("live", "simulations", "beat")


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("started_by", sa.String(32)))
        batch.add_column(sa.Column("alive_at", sa.String(32)))
        batch.add_column(sa.Column("dispatched", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("resumed", sa.Integer, nullable=False, server_default="0"))
        batch.create_index("ix_jobs_state", ["state"])
    op.create_table(
        "job_chunk_starts",
        sa.Column("job_id", sa.String(32), sa.ForeignKey("jobs.id"), nullable=False),
        sa.Column("chunk", sa.Integer, nullable=False),
        sa.Column("starts", sa.Integer, nullable=False),
        sa.Column("alive_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("job_id", "chunk", name="pk_job_chunk_starts"),
    )
    op.create_table(
        "pending_autoplays",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("streams.id"), primary_key=True),
        sa.Column("job_id", sa.String(32), sa.ForeignKey("jobs.id")),
        sa.Column("queued_at", sa.String(32), nullable=False),
    )
    heartbeats = op.create_table(
        "job_heartbeats",
        sa.Column("name", sa.String(16), primary_key=True),
        sa.Column("seen_at", sa.String(32)),
        sa.Column("sent_at", sa.String(32)),
    )
    op.bulk_insert(heartbeats, [{"name": name} for name in HEARTBEATS])
    # A simulation already running sent all its chunks (of 10 matches) when it started.
    op.execute(
        "UPDATE jobs SET dispatched = (total + 9) / 10 "
        "WHERE kind = 'simulation' AND state = 'running'"
    )


def downgrade() -> None:
    op.execute("UPDATE jobs SET state = 'failed', error = 'cancelled' WHERE state = 'cancelled'")
    op.drop_table("job_heartbeats")
    op.drop_table("pending_autoplays")
    op.drop_table("job_chunk_starts")
    with op.batch_alter_table("jobs") as batch:
        batch.drop_index("ix_jobs_state")
        batch.drop_column("resumed")
        batch.drop_column("dispatched")
        batch.drop_column("alive_at")
        batch.drop_column("started_by")
