"""Events shared by every game, and their JSON form.

Events are immutable ``NamedTuple``s named in the past tense. They are tuples rather
than frozen dataclasses because the engines create millions of them in self-play and
tuple construction is several times cheaper; they are just as immutable. In JSON an
event is ``{"type": <class name>, "data": {field: value}}``: tuples become lists and a
field left at its ``None`` default is omitted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from domain.match import MatchRules
from domain.table import SeatSpec, Table


class TableOpened(NamedTuple):
    """A table was opened: its game, seats and rules. Always version 1 of a stream.

    ``salt``: the server's secret salt of the deal key (``docs/rules/common.md``, "Deterministic
    shuffling", rule 1); absent (None, so omitted from the JSON) in logs recorded before
    salts and in simulations, which deal from the seed alone.
    """

    game: str
    variant: str
    seats: tuple[Mapping[str, Any], ...]
    target_score: int | None
    max_deals: int | None
    seed: str | None
    first_dealer: int = 0
    rules: Mapping[str, Any] = {}
    salt: str | None = None

    @classmethod
    def of(cls, table: Table) -> TableOpened:
        seats = tuple(
            {k: v for k, v in (("name", s.name), ("bot", s.bot), ("player_id", s.player_id)) if v}
            for s in table.seats
        )
        return cls(
            table.game,
            table.variant,
            seats,
            table.match.target_score,
            table.match.max_deals,
            table.seed,
            table.first_dealer,
            dict(table.options),
            table.salt,
        )

    def table(self) -> Table:
        return Table(
            game=self.game,
            variant=self.variant,
            seats=tuple(SeatSpec(**dict(s)) for s in self.seats),
            match=MatchRules(self.target_score, self.max_deals),
            seed=self.seed,
            first_dealer=self.first_dealer,
            options=dict(self.rules),
            salt=self.salt,
        )


class MatchEnded(NamedTuple):
    """The match is over: final totals and the place of each seat (``None``: not ranked)."""

    totals: tuple[int, ...]
    ranking: tuple[int | None, ...]


def event_type(event: tuple) -> str:
    return type(event).__name__


def _json(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_json(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _json(v) for k, v in value.items()}
    return value


def _frozen(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, Mapping):
        return {k: _frozen(v) for k, v in value.items()}
    return value


def to_data(event: Any) -> dict[str, Any]:
    """The event's payload as JSON-ready values."""
    defaults = type(event)._field_defaults
    return {
        name: _json(value)
        for name, value in zip(event._fields, event, strict=True)
        if not (value is None and name in defaults)
    }


def from_data(cls: type, data: Mapping[str, Any]) -> Any:
    """Rebuild an event of class ``cls`` from its JSON payload."""
    defaults = cls._field_defaults  # type: ignore[attr-defined]
    return cls(*(_frozen(data[f] if f in data else defaults[f]) for f in cls._fields))  # type: ignore[attr-defined]
