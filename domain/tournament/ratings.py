"""Players and their ratings: an OpenSkill (Plackett–Luce) rating per registered player,
updated after every finished table that seats at least two of them.

Only registered players are rated: guests entered by name, bots and Lopaka (the dummy
seat, ``ranking`` ``None``) take no part, and the others are placed among themselves by
their table totals (higher first, equal totals sharing a place). The order in which
tables are rated changes the ratings, so the service records each rating as an event
(``TableRated``) in one ledger stream: replaying that stream rebuilds the same ladder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from openskill.models import PlackettLuce

MODEL = PlackettLuce()


class PlayerRegistered(NamedTuple):
    """A person known across tournaments (a stream of ``kind="player"``)."""

    name: str


class TableRated(NamedTuple):
    """A finished table entered the ratings: its rated players and their places."""

    table: str
    players: tuple[str, ...]
    places: tuple[int, ...]


class Rating(NamedTuple):
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """A conservative skill estimate (mu - 3 sigma): the ladder's order."""
        return self.mu - 3 * self.sigma


INITIAL = Rating(MODEL.mu, MODEL.sigma)


def rated_places(
    seats: Sequence[str | None], totals: Sequence[int], ranking: Sequence[int | None]
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The registered players of a finished table (``seats``: player id or ``None`` per
    seat) and their places among themselves; fewer than two → nothing to rate."""
    rated = [
        (player, totals[seat])
        for seat, player in enumerate(seats)
        if player is not None and ranking[seat] is not None
    ]
    if len(rated) < 2:
        return (), ()
    places = tuple(1 + sum(1 for _, o in rated if o > t) for _, t in rated)
    return tuple(p for p, _ in rated), places


def rate(before: Sequence[Rating], places: Sequence[int]) -> list[Rating]:
    """Everyone's rating after one table (lower place = better)."""
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = MODEL.rate(teams, ranks=list(places))
    return [Rating(team[0].mu, team[0].sigma) for team in after]
