"""Console: organiser sessions, one-time form keys, and the skeletons of players' names.

- ``organiser_sessions``: the console's cookie holds a session id, not the organiser
  token; each session is stored hashed with its expiry (``service.storage.organiser_sessions``).
- ``form_keys``: each console form's one-time key and what its first post answered
  (``service.web.pages.formkeys``).
- ``player_skeletons``: the TR39 confusable skeleton of each registered player's name,
  unique (``domain.names``), filled here from the players already registered, oldest
  first; a later player whose name looks like an earlier one's keeps it but holds no
  skeleton (nothing recorded is refused after the fact).

Revision ID: 0010_console
Revises: 0009_jobs
Create Date: 2026-12-01
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_console"
down_revision: str | None = "0009_jobs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "organiser_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("expires_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_organiser_sessions_expiry", "organiser_sessions", ["expires_at"])
    op.create_table(
        "form_keys",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("form", sa.String(200), nullable=False),
        sa.Column("outcome", sa.Text),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_form_keys_created", "form_keys", ["created_at"])
    skeletons = op.create_table(
        "player_skeletons",
        sa.Column("skeleton", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), sa.ForeignKey("streams.id"), nullable=False),
    )
    op.bulk_insert(skeletons, _skeletons(op.get_bind()))


def _skeletons(connection: sa.Connection) -> list[dict[str, str]]:
    """One row per distinct skeleton among the registered players, the oldest player's."""
    from domain.names import skeleton

    rows = connection.execute(sa.text("SELECT id, name FROM players ORDER BY created_at, id"))
    held: dict[str, str] = {}
    for player_id, name in rows:
        key = hashlib.sha256(skeleton(name).encode("utf-8")).hexdigest()
        held.setdefault(key, player_id)
    return [{"skeleton": key, "player_id": player} for key, player in held.items()]


def downgrade() -> None:
    op.drop_table("player_skeletons")
    op.drop_index("ix_form_keys_created", "form_keys")
    op.drop_table("form_keys")
    op.drop_index("ix_organiser_sessions_expiry", "organiser_sessions")
    op.drop_table("organiser_sessions")
