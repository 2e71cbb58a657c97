"""How an imported table came here: vouched for by a trusted key, or imported unsigned because
the organiser asked for it. Kept beside the log (``table_imports``), never in it, so an
imported log stays byte-identical to the export it came from.

The mark carries this server's attestation (its signature of the import: stream, head and
origin key), so a table recorded here cannot be passed off in the database as an unsigned
import to escape the check that its head is signed (``service.storage.streams``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, insert, select

from service.core.signing import import_message, keyring
from service.storage.eventstore import StoredEvent, now
from service.storage.models import table_imports


def record_import(
    connection: Connection, table_id: str, key_id: str | None, head: StoredEvent
) -> None:
    """Mark ``table_id`` imported with ``head``, signed by ``key_id`` (None: unsigned)."""
    message = import_message(table_id, head.version, head.hash, key_id)
    connection.execute(
        insert(table_imports).values(
            table_id=table_id,
            signed=key_id is not None,
            key_id=key_id,
            imported_at=now(),
            attestation=keyring().signer.sign(message),
        )
    )


def import_mark(connection: Connection, table_id: str) -> dict[str, Any] | None:
    """``{"signed", "key_id", "at"}`` for an imported table; None for one opened here."""
    row = connection.execute(
        select(table_imports).where(table_imports.c.table_id == table_id)
    ).first()
    if row is None:
        return None
    return {"signed": row.signed, "key_id": row.key_id, "at": row.imported_at}
