"""What must follow a committed change, scheduled by whoever owned the transaction.

A command never calls up into what reacts to it (waking a table's bots needs Celery,
which runs commands again). Instead the code that opened and committed the transaction
calls ``after_commit(kind, ...)`` once it is committed, and the app's handler table
says what that kind of change sets off. ``service.running.app.create_app`` fills the table
(``register``); a kind nobody registered is an error, never silently dropped.

Kinds:

- ``TABLE_CHANGED`` (a ``TableLog`` just committed): a table was opened or acted at, so
  a bot may now be the one to move (``service.jobs.botplay.after_action``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.core.resources import Resources, resources

TABLE_CHANGED = "table_changed"

KEY = "cardledger.followups"

Handler = Callable[..., None]


def register(house: Resources, kind: str, handler: Handler) -> None:
    """Make ``handler`` what follows a committed change of ``kind`` in ``house`` (an app's
    extensions, or a house of its own: ``service.core.resources``)."""
    house.setdefault(KEY, {})[kind] = handler


def after_commit(kind: str, *args: Any) -> None:
    """Run what follows a committed change of ``kind`` (call it only once committed)."""
    handlers: dict[str, Handler] = resources().get(KEY, {})
    try:
        handler = handlers[kind]
    except KeyError:
        raise LookupError(f"no follow-up registered for {kind!r}") from None
    handler(*args)
