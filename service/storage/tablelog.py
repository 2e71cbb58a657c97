"""A table's log, decoded and folded: the table kind of ``service.storage.streams``.

Everything about reading, checking and caching is the streams' own; this module says
how a table's rows decode and fold (its game's rules, from its ``TableOpened``) and
what a table's log can tell about itself: who plays each seat, among others (the opening's
bots overlaid with the seats taken over, ``domain.stand_ins``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from typing import Any

from sqlalchemy import Connection

from domain import stand_ins
from domain.audit import Problem
from domain.events import MatchEnded, TableOpened, from_data
from domain.games import Rules, game
from domain.replay import event_from_json
from service.core.refusals import Conflict, NotFound
from service.core.resources import resources
from service.storage.damage import LogDamaged, Origin, origin_of
from service.storage.eventstore import StoredEvent
from service.storage.guard import GUARD_KEY, Guard
from service.storage.streams import StreamLog, Streams, fold

KIND = "table"
LOGS_KEY = "cardledger.tablelogs"


@dataclass(frozen=True, slots=True)
class TableLog(StreamLog):
    """A table at ``version``: its stored rows, its decoded events and the folded state."""

    @property
    def opened(self) -> TableOpened:
        opened: TableOpened = self.events[0]
        return opened

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


def takeovers(log: TableLog) -> stand_ins.Takeovers:
    """The seats the organiser handed to a bot and has not handed back, by seat.

    Asked several times by every action, so each table's last answer is kept with the head
    it was folded to (version and hash: the chain names that prefix of the log for good),
    and only the events after it are folded again."""
    seen = _TAKEOVERS.get(log.id)
    start, taken = 0, {}
    if seen is not None:
        version, head, known = seen
        if version <= log.version and (version == 0 or log.rows[version - 1].hash == head):
            start, taken = version, known
    if start < log.version:
        taken = stand_ins.taken_over(log.events[start:], taken)
        _TAKEOVERS[log.id] = (log.version, log.head, taken)
    return taken


#: Each table's takeovers as last folded: (version, head hash, takeovers).
_TAKEOVERS: dict[str, tuple[int, str, stand_ins.Takeovers]] = {}


def playing(log: TableLog) -> tuple[str | None, ...]:
    """Which bot plays each seat of the opening now (its own, or the one it was handed
    to); ``None`` for a person playing their own seat."""
    return stand_ins.playing(log.opened.seats, takeovers(log))


def bot_to_move(log: TableLog) -> tuple[int, str] | None:
    """The first seat the table waits for that a bot plays, with its bot's name; else None."""
    bots = playing(log)
    for seat in log.rules.to_act(log.state):
        if seat < len(bots) and (name := bots[seat]):
            return seat, str(name)
    return None


def refuse_taken_over(log: TableLog, seat: int) -> None:
    """A person's own token acting for a seat the organiser handed to a bot: refused (409
    ``seat_taken_over``) until the seat is handed back; looking at it is still theirs."""
    held = takeovers(log).get(seat)
    if held is not None:
        raise Conflict(
            f"the organiser handed this seat to the {held.bot} bot ({held.reason}), which "
            "plays it now: ask the organiser to hand it back to you",
            "seat_taken_over",
        )


def decode(game_id: str, row: StoredEvent) -> Any:
    return event_from_json(game_id, row.type, row.data, row.schema)


def opening(table_id: str, first: StoredEvent, origin: Origin | None = None) -> TableLog:
    """A table's log at version 1, from its ``TableOpened`` row."""
    if first.type != "TableOpened":
        raise NotFound(f"there is no table {table_id}")
    opened = from_data(TableOpened, first.data)
    state = game(opened.game).initial_state(opened.table())
    return TableLog(table_id, (first,), (opened,), state, origin=origin)


def fresh(table_id: str, rows: list[StoredEvent]) -> TableLog:
    """Fold a whole log from its ``TableOpened`` (rows already checked, or a test's)."""
    return fold(TableKind(), opening(table_id, rows[0]), rows[1:])


class TableKind:
    """How a table's rows decode and fold: by its game's rules."""

    name = KIND

    def start(self, connection: Connection, stream_id: str, first: StoredEvent) -> TableLog:
        return opening(stream_id, first, origin_of(connection, stream_id))

    def decode(self, log: TableLog, row: StoredEvent) -> Any:
        return decode(log.opened.game, row)

    def evolve(self, log: TableLog, state: Any, event: Any) -> Any:
        return log.rules.evolve(state, event)


class TableLogs(Streams[TableLog]):
    """The per-process cache of table logs."""

    def __init__(self, guard: Guard, capacity: int = 256) -> None:
        super().__init__(TableKind(), guard, capacity)


def damaged(log_id: str, damage: Problem) -> LogDamaged:
    """The answer to a write at a table whose stored log is damaged (``log_damaged``)."""
    return LogDamaged(KIND, log_id, damage)


def table_logs_of(found: Any) -> TableLogs:
    """The cached table logs among ``found`` (an app's extensions or a house)."""
    logs: TableLogs | None = found.get(LOGS_KEY)
    if logs is None:
        guard: Guard = found.setdefault(GUARD_KEY, Guard())
        logs = found.setdefault(LOGS_KEY, TableLogs(guard))
    return logs


def table_logs() -> TableLogs:
    """The cached table logs of the house the caller runs in."""
    return table_logs_of(resources())


__all__ = [
    "TableLog",
    "TableLogs",
    "bot_to_move",
    "damaged",
    "playing",
    "refuse_taken_over",
    "table_logs",
    "takeovers",
]
