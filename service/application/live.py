"""Live updates: each process's one watcher of the streams its open connections follow
(``docs/api.md``, "Live updates").

A move may be recorded by any process (another web worker, a bot's Celery worker), so the
database is what tells: one thread per process reads the heads of every stream watched
here in one query, every ``INTERVAL`` seconds (SQLite and PostgreSQL alike), and wakes the
connections waiting on a ``threading.Condition`` when one of them moved. A connection
never touches the database while it waits; a process that watches nothing runs no thread.
A connection's stream (``service.web.api.watch``) is bounded in time and in number per
process, and ends at once when its server stops (``serving`` turns false).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from sqlalchemy import select

from service.core.refusals import Unavailable
from service.core.resources import resources
from service.storage.db import Database, get_database
from service.storage.models import streams, table_summaries, tournaments

logger = logging.getLogger(__name__)

#: How often the watcher reads the heads, in seconds: a move reaches the other phones
#: within about this much (and a round trip) of being recorded.
INTERVAL = 0.1
#: After a failed read (the database restarting), the watcher tries again this much later.
RETRY = 1.0
KEY = "cardledger.live"


class Head(NamedTuple):
    """A stream's head as a watcher sees it: its version, and whether it has ended (a
    table's match, a tournament)."""

    version: int
    finished: bool


class TooMany(Unavailable):
    """This process holds as many open streams as it may (``limit``)."""


def read_heads(database: Database, ids: Iterable[str]) -> dict[str, Head]:
    """The heads of ``ids``, in one query (a stream that does not exist is left out)."""
    wanted = list(ids)
    query = (
        select(
            streams.c.id,
            streams.c.version,
            table_summaries.c.status,
            tournaments.c.status.label("tournament_status"),
        )
        .select_from(
            streams.outerjoin(
                table_summaries, table_summaries.c.table_id == streams.c.id
            ).outerjoin(tournaments, tournaments.c.id == streams.c.id)
        )
        .where(streams.c.id.in_(wanted))
    )
    with database.reading() as connection:
        rows = connection.execute(query).all()
    return {
        row.id: Head(row.version, "finished" in (row.status, row.tournament_status)) for row in rows
    }


class Watchers:
    """The streams this process's connections watch, their heads, and the one thread
    that keeps the heads fresh while anybody watches (started on the first watch)."""

    def __init__(
        self,
        database: Database,
        limit: int,
        serving: Callable[[], bool] = lambda: True,
        interval: float = INTERVAL,
    ) -> None:
        self.database, self.limit, self.serving, self.interval = database, limit, serving, interval
        self._changed = threading.Condition()
        self._watched: Counter[str] = Counter()
        self._heads: dict[str, Head] = {}
        self._connections = 0
        self._running = False

    @property
    def connections(self) -> int:
        return self._connections

    def hold(self) -> Callable[[], None]:
        """Count one open stream of this process, refused beyond ``limit`` (``TooMany``);
        the answer lets it go (once, however often it is called)."""
        with self._changed:
            if self._connections >= self.limit:
                raise TooMany(
                    f"this server follows {self.limit} live streams per process already: "
                    "the page follows the table by asking instead",
                    "too_many_watchers",
                )
            self._connections += 1
        released = threading.Event()

        def release() -> None:
            with self._changed:
                if not released.is_set():
                    released.set()
                    self._connections -= 1

        return release

    def watch(self, ids: Iterable[str]) -> None:
        """Follow ``ids`` (once per call: ``unwatch`` them as many times)."""
        with self._changed:
            self._watched.update(ids)
            if not self._running and self._watched:
                self._running = True
                threading.Thread(target=self._run, name="cardledger-live", daemon=True).start()

    def unwatch(self, ids: Iterable[str]) -> None:
        with self._changed:
            self._watched.subtract(ids)
            for stream in [s for s, n in self._watched.items() if n <= 0]:
                del self._watched[stream]
                self._heads.pop(stream, None)

    def wait(self, known: Mapping[str, Head], timeout: float) -> dict[str, Head] | None:
        """The heads of ``known``'s streams once one differs from what the caller knows,
        or after ``timeout`` seconds (``{}``: nothing moved); ``None`` once the server
        stops serving. A stream the watcher has not read yet counts as unmoved."""

        def moved() -> bool:
            if not self.serving():
                return True
            return any(self._heads.get(s, head) != head for s, head in known.items())

        with self._changed:
            if not self._changed.wait_for(moved, timeout):
                return {}
            if not self.serving():
                return None
            return {s: self._heads[s] for s in known if s in self._heads}

    def _run(self) -> None:
        """Read the watched heads until nobody watches (or the server stops)."""
        while True:
            with self._changed:
                if not self._watched or not self.serving():
                    self._running = False
                    self._changed.notify_all()  # a stopping server ends every stream
                    return
                ids = list(self._watched)
            try:
                found = read_heads(self.database, ids)
            except Exception:  # the database is away: the streams wait, with heartbeats
                logger.warning("live updates: the heads could not be read", exc_info=True)
                time.sleep(RETRY)
                continue
            with self._changed:
                fresh = {s: h for s, h in found.items() if s in self._watched}
                if any(self._heads.get(s) != h for s, h in fresh.items()):
                    self._heads.update(fresh)
                    self._changed.notify_all()
            time.sleep(self.interval)


def watchers(limit: int, serving: Callable[[], bool] = lambda: True) -> Watchers:
    """The watchers of the house the caller runs in (one per app and process)."""
    house = resources()
    found: Watchers | None = house.get(KEY)
    if found is None:
        found = house.setdefault(KEY, Watchers(get_database(), limit, serving))
    return found
