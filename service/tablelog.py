"""A table's log, decoded and folded: the read side of the event store.

Replay is the truth; this module only keeps, per process, the last decoded log and
folded state of each table, and extends it with the events recorded since. Events are
immutable, so an entry is either current or a prefix of the truth, never wrong
(``tests/service/test_tablelog.py`` checks cached and fresh replays agree).

Whatever rows a load reads are checked first: they must chain on from the hash before
them (``service.audit.chain_faults``), without a gap, decode and fold, and end exactly at
the stream's recorded head. A log that fails comes back as its verified prefix with the
first fault as its ``damage``: reads show that prefix, writes are refused
(``tests/service/test_damaged_log.py``). A log already cached at the head is used as it
is, unread and unhashed: that is every action's and most reads' path.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import reduce
from typing import Any

from sqlalchemy import Connection, select

from domain.audit import Problem
from domain.events import MatchEnded, TableOpened, from_data
from domain.games import Rules, game
from domain.replay import event_from_json
from service.audit import RawRow, chain_faults, head_fault
from service.eventstore import GENESIS, EventStore, StoredEvent, StreamNotFound
from service.failures import Conflict, NotFound
from service.models import events as event_rows


@dataclass(frozen=True, slots=True)
class TableLog:
    """A table at ``version``: its stored rows, its decoded events and the folded state."""

    id: str
    rows: tuple[StoredEvent, ...]
    events: tuple[Any, ...]  # decoded, TableOpened first: events[i] is version i + 1
    state: Any
    #: The first fault in the stored log after ``version`` (then rows, events and state
    #: are the verified prefix before it): the table takes no more writes.
    damage: Problem | None = None

    @property
    def version(self) -> int:
        return len(self.rows)

    @property
    def opened(self) -> TableOpened:
        return self.events[0]

    @property
    def rules(self) -> Rules:
        return game(self.opened.game)

    @property
    def finished(self) -> bool:
        """The match has ended: ``MatchEnded`` is the last event a table takes."""
        return type(self.events[-1]) is MatchEnded

    def state_at(self, version: int) -> Any:
        """The state after event ``version`` (1 = just opened)."""
        if version == self.version:
            return self.state
        rules = self.rules
        return reduce(
            rules.evolve, self.events[1:version], rules.initial_state(self.opened.table())
        )

    def folded(self, rows: list[StoredEvent]) -> TableLog:
        """Extended by ``rows`` up to the first that cannot be decoded or folded, which is
        then the log's ``damage``."""
        rules, game_id = self.rules, self.opened.game
        state, decoded = self.state, []
        damage = None
        for row in rows:
            code = "undecodable_event"
            try:
                event = decode(game_id, row)
                code = "replay_failed"
                state = rules.evolve(state, event)
            except Exception as error:  # a row the engine cannot take: the log stops here
                damage = Problem(row.version, code, f"version {row.version}: {error!r}")
                break
            decoded.append(event)
        kept = tuple(rows[: len(decoded)])
        return TableLog(self.id, self.rows + kept, self.events + tuple(decoded), state, damage)

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


def bot_to_move(log: TableLog) -> tuple[int, str] | None:
    """The first bot seat the table waits for, with its bot's name; else None."""
    seats = log.opened.seats
    for seat in log.rules.to_act(log.state):
        if seat < len(seats) and (name := seats[seat].get("bot")):
            return seat, str(name)
    return None


def decode(game_id: str, row: StoredEvent) -> Any:
    return event_from_json(game_id, row.type, row.data, row.schema)


def fresh(table_id: str, rows: list[StoredEvent]) -> TableLog:
    """Fold a whole log from its ``TableOpened``."""
    opened = from_data(TableOpened, rows[0].data)
    start = TableLog(
        table_id, (rows[0],), (opened,), game(opened.game).initial_state(opened.table())
    )
    return start.extended(rows[1:])


def damaged(log_id: str, damage: Problem) -> Conflict:
    """The answer to a write at a table whose stored log is damaged (``log_damaged``)."""
    return Conflict(
        f"table {log_id}'s stored log is damaged at version {damage.version} "
        f"({damage.code}: {damage.detail}), so it takes no more actions. The organiser's "
        f"GET /tables/{log_id}/verify lists every problem; restoring the damaged rows from a "
        "database backup (or from an export taken before the damage) makes it writable again.",
        "log_damaged",
        extra={"version": damage.version, "damaged": damage.as_dict()},
    )


def _read(
    store: EventStore, table_id: str, base: TableLog | None, until: int | None
) -> tuple[list[StoredEvent], Problem | None]:
    """The rows after ``base``; when one's data is not even JSON (the store decodes a
    read whole), those before the first fault, and the fault."""
    after, previous = (base.version, base.rows[-1].hash) if base else (0, GENESIS)
    try:
        return store.read(table_id, after=after, until=until), None
    except (ValueError, TypeError):
        pass
    column = event_rows.c
    query = select(event_rows).where(column.stream == table_id, column.version > after)
    if until is not None:
        query = query.where(column.version <= until)
    raw = [
        RawRow(r.version, r.type, r.schema, r.data, r.recorded_at, r.hash, r.actor)
        for r in store.connection.execute(query.order_by(column.version))
    ]
    fault = next(chain_faults(table_id, raw, previous, after + 1), None)
    if fault is None:  # unreachable: a row that is not JSON cannot be chained
        fault = Problem(after + 1, "unreadable_event", "a stored row is not JSON")
    good = [
        StoredEvent(table_id, r.version, r.type, r.schema, json.loads(r.data), r.recorded_at,
                    r.hash, r.actor)
        for r in raw[: fault.version - after - 1]
    ]  # fmt: skip
    return good, fault


def _verified(
    table_id: str,
    base: TableLog | None,
    read: tuple[list[StoredEvent], Problem | None],
    head: tuple[int, str],
) -> TableLog:
    """``base`` (or nothing) extended by the rows read after it, as far as they chain on
    from it, decode, fold and end at ``head``; the first fault is the log's ``damage``."""
    rows, known = read
    if base is None and rows and rows[0].type != "TableOpened":
        raise NotFound(f"there is no table {table_id}")  # another stream
    previous, start = (base.rows[-1].hash, base.version + 1) if base else (GENESIS, 1)
    fault = next(chain_faults(table_id, rows, previous, start), None) or known
    if fault is None:
        end, last = (rows[-1].version, rows[-1].hash) if rows else (start - 1, previous)
        fault = head_fault(end, last, head)
    good = rows if fault is None else rows[: fault.version - start]
    if base is None:
        try:
            base = fresh(table_id, good[:1])
        except Exception as error:  # no TableOpened, or one that cannot be read
            first = Problem(1, "undecodable_event", f"version 1: {error!r}")
            raise damaged(table_id, fault if fault and fault.version == 1 else first) from None
        good = good[1:]
    log = base.folded(good)
    return log if log.damage is not None or fault is None else replace(log, damage=fault)


class TableLogs:
    """The per-process cache of table logs (bounded, least recently used first out)."""

    def __init__(self, capacity: int = 256) -> None:
        self.capacity = capacity
        self._logs: OrderedDict[str, TableLog] = OrderedDict()
        self._lock = threading.Lock()

    def load(
        self, connection: Connection, table_id: str, head: tuple[int, str] | None = None
    ) -> TableLog:
        """The table as the database has it now (within the caller's transaction), every
        row read checked; ``head``: the stream's (version, hash) when the caller has just
        read and locked it (a writer), so rows beyond it are damage too."""
        store = EventStore(connection)
        locked = head is not None
        if head is None:
            try:
                head = store.head(table_id)
            except StreamNotFound:
                raise NotFound(f"there is no table {table_id}") from None
        with self._lock:
            cached = self._logs.get(table_id)
        if cached is not None and cached.version == head[0] and cached.rows[-1].hash == head[1]:
            log = cached  # nobody appended since: nothing to read, nothing to check
        else:
            base = cached if cached is not None and cached.version < head[0] else None
            # A reader's head is not locked: rows a writer commits after it are not ours yet.
            until = None if locked else head[0]
            log = _verified(table_id, base, _read(store, table_id, base, until), head)
        self.remember(log if log.damage is None else replace(log, damage=None))
        return log

    def forget(self, table_id: str) -> None:
        """Drop the table's entry: its next load replays and checks the whole log."""
        with self._lock:
            self._logs.pop(table_id, None)

    def remember(self, log: TableLog) -> None:
        with self._lock:
            cached = self._logs.get(log.id)
            if cached is None or cached.version <= log.version:
                self._logs[log.id] = log
                self._logs.move_to_end(log.id)
            while len(self._logs) > self.capacity:
                self._logs.popitem(last=False)
