"""Seat tokens: random, shown once, stored only as SHA-256 hashes (the HTTP edge,
``service.web.auth``, reads them from requests; commands issue them)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable

from sqlalchemy import Connection, insert, select

from service.storage.models import seat_tokens


def new_token() -> str:
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_seat_tokens(
    connection: Connection, table_id: str, seats: Iterable[int]
) -> dict[int, str]:
    """New tokens for these seats of a table; only their hashes are stored."""
    tokens = {seat: new_token() for seat in seats}
    if tokens:
        connection.execute(
            insert(seat_tokens),
            [
                {"table_id": table_id, "seat": s, "token_hash": hash_token(t)}
                for s, t in tokens.items()
            ],
        )
    return tokens


def seat_of_token(connection: Connection, token: str) -> tuple[str, int] | None:
    """The (table, seat) a seat token belongs to, or None for a token nobody was given."""
    row = connection.execute(
        select(seat_tokens.c.table_id, seat_tokens.c.seat).where(
            seat_tokens.c.token_hash == hash_token(token)
        )
    ).first()
    return None if row is None else (str(row.table_id), int(row.seat))
