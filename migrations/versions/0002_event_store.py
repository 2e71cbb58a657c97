"""The event store: streams, append-only events, seat tokens, idempotency keys.

Revision ID: 0002_event_store
Revises: 0001_baseline
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_event_store"
down_revision: str | None = "0001_baseline"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "streams",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("head", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer, "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("stream", sa.String(64), sa.ForeignKey("streams.id"), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("schema", sa.Integer, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("recorded_at", sa.String(32), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("actor", sa.String(40)),
        sa.UniqueConstraint("stream", "version", name="uq_events_stream"),
    )
    op.create_table(
        "seat_tokens",
        sa.Column("table_id", sa.String(64), sa.ForeignKey("streams.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_seat_tokens"),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("stream", sa.String(64), sa.ForeignKey("streams.id"), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("response", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("stream", "key", name="pk_idempotency_keys"),
    )


def downgrade() -> None:
    op.drop_table("idempotency_keys")
    op.drop_table("seat_tokens")
    op.drop_table("events")
    op.drop_table("streams")
