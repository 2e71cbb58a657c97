"""A write transaction of the app's database, and what it leaves for after it.

A stream found damaged inside a write transaction cannot be marked from inside (the
transaction holds the stream's lock): it is marked once the transaction is over, whatever
its outcome. The logs a transaction appended are remembered by their caches only once it
has committed, so a fold made in a transaction that rolled back is never taken for the
truth; and what must follow the commit (``when_committed``: the unit of work's
publishing, ``service.application.unit_of_work``) runs after that, never before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from sqlalchemy import Connection

from domain.audit import Problem
from service.storage.damage import mark, mark_on
from service.storage.db import get_database

L = TypeVar("L")


class Cache(Protocol[L]):
    """What keeps the logs a transaction appended (``service.storage.streams.Streams``)."""

    def remember(self, log: L) -> None: ...


@dataclass(slots=True)
class _Transaction:
    """What a write transaction leaves for after it: damage found inside it (marked
    whatever the outcome), logs it appended (remembered only once committed) and what
    follows its commit (run last, only once committed)."""

    connection: Connection | None = None
    found: list[tuple[str, Problem | None]] = field(default_factory=list)
    appended: list[tuple[Cache[Any], Any]] = field(default_factory=list)
    then: list[Callable[[], None]] = field(default_factory=list)


_current: ContextVar[_Transaction | None] = ContextVar("cardledger_transaction", default=None)


@contextmanager
def writing() -> Iterator[Connection]:
    """A write transaction of the app's database. A stream found damaged inside it is
    marked in the database once it is over, which it could not be from inside (the
    transaction holds the stream's lock); the logs appended inside it are remembered by
    their caches only once it has committed, and then what follows its commit runs."""
    outer = _current.get()
    if outer is not None:  # already inside one: it owns what follows
        with get_database().writing() as connection:
            yield connection
        return
    done = _Transaction()
    token = _current.set(done)
    committed = False
    try:
        with get_database().writing() as connection:
            done.connection = connection
            yield connection
        committed = True
    finally:
        _current.reset(token)
        if committed:
            for cache, log in done.appended:
                cache.remember(log)
        for stream_id, problem in done.found:
            mark(stream_id, problem)
    for action in done.then:  # committed (an error above skips this)
        action()


def is_writing(connection: Connection) -> bool:
    """Whether ``connection`` is the one of the write transaction (``writing``) this runs
    in: work done on it may leave what follows to that transaction's commit."""
    current = _current.get()
    return current is not None and current.connection is connection


def when_committed(action: Callable[[], None]) -> None:
    """Run ``action`` once the write transaction this runs in has committed, after its
    logs are remembered and its damage marked (nothing, if it rolls back)."""
    current = _current.get()
    if current is None:
        raise RuntimeError("when_committed outside a write transaction (writing)")
    current.then.append(action)


def remember_when_committed(cache: Cache[L], log: L) -> None:
    """Have ``cache`` keep ``log`` (just appended) once the write transaction commits;
    outside ``writing`` at once (the caller committed)."""
    current = _current.get()
    if current is None:
        cache.remember(log)
    else:
        current.appended.append((cache, log))


def note_damage(stream_id: str, problem: Problem | None) -> None:
    """Mark (or, with None, clear) a stream's damage mark: after the write transaction this
    runs in, if any; else now, in a transaction of its own (a reader holds no lock in the
    way); else, inside a plain write transaction of this thread, from another thread
    once that one is over."""
    current = _current.get()
    if current is not None:
        current.found.append((stream_id, problem))
        return
    try:
        mark(stream_id, problem)
    except RuntimeError:
        database = get_database()
        threading.Thread(target=mark_on, args=(database, stream_id, problem)).start()
