"""The event log guards itself (filled in by the integrity work).

Revision ID: 0008_append_only
Revises: 0007_lists
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

revision: str = "0008_append_only"
down_revision: str | None = "0007_lists"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
