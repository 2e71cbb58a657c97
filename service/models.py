"""The database tables. Event rows are append-only: no code path updates or deletes them.

``streams`` holds each stream's head (version and hash) so an append can check its
expected version with one guarded UPDATE; ``events`` holds the immutable log.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from service.db import metadata

streams = Table(
    "streams",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("version", Integer, nullable=False),
    Column("head", String(64), nullable=False),
    Column("created_at", String(32), nullable=False),
)

events = Table(
    "events",
    metadata,
    Column(
        "id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("stream", String(64), ForeignKey("streams.id"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("type", String(64), nullable=False),
    Column("schema", Integer, nullable=False),
    Column("data", Text, nullable=False),
    Column("recorded_at", String(32), nullable=False),
    Column("hash", String(64), nullable=False),
    Column("actor", String(40)),
    UniqueConstraint("stream", "version"),
)

seat_tokens = Table(
    "seat_tokens",
    metadata,
    Column("table_id", String(64), ForeignKey("streams.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    PrimaryKeyConstraint("table_id", "seat"),
)

idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    Column("stream", String(64), ForeignKey("streams.id"), nullable=False),
    Column("key", String(200), nullable=False),
    Column("request_hash", String(64), nullable=False),
    Column("status", Integer, nullable=False),
    Column("response", Text, nullable=False),
    PrimaryKeyConstraint("stream", "key"),
)
