"""A table's log, decoded and folded: the read side of the event store.

Replay is the truth; this module only keeps, per process, the last decoded log and
folded state of each table, and extends it with the events recorded since. Events are
immutable, so an entry is either current or a prefix of the truth, never wrong
(``tests/service/test_tablelog.py`` checks cached and fresh replays agree).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import reduce
from typing import Any

from sqlalchemy import Connection

from domain.events import TableOpened, from_data
from domain.games import Rules, game
from domain.replay import event_from_json
from service.errors import ApiError
from service.eventstore import EventStore, StoredEvent, StreamNotFound


@dataclass(frozen=True, slots=True)
class TableLog:
    """A table at ``version``: its stored rows, its decoded events and the folded state."""

    id: str
    rows: tuple[StoredEvent, ...]
    events: tuple[Any, ...]  # decoded, TableOpened first: events[i] is version i + 1
    state: Any

    @property
    def version(self) -> int:
        return len(self.rows)

    @property
    def opened(self) -> TableOpened:
        return self.events[0]

    @property
    def rules(self) -> Rules:
        return game(self.opened.game)

    def state_at(self, version: int) -> Any:
        """The state after event ``version`` (1 = just opened)."""
        if version == self.version:
            return self.state
        rules = self.rules
        return reduce(
            rules.evolve, self.events[1:version], rules.initial_state(self.opened.table())
        )

    def extended(self, rows: list[StoredEvent]) -> TableLog:
        if not rows:
            return self
        decoded = [decode(self.opened.game, r) for r in rows]
        return TableLog(
            self.id,
            self.rows + tuple(rows),
            self.events + tuple(decoded),
            reduce(self.rules.evolve, decoded, self.state),
        )


def decode(game_id: str, row: StoredEvent) -> Any:
    return event_from_json(game_id, row.type, row.data, row.schema)


def fresh(table_id: str, rows: list[StoredEvent]) -> TableLog:
    """Fold a whole log from its ``TableOpened``."""
    opened = from_data(TableOpened, rows[0].data)
    start = TableLog(
        table_id, (rows[0],), (opened,), game(opened.game).initial_state(opened.table())
    )
    return start.extended(rows[1:])


class TableLogs:
    """The per-process cache of table logs (bounded, least recently used first out)."""

    def __init__(self, capacity: int = 256) -> None:
        self.capacity = capacity
        self._logs: OrderedDict[str, TableLog] = OrderedDict()
        self._lock = threading.Lock()

    def load(self, connection: Connection, table_id: str, version: int | None = None) -> TableLog:
        """The table as the database has it now (within the caller's transaction);
        ``version``: its head, when the caller has just read (and locked) it."""
        store = EventStore(connection)
        if version is None:
            try:
                version, _ = store.head(table_id)
            except StreamNotFound:
                raise ApiError(404, "not_found", f"there is no table {table_id}") from None
        with self._lock:
            cached = self._logs.get(table_id)
        try:
            if cached is None or cached.version > version:
                rows = store.read(table_id)
                if rows[0].type != "TableOpened":  # a tournament's or a player's stream
                    raise ApiError(404, "not_found", f"there is no table {table_id}")
                log = fresh(table_id, rows)
            elif cached.version == version:  # nobody appended since: nothing to read
                log = cached
            else:
                log = cached.extended(store.read(table_id, after=cached.version))
        except ApiError:
            raise
        except Exception as error:  # a row changed behind our back: no fold can be trusted
            raise ApiError(
                503,
                "unreadable_log",
                f"table {table_id}'s log cannot be read ({error!r}); the organiser's "
                "GET /tables/{id}/verify says where",
            ) from None
        self.remember(log)
        return log

    def remember(self, log: TableLog) -> None:
        with self._lock:
            cached = self._logs.get(log.id)
            if cached is None or cached.version <= log.version:
                self._logs[log.id] = log
                self._logs.move_to_end(log.id)
            while len(self._logs) > self.capacity:
                self._logs.popitem(last=False)
