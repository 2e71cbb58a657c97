"""Baseline: an empty schema that later revisions (event store, projections) build on.

It creates nothing on purpose: it gives every database, SQLite or PostgreSQL, an
`alembic_version` row from the first `make run`, so the first real revision applies cleanly.

Revision ID: 0001_baseline
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

revision: str = "0001_baseline"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
