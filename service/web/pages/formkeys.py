"""One-time form keys: a console form posted twice does its work once.

Every form the console renders carries a fresh random key (``FIELD``). The first post
with a key does the form's work and records the key with what it answered (its
``Outcome``: where it redirected, or that it showed a one-time secret); a second post of
the same key (a double tap, a reload, the back button, a retry on a bad connection) does
nothing and answers the same redirect, or a page saying the secret was shown already:
seat links are never issued twice by one form. Only a key's SHA-256 is stored.

Where the command takes the caller's transaction (a new table, a seat's new link, a
round's slips), the key is recorded in the very transaction of the work (``once``): both
are recorded or neither. A table action (an adjustment, a recorded deal) hands the key to
the command as its Idempotency-Key (``service.application.tables.act``), which records it with the
action. The tournament commands open their own transactions, so there the key is claimed
first and completed after (``claimed``): a second post waits for the first's outcome, and
a refused post releases its key (nothing was done, so sending it again is harmless).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from flask import request
from flask_babel import gettext
from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from service.storage.db import get_database
from service.storage.models import form_keys
from service.storage.transactions import writing
from service.web.problems import ApiError

FIELD = "form_key"
_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,64}")
#: How long a key's outcome is kept: longer than any page stays open on a phone.
KEEP = timedelta(days=2)
#: How long a second post waits for the first one's outcome.
WAIT_SECONDS = 20.0
_POLL_SECONDS = 0.05

T = TypeVar("T")


def new_key() -> str:
    """A form's one-time key (128 random bits)."""
    return secrets.token_urlsafe(16)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a form's first post answered: a redirect, or a one-time secret shown (``shown``
    names it, ``back`` is where to go for a new one). ``repeated``: this is a later post."""

    redirect: str | None = None
    shown: str | None = None
    back: str | None = None
    repeated: bool = False

    def json(self) -> str:
        return json.dumps({"redirect": self.redirect, "shown": self.shown, "back": self.back})

    @classmethod
    def stored(cls, text: str) -> Outcome:
        found = json.loads(text)
        return cls(found.get("redirect"), found.get("shown"), found.get("back"), repeated=True)


@dataclass(frozen=True, slots=True)
class PostedKey:
    key: str
    hash: str
    form: str


def posted() -> PostedKey:
    """This post's form key; a post without one (a page from before keys, a hand-made
    request) is refused, 400 ``form_key``: every console form is idempotent."""
    key = request.form.get(FIELD, "")
    if not _SHAPE.fullmatch(key):
        raise ApiError(
            400,
            "form_key",
            gettext("this form has no valid one-time key: reload the page and send it again"),
        )
    return PostedKey(key, hashlib.sha256(key.encode()).hexdigest(), request.path[:200])


def idempotency_key(key: PostedKey) -> str:
    """The key as a table action's Idempotency-Key (``service.application.tables.act``)."""
    return f"console-form:{key.key}"


class _Raced(Exception):
    """Another post of the same key recorded it first (PostgreSQL: after waiting for it)."""


_PENDING = object()


def _find(connection: Connection, key: PostedKey) -> Outcome | object | None:
    """The key's outcome, ``_PENDING`` while its work is under way, ``None`` if unseen."""
    row = connection.execute(
        select(form_keys.c.form, form_keys.c.outcome).where(form_keys.c.key_hash == key.hash)
    ).first()
    if row is None:
        return None
    if row.form != key.form:
        said = gettext("this form's key was sent with another form: reload the page")
        raise ApiError(409, "form_key_reused", said)
    return _PENDING if row.outcome is None else Outcome.stored(row.outcome)


def _claim(connection: Connection, key: PostedKey) -> None:
    now = datetime.now(UTC)
    connection.execute(
        delete(form_keys).where(
            form_keys.c.created_at < (now - KEEP).isoformat(timespec="microseconds")
        )
    )
    try:
        connection.execute(
            insert(form_keys).values(
                key_hash=key.hash,
                form=key.form,
                outcome=None,
                created_at=now.isoformat(timespec="microseconds"),
            )
        )
    except IntegrityError:
        raise _Raced() from None


def _complete(connection: Connection, key: PostedKey, outcome: Outcome) -> None:
    connection.execute(
        update(form_keys).where(form_keys.c.key_hash == key.hash).values(outcome=outcome.json())
    )


def _awaited(key: PostedKey) -> Outcome | None:
    """The outcome of the first post of ``key``, once it has one; ``None`` if that post
    was refused (its key released). A first post still at work after ``WAIT_SECONDS``
    (or one that died half-way) answers a page that says so (409 ``form_pending``)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        with get_database().reading() as connection:
            found = _find(connection, key)
        if found is None or isinstance(found, Outcome):
            return found
        if time.monotonic() > deadline:
            raise ApiError(
                409,
                "form_pending",
                gettext(
                    "this form was sent a moment ago and is still being recorded: open the "
                    "page again in a moment to see what it did"
                ),
            )
        time.sleep(_POLL_SECONDS)


def once(work: Callable[[Connection], tuple[T, Outcome]]) -> T | Outcome:
    """Do ``work`` in one transaction that also records the posted key with the outcome
    it returns, and answer what ``work`` made; a repeated key answers the first
    ``Outcome`` (``repeated``) and does nothing."""
    key = posted()
    for _ in range(2):
        try:
            with writing() as connection:  # a command joining it publishes after its commit
                earlier = _find(connection, key)
                if isinstance(earlier, Outcome):
                    return earlier
                if earlier is None:
                    _claim(connection, key)
                    made, outcome = work(connection)
                    _complete(connection, key, outcome)
                    return made
        except _Raced:
            pass
        settled = _awaited(key)  # pending elsewhere, or recorded by a racing post
        if settled is not None:
            return settled
    raise ApiError(
        409, "form_pending", gettext("this form is being sent twice at once: reload the page")
    )


@contextmanager
def _released_on_error(key: PostedKey) -> Iterator[None]:
    try:
        yield
    except BaseException:
        with get_database().writing() as connection:
            connection.execute(
                delete(form_keys).where(
                    form_keys.c.key_hash == key.hash, form_keys.c.outcome.is_(None)
                )
            )
        raise


def claimed(run: Callable[[], Outcome]) -> Outcome:
    """Claim the posted key, ``run`` the command (its own transactions), then record its
    outcome; a repeated key waits for and answers the first outcome. A refusal releases
    the key."""
    key = posted()
    for _ in range(2):
        try:
            with get_database().writing() as connection:
                earlier = _find(connection, key)
                if earlier is None:
                    _claim(connection, key)
        except _Raced:
            earlier = _PENDING
        if isinstance(earlier, Outcome):
            return earlier
        if earlier is _PENDING:
            settled = _awaited(key)
            if settled is None:
                continue  # the first post was refused: this one may try
            return settled
        with _released_on_error(key):
            outcome = run()
        with get_database().writing() as connection:
            _complete(connection, key, outcome)
        return outcome
    raise ApiError(
        409, "form_pending", gettext("this form is being sent twice at once: reload the page")
    )


def outcome_of(found: Any) -> Outcome | None:
    """``found`` if it is a first outcome answered again, else ``None``."""
    return found if isinstance(found, Outcome) and found.repeated else None


__all__ = ["FIELD", "Outcome", "claimed", "idempotency_key", "new_key", "once", "posted"]
