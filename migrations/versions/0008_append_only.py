"""The event log guards itself and carries its signatures.

- ``events.signature`` / ``events.key_id``: each append stores the server's Ed25519
  signature of the new head with its last row, so a history rewritten in the database
  without the key no longer checks.
- ``streams.damage``: the first fault found in a stream's rows, so every process refuses
  the stream at once; ``stream_checks``: when the background verifier last checked it.
- ``table_imports.attestation``: the server's signature of an import mark.
- Heads recorded before this upgrade are signed now, with the server's key (the
  ``signing_key`` attribute a caller gives Alembic, else ``CARDLEDGER_SIGNING_KEY``, else
  ``var/signing-key``, generated like the server would): from here on they are vouched
  for as they stand at the upgrade. An import keeps no signature of its origin from
  before (exports then say ``"unsigned": true``), and its mark is attested.
- Triggers refuse UPDATE and DELETE of event rows and let a stream's head only move
  forward (``ENABLE ALWAYS`` on PostgreSQL). The statements are a frozen copy of
  ``service/storage/guard.py`` as of this revision (a test checks the two agree).

Revision ID: 0008_append_only
Revises: 0007_lists
Create Date: 2026-12-01
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import sqlalchemy as sa
from alembic import context, op

revision: str = "0008_append_only"
down_revision: str | None = "0007_lists"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

VAR_DIR = Path(__file__).resolve().parents[2] / "var"

SQLITE = (
    """CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'cardledger: event rows are append-only'); END""",
    """CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'cardledger: event rows are append-only'); END""",
    """CREATE TRIGGER streams_forward_only BEFORE UPDATE ON streams
WHEN NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind OR NEW.created_at IS NOT OLD.created_at
  OR NEW.version < OLD.version OR (NEW.version = OLD.version AND NEW.head IS NOT OLD.head)
BEGIN SELECT RAISE(ABORT, 'cardledger: a stream''s head only moves forward'); END""",
    """CREATE TRIGGER streams_kept BEFORE DELETE ON streams
BEGIN SELECT RAISE(ABORT, 'cardledger: streams are never deleted'); END""",
)

POSTGRES = (
    """CREATE OR REPLACE FUNCTION cardledger_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'cardledger: event rows are append-only (% refused)', TG_OP
    USING ERRCODE = 'restrict_violation';
END
$$""",
    """CREATE OR REPLACE FUNCTION cardledger_streams_forward() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'UPDATE' THEN
    RAISE EXCEPTION 'cardledger: streams are never deleted' USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.id IS DISTINCT FROM OLD.id OR NEW.kind IS DISTINCT FROM OLD.kind
     OR NEW.created_at IS DISTINCT FROM OLD.created_at OR NEW.version < OLD.version
     OR (NEW.version = OLD.version AND NEW.head IS DISTINCT FROM OLD.head) THEN
    RAISE EXCEPTION 'cardledger: a stream''s head only moves forward'
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END
$$""",
    "CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events FOR EACH ROW "
    "EXECUTE FUNCTION cardledger_append_only()",
    "ALTER TABLE events ENABLE ALWAYS TRIGGER events_append_only",
    "CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT "
    "EXECUTE FUNCTION cardledger_append_only()",
    "ALTER TABLE events ENABLE ALWAYS TRIGGER events_no_truncate",
    "CREATE TRIGGER streams_forward_only BEFORE UPDATE OR DELETE ON streams FOR EACH ROW "
    "EXECUTE FUNCTION cardledger_streams_forward()",
    "ALTER TABLE streams ENABLE ALWAYS TRIGGER streams_forward_only",
    "CREATE TRIGGER streams_no_truncate BEFORE TRUNCATE ON streams FOR EACH STATEMENT "
    "EXECUTE FUNCTION cardledger_streams_forward()",
    "ALTER TABLE streams ENABLE ALWAYS TRIGGER streams_no_truncate",
)
POSTGRES_DOWN = (
    "DROP TRIGGER IF EXISTS events_append_only ON events",
    "DROP TRIGGER IF EXISTS events_no_truncate ON events",
    "DROP TRIGGER IF EXISTS streams_forward_only ON streams",
    "DROP TRIGGER IF EXISTS streams_no_truncate ON streams",
    "DROP FUNCTION IF EXISTS cardledger_append_only()",
    "DROP FUNCTION IF EXISTS cardledger_streams_forward()",
)


def upgrade() -> None:
    op.add_column("events", sa.Column("signature", sa.String(88)))
    op.add_column("events", sa.Column("key_id", sa.String(16)))
    op.add_column("streams", sa.Column("damage", sa.Text))
    op.add_column("table_imports", sa.Column("attestation", sa.String(88)))
    op.create_table(
        "stream_checks",
        sa.Column("stream", sa.String(64), sa.ForeignKey("streams.id"), primary_key=True),
        sa.Column("checked_at", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_index("ix_stream_checks_oldest", "stream_checks", ["checked_at"])
    _sign_recorded_heads(op.get_bind())
    statements = POSTGRES if op.get_bind().dialect.name == "postgresql" else SQLITE
    for statement in statements:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for statement in POSTGRES_DOWN:
            op.execute(statement)
    else:
        for statement in SQLITE:
            op.execute(f"DROP TRIGGER IF EXISTS {statement.split()[2]}")
    op.drop_index("ix_stream_checks_oldest", "stream_checks")
    op.drop_table("stream_checks")
    # Plain ALTER TABLE … DROP COLUMN (SQLite 3.35+): copying ``streams`` as batch mode
    # would, while event rows refer to it, breaks their foreign keys.
    op.drop_column("table_imports", "attestation")
    op.drop_column("streams", "damage")
    op.drop_column("events", "key_id")
    op.drop_column("events", "signature")


def _sign_recorded_heads(bind: sa.Connection) -> None:
    heads = bind.execute(sa.text("SELECT id, version, head FROM streams")).all()
    if not heads:
        return
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    private = Ed25519PrivateKey.from_private_bytes(base64.b64decode(_signing_key()))
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    key_id = hashlib.sha256(public).hexdigest()[:16]

    def sign(message: str) -> str:
        return base64.b64encode(private.sign(message.encode())).decode("ascii")

    imported = {
        row.table_id: row
        for row in bind.execute(sa.text("SELECT table_id, signed, key_id FROM table_imports"))
    }
    for stream, version, head in heads:
        mark = imported.get(stream)
        if mark is not None:  # its origin's signature was never kept: attest the mark only
            signed = "signed" if mark.signed else "unsigned"
            attested = sign(
                f"cardledger-import:v1:{stream}:{version}:{head}:{signed}:{mark.key_id or '-'}"
            )
            bind.execute(
                sa.text("UPDATE table_imports SET attestation = :a WHERE table_id = :t"),
                {"a": attested, "t": stream},
            )
            continue
        bind.execute(
            sa.text(
                "UPDATE events SET signature = :s, key_id = :k "
                "WHERE stream = :stream AND version = :version"
            ),
            {
                "s": sign(f"cardledger-head:v1:{stream}:{version}:{head}"),
                "k": key_id,
                "stream": stream,
                "version": version,
            },
        )


def _signing_key() -> str:
    """The server's private key (base64 of 32 bytes), created as the server would."""
    given = context.config.attributes.get("signing_key") or os.environ.get(
        "CARDLEDGER_SIGNING_KEY", ""
    )
    if given.strip():
        return given.strip()
    path = VAR_DIR / "signing-key"
    if path.is_file() and path.read_text(encoding="utf-8").strip():
        return path.read_text(encoding="utf-8").strip()
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    raw = Ed25519PrivateKey.generate().private_bytes(
        Encoding.Raw, PrivateFormat.Raw, NoEncryption()
    )
    key = base64.b64encode(raw).decode("ascii")
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".signing-key.", dir=VAR_DIR)  # mode 600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(key + "\n")
        os.link(temporary, path)
    except FileExistsError:
        return path.read_text(encoding="utf-8").strip()
    finally:
        os.unlink(temporary)
    return key
