"""The organiser's browser sessions: what the console's cookie holds instead of the token.

The organiser's link (``/console?token=…``) is checked once and exchanged for a random
session id (256 bits); the cookie carries only that id. The database keeps its SHA-256
(a stolen copy of the table opens nothing), its expiry, and the SHA-256 of the organiser
token that opened it, so a session:

- ends when it expires (``SESSION_SECONDS``, a working day, as the cookie's ``Max-Age``),
- ends when the organiser logs out (the row is deleted: revoked in every process at once),
- ends when the organiser token is changed (``CARDLEDGER_ADMIN_TOKEN``): the hash no
  longer matches.

The JSON API stays bearer-only: a session opens pages, never the API. Plain functions of a
connection: no Flask here (``service.web.pages.session`` keeps the cookies).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, delete, insert, select

from service.storage.models import organiser_sessions

#: How long a session lasts: a club evening and its preparation.
SESSION_SECONDS = 12 * 3600


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _stamp(at: datetime) -> str:
    """UTC, ISO 8601 with microseconds: stamps of one format compare as text."""
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def open_session(connection: Connection, organiser_token: str) -> str:
    """A new session for the holder of ``organiser_token`` (already checked): its id."""
    session_id = secrets.token_urlsafe(32)
    now = datetime.now(UTC)
    connection.execute(
        delete(organiser_sessions).where(organiser_sessions.c.expires_at <= _stamp(now))
    )
    connection.execute(
        insert(organiser_sessions).values(
            id_hash=_hash(session_id),
            token_hash=_hash(organiser_token),
            created_at=_stamp(now),
            expires_at=_stamp(now + timedelta(seconds=SESSION_SECONDS)),
        )
    )
    return session_id


def session_valid(connection: Connection, session_id: str, organiser_token: str | None) -> bool:
    """Whether ``session_id`` is a live session opened with today's ``organiser_token``."""
    if organiser_token is None or not session_id or len(session_id) > 100:
        return False
    row = connection.execute(
        select(organiser_sessions.c.token_hash, organiser_sessions.c.expires_at).where(
            organiser_sessions.c.id_hash == _hash(session_id)
        )
    ).first()
    if row is None or row.expires_at <= _stamp(datetime.now(UTC)):
        return False
    return hmac.compare_digest(row.token_hash, _hash(organiser_token))


def close_session(connection: Connection, session_id: str) -> None:
    """Log out: the session stops opening anything, in every process."""
    connection.execute(
        delete(organiser_sessions).where(organiser_sessions.c.id_hash == _hash(session_id))
    )
