"""The house a command works in: the database, the cached logs, the signing keys and the
follow-up handlers of one running application, found without Flask.

Commands take plain arguments and reach these shared resources through :func:`resources`.
The Flask app (``service.running.app``) tells this module how to find its own (``app.extensions``
of the app handling the request); a Celery task runs inside that app; a test or a script
may install any mapping with :func:`housed`, so a command runs with no Flask at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

Resources = MutableMapping[str, Any]
CONFIG_KEY = "cardledger.config"

_installed: ContextVar[Resources | None] = ContextVar("cardledger_house", default=None)
_finders: list[Callable[[], Resources]] = []


def resources() -> Resources:
    """The resources installed here (:func:`housed`), else the web app's."""
    found = _installed.get()
    if found is not None:
        return found
    if not _finders:
        raise LookupError("no house: run inside the app, or install resources with housed()")
    return _finders[0]()


def find_with(finder: Callable[[], Resources]) -> None:
    """How to find the running web app's resources (``service.running.app`` says it once)."""
    if not _finders:
        _finders.append(finder)


@contextmanager
def housed(installed: Resources) -> Iterator[Resources]:
    """Run the block with ``installed`` as the house (tests, scripts)."""
    token = _installed.set(installed)
    try:
        yield installed
    finally:
        _installed.reset(token)
