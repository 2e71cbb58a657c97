"""Console: form keys and organiser sessions (filled in by the console work).

Revision ID: 0010_console
Revises: 0009_jobs
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

revision: str = "0010_console"
down_revision: str | None = "0009_jobs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
