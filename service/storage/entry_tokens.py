"""Entry tokens: each tournament entry's personal link, for the whole tournament
(``docs/api.md``, "Personal links (tournaments)").

Stored as seat tokens are, by SHA-256 only, and looked up by that hash. Unlike a seat
token, a slip printed again must show the same link, so the token is not random itself:
it is derived from a random nonce (stored) by the server's private key, which the
database does not hold (an Ed25519 signature is deterministic, RFC 8032). The database
alone gives no token away; the server recomputes each one whenever a slip is printed.
A re-issue draws a new nonce: the old token's hash is gone, so it stops at once.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Iterable

from sqlalchemy import Connection, insert, select, update

from service.core.signing import keyring
from service.storage.models import entry_tokens
from service.storage.seat_tokens import hash_token

#: What the server's key signs to make a token (the nonce is the only secret part).
MESSAGE = "cardledger-entry-token:v1:{tournament}:{entry}:{nonce}"
TOKEN_LENGTH = 32  # characters of URL-safe base64: 192 bits, as long as a seat token


def _token(tournament_id: str, entry: int, nonce: str) -> str:
    message = MESSAGE.format(tournament=tournament_id, entry=entry, nonce=nonce)
    signature = keyring().signer.sign(message.encode("utf-8"))
    digest = hashlib.sha256(signature.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:TOKEN_LENGTH]


def issue_entry_token(connection: Connection, tournament_id: str, entry: int) -> str:
    """The entry's token, new: its earlier one (if any) stops working now."""
    nonce = secrets.token_hex(16)
    token = _token(tournament_id, entry, nonce)
    values = {"nonce": nonce, "token_hash": hash_token(token)}
    replaced = connection.execute(
        update(entry_tokens)
        .where(entry_tokens.c.tournament_id == tournament_id, entry_tokens.c.entry == entry)
        .values(**values)
    )
    if replaced.rowcount == 0:
        connection.execute(
            insert(entry_tokens).values(tournament_id=tournament_id, entry=entry, **values)
        )
    return token


def entry_links(
    connection: Connection, tournament_id: str, entries: Iterable[int]
) -> dict[int, str | None]:
    """The current token of each of ``entries``, derived again (the same every time);
    ``None`` for an entry that has none yet, or whose token this server's key no longer
    derives (the key was replaced: only a re-issue gives that person a link again)."""
    wanted = set(entries)
    rows = connection.execute(
        select(entry_tokens.c.entry, entry_tokens.c.nonce, entry_tokens.c.token_hash).where(
            entry_tokens.c.tournament_id == tournament_id
        )
    ).all()
    found: dict[int, str | None] = dict.fromkeys(wanted)
    for row in rows:
        if row.entry in wanted:
            token = _token(tournament_id, row.entry, row.nonce)
            found[row.entry] = token if hash_token(token) == row.token_hash else None
    return found


def has_token(connection: Connection, tournament_id: str) -> set[int]:
    """The entries of a tournament that have been given a token."""
    return set(
        connection.scalars(
            select(entry_tokens.c.entry).where(entry_tokens.c.tournament_id == tournament_id)
        )
    )


def entry_of_token(connection: Connection, token: str) -> tuple[str, int] | None:
    """The (tournament, entry) an entry token belongs to, or None."""
    row = connection.execute(
        select(entry_tokens.c.tournament_id, entry_tokens.c.entry).where(
            entry_tokens.c.token_hash == hash_token(token)
        )
    ).first()
    return None if row is None else (str(row.tournament_id), int(row.entry))
