"""How each imported table came here: signed by a trusted key, or imported unsigned on the
organiser's explicit request.

Kept beside the log, never in it: an imported log stays byte-identical to its export.

Revision ID: 0005_table_imports
Revises: 0004_jobs
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_table_imports"
down_revision: str | None = "0004_jobs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "table_imports",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("streams.id"), primary_key=True),
        sa.Column("signed", sa.Boolean, nullable=False),
        sa.Column("key_id", sa.String(16)),
        sa.Column("imported_at", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("table_imports")
