"""Committed changes, told to whoever subscribed to them: what a command sets off
beyond its own transaction (waking a table's bots needs Celery, which runs commands
again), so a command never calls up into it.

The unit of work (``service.application.unit_of_work``) publishes each change once its
transaction has committed; ``service.running.app.create_app`` subscribes the app's
handlers (``subscribe``). A change nobody subscribed to is an error, never silently
dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from service.core.resources import Resources, resources
from service.storage.tablelog import TableLog


class TableChanged(NamedTuple):
    """A table was opened or acted at, and that is committed: a bot may now be the one to
    move (``service.jobs.botplay.wake_bots``)."""

    log: TableLog


KEY = "cardledger.subscribers"

Subscriber = Callable[[Any], None]


def subscribe(house: Resources, change: type, subscriber: Subscriber) -> None:
    """Make ``subscriber`` what hears of each committed ``change`` (a change's type) in
    ``house`` (an app's extensions, or a house of its own: ``service.core.resources``)."""
    house.setdefault(KEY, {})[change] = subscriber


def publish(change: Any) -> None:
    """Tell ``change`` (committed: the unit of work calls this only then) to its subscriber."""
    subscribers: dict[type, Subscriber] = resources().get(KEY, {})
    try:
        subscriber = subscribers[type(change)]
    except KeyError:
        raise LookupError(f"nobody subscribed to {type(change).__name__}") from None
    subscriber(change)
