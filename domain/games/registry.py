"""The one place a game says what it is: a :class:`GameSpec`.

Each game package exposes ``SPEC`` (its ``__init__``); ``domain.games`` lists the
packages once and builds ``GAMES`` and ``SPECS`` from them, and everything that differs
per game elsewhere (bots, request schemas, pages, upcasting, the contract tests) is
derived from the specs. Pure domain: nothing here knows about HTTP or storage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any

EMPTY: Mapping[Any, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Everything Card Ledger needs to know about one game, outside its rules module.

    ``rules`` is the decider module (``initial_state``, ``decide``, ``evolve``,
    ``legal_actions``, ``to_act``, ``view``, ``visible_events``, ``parse``, ``body``,
    ``action_of``, ``check_options``, ``default_match``, ``EVENT_TYPES``, ``cards_of``,
    ``whereabouts`` and ``deck_of``: where each card of the deal lies, and the deck).
    ``bots`` is the dotted path of the module with its ``heuristic`` and ``montecarlo``
    choosers (a path, since bot modules import the game's own modules). ``deck`` is every
    card of the game as the views name it (for the pages' face templates). ``upcasters``
    and ``schemas`` are its event schema evolution (``domain.upcast``). ``house_seats``
    maps a variant to the seats the engine itself plays, by index into the per-seat lists
    (The Bottle Imp's Lopaka). ``starter_word`` is what the pages call the seat that
    begins a deal.
    """

    id: str
    name: str
    rules: ModuleType
    variants: tuple[str, ...]
    default_variant: str
    players: Mapping[str, tuple[int, ...]]  # variant -> the numbers of people it seats
    deck: tuple[Any, ...]
    bots: str
    options: Mapping[str, str] = field(
        default_factory=lambda: EMPTY
    )  # option name -> what it takes, and its default
    upcasters: Mapping[tuple[str, int], Any] = field(default_factory=lambda: EMPTY)
    schemas: Mapping[str, int] = field(default_factory=lambda: EMPTY)
    house_seats: Mapping[str, tuple[tuple[int, str], ...]] = field(default_factory=lambda: EMPTY)
    starter_word: str = "dealer"

    def __post_init__(self) -> None:
        if self.default_variant not in self.variants:
            raise ValueError(f"{self.id}: default variant {self.default_variant!r} not listed")
        if set(self.players) != set(self.variants):
            raise ValueError(f"{self.id}: player counts must be given for every variant")
        if self.id != self.rules.GAME_ID:
            raise ValueError(f"{self.id}: rules module says {self.rules.GAME_ID!r}")
        missing = [
            (kind, v)
            for kind, version in self.schemas.items()
            for v in range(1, version)
            if (kind, v) not in self.upcasters
        ]
        if missing:
            raise ValueError(f"{self.id}: no upcaster for {missing}")
