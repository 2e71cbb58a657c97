"""A tournament's state: ``fold(evolve, events)`` over its stream.

``evolve`` returns a new state and shares everything it does not change: recording a
table's result copies only that round's results, so folding a 1,000-entry, 10-round
tournament stays linear enough for the standings benchmark (``bench/standings.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from domain.tournament.events import (
    EntryAdded,
    EntryReturned,
    EntryWithdrawn,
    RoundSeated,
    TableFinished,
    TournamentCreated,
    TournamentFinished,
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of the tournament; ``player_id`` links a registered player (rated)."""

    entry: int
    name: str
    player_id: str | None = None
    withdrawn: bool = False


@dataclass(frozen=True, slots=True)
class SeatedTable:
    """A table of a round: the entry at each seat (``None``: a bot)."""

    table: str
    round: int
    number: int
    seats: tuple[int | None, ...]
    first_dealer: int


@dataclass(frozen=True, slots=True)
class Round:
    """A seated round, its byes, and the results of the tables that finished."""

    number: int
    tables: tuple[SeatedTable, ...]
    byes: tuple[int, ...]
    results: Mapping[str, TableFinished] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return len(self.results) == len(self.tables)


@dataclass(frozen=True, slots=True)
class Tournament:
    """Everything the tournament's events say; ``where`` finds a table's round."""

    config: TournamentCreated
    entries: Mapping[int, Entry] = field(default_factory=dict)
    rounds: tuple[Round, ...] = ()
    where: Mapping[str, int] = field(default_factory=dict)  # table id -> round number
    finished: bool = False

    @property
    def current(self) -> Round | None:
        """The last seated round (finished or not)."""
        return self.rounds[-1] if self.rounds else None

    @property
    def in_progress(self) -> bool:
        """A round has tables still playing."""
        return bool(self.rounds) and not self.rounds[-1].finished

    @property
    def rounds_played(self) -> int:
        """Seated rounds whose tables have all finished."""
        return sum(1 for r in self.rounds if r.finished)

    def active(self) -> list[int]:
        """Entries that may still be seated."""
        return [e.entry for e in self.entries.values() if not e.withdrawn]

    def table(self, table_id: str) -> SeatedTable | None:
        number = self.where.get(table_id)
        if number is None:
            return None
        return next(t for t in self.rounds[number - 1].tables if t.table == table_id)


def _created(_: Tournament | None, e: TournamentCreated) -> Tournament:
    return Tournament(config=e)


def _entry_added(s: Tournament, e: EntryAdded) -> Tournament:
    return replace(s, entries={**s.entries, e.entry: Entry(e.entry, e.name, e.player_id)})


def _entry_withdrawn(s: Tournament, e: EntryWithdrawn) -> Tournament:
    entry = replace(s.entries[e.entry], withdrawn=True)
    return replace(s, entries={**s.entries, e.entry: entry})


def _entry_returned(s: Tournament, e: EntryReturned) -> Tournament:
    entry = replace(s.entries[e.entry], withdrawn=False)
    return replace(s, entries={**s.entries, e.entry: entry})


def _round_seated(s: Tournament, e: RoundSeated) -> Tournament:
    tables = tuple(
        SeatedTable(t["table"], e.round, n, tuple(t["seats"]), t["first_dealer"])
        for n, t in enumerate(e.tables, start=1)
    )
    where = {**s.where, **{t.table: e.round for t in tables}}
    return replace(s, rounds=(*s.rounds, Round(e.round, tables, tuple(e.byes))), where=where)


def _table_finished(s: Tournament, e: TableFinished) -> Tournament:
    i = e.round - 1
    seated = s.rounds[i]
    done = replace(seated, results={**seated.results, e.table: e})
    return replace(s, rounds=(*s.rounds[:i], done, *s.rounds[i + 1 :]))


def _tournament_finished(s: Tournament, _: TournamentFinished) -> Tournament:
    return replace(s, finished=True)


_EVOLVE: Mapping[type, Any] = {
    TournamentCreated: _created,
    EntryAdded: _entry_added,
    EntryWithdrawn: _entry_withdrawn,
    EntryReturned: _entry_returned,
    RoundSeated: _round_seated,
    TableFinished: _table_finished,
    TournamentFinished: _tournament_finished,
}


def evolve(state: Tournament | None, event: Any) -> Tournament:
    """The state after ``event`` (``None`` before ``TournamentCreated``)."""
    result: Tournament = _EVOLVE[type(event)](state, event)
    return result


def fold(events: Iterable[Any], state: Tournament | None = None) -> Tournament:
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise ValueError("a tournament's stream starts with TournamentCreated")
    return state
