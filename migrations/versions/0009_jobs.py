"""Jobs: queues, cancellation, heartbeats (filled in by the jobs work).

Revision ID: 0009_jobs
Revises: 0008_append_only
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

revision: str = "0009_jobs"
down_revision: str | None = "0008_append_only"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
