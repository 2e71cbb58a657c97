"""A tournament's events: its own stream (``kind="tournament"``) in the event store.

Immutable ``NamedTuple``s in the past tense, with the JSON form of ``domain.events``
(``to_data`` / ``from_data``). A tournament's tables keep their own streams; the
tournament records only which entries sat where and how each table ended, so its
standings are a fold of this one stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from domain.events import from_data


class TournamentCreated(NamedTuple):
    """A tournament was announced: its game, table rules, pairing and scoring.

    ``salt``: the server's secret salt; the tables' seeds derive from the key
    ``"{salt}:{seed}"`` (``docs/rules/common.md``, "Deterministic shuffling", rule 1). None in a
    tournament recorded before salts, whose tables derive from the seed alone.
    """

    name: str
    game: str
    variant: str
    table_size: int
    pairing: str
    seed: str
    rounds: int | None = None  # None: open-ended, the organiser finishes it
    rules: Mapping[str, Any] = {}
    target_score: int | None = None
    max_deals: int | None = None  # both None: the game's default match
    fill_with_bots: str | None = None  # a bot kind, or None: byes
    bye_points: float | None = None  # None: the average match points of a full table
    match_points: tuple[int, ...] | None = None  # by place; None: n-1 … 0
    salt: str | None = None
    language: str | None = None  # the club's language (en, es, fi, fr) for slips and the wall


class EntryAdded(NamedTuple):
    """Someone entered (a guest by name, or a registered player)."""

    entry: int
    name: str
    player_id: str | None = None


class EntryWithdrawn(NamedTuple):
    """An entry left: its results stay, it is never seated again."""

    entry: int


class EntryReturned(NamedTuple):
    """A withdrawn entry came back (a withdrawal undone): seated again from the next round."""

    entry: int


class RoundSeated(NamedTuple):
    """A round's tables were opened. ``tables``: ``{"table", "seats", "first_dealer"}``
    with one entry number per seat (``None``: a bot); ``byes``: entries sitting out."""

    round: int
    tables: tuple[Mapping[str, Any], ...]
    byes: tuple[int, ...] = ()


class TableFinished(NamedTuple):
    """A table of a round ended its match: the ``MatchEnded`` totals and ranking."""

    table: str
    round: int
    totals: tuple[int, ...]
    ranking: tuple[int | None, ...]


class TournamentFinished(NamedTuple):
    """No more rounds: the standings are final."""

    rounds_played: int


EVENT_TYPES: Mapping[str, type] = {
    cls.__name__: cls
    for cls in (
        TournamentCreated,
        EntryAdded,
        EntryWithdrawn,
        EntryReturned,
        RoundSeated,
        TableFinished,
        TournamentFinished,
    )
}


def decode(kind: str, data: Mapping[str, Any]) -> Any:
    """A tournament event from its stored ``type`` and ``data``."""
    return from_data(EVENT_TYPES[kind], data)
