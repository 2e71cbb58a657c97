"""What a table is before any card is dealt: the game, its seats and its rules."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from domain.match import MatchRules
from domain.shuffle import deal_seed

ORGANISER = "organiser"
Viewer = int | str | None
"""Who looks: a seat number, ``ORGANISER`` (sees everything) or ``None`` (the public)."""


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who sits in a seat: a named person, a registered player, or a bot."""

    name: str | None = None
    bot: str | None = None
    player_id: str | None = None


@dataclass(frozen=True, slots=True)
class Table:
    """A table's fixed configuration, as recorded by ``TableOpened``.

    ``seed`` and ``salt`` are secret until the match ends (the service publishes the
    commitment of ``"{salt}:{seed}"``); the engine needs them only to shuffle seeded
    deals. ``salt`` None: deals come from the seed alone (simulations, and tables
    recorded before salts existed).
    """

    game: str
    variant: str
    seats: tuple[SeatSpec, ...]
    match: MatchRules = field(default_factory=MatchRules)
    seed: str | None = None
    first_dealer: int = 0
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    salt: str | None = None

    def deal_seed(self, deal: int) -> str:
        """The seed of seeded deal ``deal``: ``"{salt}:{seed}/{deal}"`` (``docs/rules/common.md``,
        "Deterministic shuffling", rule 1); ``"{seed}/{deal}"`` when unsalted."""
        if self.seed is None:
            raise ValueError("a table without a seed deals only recorded deals")
        return deal_seed(self.seed, deal, self.salt)

    @property
    def players(self) -> int:
        return len(self.seats)
