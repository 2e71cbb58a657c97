"""Who is asking: the organiser, one seat of a table, or the public.

Bearer tokens: the organiser's comes from the configuration; seat tokens are random,
returned once at table creation, and stored only as SHA-256 hashes. A tournament entry's
personal token acts as the token of the seat its entry holds in the current round
(``service.application.entries``). Comparisons are
constant-time (``hmac.compare_digest``), and a seat token is looked up by its hash, so
timing reveals nothing about a secret.
"""

from __future__ import annotations

import hmac

from flask import current_app, request
from sqlalchemy import Connection, select

from domain.table import ORGANISER, Viewer
from service.application.entries import seat_of_entry_token
from service.core.config import Config
from service.storage.db import get_database
from service.storage.models import seat_tokens
from service.storage.seat_tokens import hash_token, issue_seat_tokens, new_token
from service.web.problems import ApiError

__all__ = [
    "ORGANISER",
    "Viewer",
    "hash_token",
    "issue_seat_tokens",
    "new_token",
    "require_organiser",
    "require_player",
    "viewer_of",
    "viewer_of_token",
]


def bearer() -> str | None:
    """The request's bearer token (werkzeug's ``request.authorization``); an Authorization
    header that is not ``Bearer <token>`` is a 401."""
    if "Authorization" not in request.headers:
        return None
    authorization = request.authorization  # None when the header cannot be read at all
    if authorization is None or authorization.type != "bearer" or not authorization.token:
        raise ApiError(401, "unauthorized", "use 'Authorization: Bearer <token>'")
    return authorization.token


def is_organiser(token: str) -> bool:
    config: Config = current_app.config["CARDLEDGER"]
    expected = config.admin_token
    return expected is not None and hmac.compare_digest(token.encode(), expected.encode())


def require_organiser() -> None:
    token = bearer()
    if token is None:
        raise ApiError(401, "unauthorized", "this needs the organiser's token")
    if not is_organiser(token):
        raise ApiError(403, "forbidden", "only the organiser may do this")


def require_player(table_id: str, why: str) -> Viewer:
    """The organiser or a seat of ``table_id``, else 401 (``why``): decided from the header
    and at most one lookup, so a route refuses a forged token before it reads the body."""
    token = bearer()
    if token is None:
        raise ApiError(401, "unauthorized", why)
    if is_organiser(token):
        return ORGANISER
    with get_database().reading() as connection:
        return viewer_of_token(connection, table_id, token)


def viewer_of(connection: Connection, table_id: str) -> Viewer:
    """The organiser, a seat of ``table_id``, or ``None`` (the public, no token)."""
    return viewer_of_token(connection, table_id, bearer())


def viewer_of_token(connection: Connection, table_id: str, token: str | None) -> Viewer:
    """Who ``token`` is at ``table_id``; an unknown token is a 401."""
    if not token:
        return None
    if is_organiser(token):
        return ORGANISER
    seat = connection.scalar(
        select(seat_tokens.c.seat).where(
            seat_tokens.c.table_id == table_id, seat_tokens.c.token_hash == hash_token(token)
        )
    )
    if seat is None:
        seat = seat_of_entry_token(connection, table_id, token)
    if seat is None:
        raise ApiError(401, "unauthorized", "this token is not valid for this table")
    return int(seat)
