"""Entry tokens: one personal link per tournament entry, for the whole tournament.

- ``entry_tokens``: each entry's token, stored as its SHA-256 only, with the random nonce
  the server's key turns back into the same token (a reprinted slip shows the same link;
  ``service.storage.entry_tokens``). Entries already in a tournament get theirs the first
  time their slip is printed.

Revision ID: 0011_entry_tokens
Revises: 0010_console
Create Date: 2026-12-08
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_entry_tokens"
down_revision: str | None = "0010_console"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "entry_tokens",
        sa.Column("tournament_id", sa.String(64), sa.ForeignKey("streams.id"), nullable=False),
        sa.Column("entry", sa.Integer, nullable=False),
        sa.Column("nonce", sa.String(32), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "entry", name="pk_entry_tokens"),
        sa.UniqueConstraint("token_hash", name="uq_entry_tokens_token_hash"),
    )


def downgrade() -> None:
    op.drop_table("entry_tokens")
