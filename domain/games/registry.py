"""The one place a game says what it is: a :class:`GameSpec`.

Each game package exposes ``SPEC`` (its ``__init__``); ``domain.games`` lists the
packages once and builds ``GAMES`` and ``SPECS`` from them, and everything that differs
per game elsewhere (bots, request schemas, pages, upcasting, the contract tests) is
derived from the specs. Pure domain: nothing here knows about HTTP or storage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from domain.games.action_specs import ActionSpec
from domain.games.interface import GameRules
from domain.games.landmarks import Landmarks
from domain.games.options import COMMON, Option

EMPTY: Mapping[Any, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Everything Card Ledger needs to know about one game, outside its rules module.

    ``rules`` is the decider module (``domain.games.interface.GameRules``). ``actions``
    declares each kind of action with its fields (``domain.games.action_specs``),
    ``landmarks`` the events other layers recognise (``domain.games.landmarks``) and
    ``options`` the table options (``domain.games.options``; ``first_dealer``, every
    game's, is not repeated). ``bots`` is the dotted path of the module with its
    ``heuristic`` and ``montecarlo`` choosers (a path, since bot modules import the game's
    own modules). ``deck`` is every card of the game as the views name it (for the pages'
    face templates). ``upcasters`` and ``schemas`` are its event schema evolution
    (``domain.upcast``). ``house_seats`` maps a variant to the seats the engine itself
    plays, by index into the per-seat lists (The Bottle Imp's Lopaka). ``starter_word`` is
    what the pages call the seat that begins a deal. ``docs/adding-a-game.md`` walks
    through each.
    """

    id: str
    name: str
    rules: GameRules
    variants: tuple[str, ...]
    default_variant: str
    players: Mapping[str, tuple[int, ...]]  # variant -> the numbers of people it seats
    deck: tuple[Any, ...]
    bots: str
    actions: Mapping[str, ActionSpec]
    landmarks: Landmarks
    options: Mapping[str, Option] = field(default_factory=lambda: EMPTY)
    upcasters: Mapping[tuple[str, int], Any] = field(default_factory=lambda: EMPTY)
    schemas: Mapping[str, int] = field(default_factory=lambda: EMPTY)
    house_seats: Mapping[str, tuple[tuple[int, str], ...]] = field(default_factory=lambda: EMPTY)
    starter_word: str = "dealer"
    #: Table options for a quick match, as tests and demonstrations open one when a whole
    #: deal is to be played through (Oh Quay: 8 turns rather than 200); empty when the
    #: game's deal is short anyway.
    quick_options: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    #: The JSON field names that hold a card or cards in the game's views, event data and
    #: action bodies: the tests find cards by them (``tests/contract/cards.py``), as Bottle
    #: Imp cards are integers and a value alone cannot tell a card from a count or a seat.
    card_fields: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.default_variant not in self.variants:
            raise ValueError(f"{self.id}: default variant {self.default_variant!r} not listed")
        if set(self.players) != set(self.variants):
            raise ValueError(f"{self.id}: player counts must be given for every variant")
        if self.id != self.rules.GAME_ID:
            raise ValueError(f"{self.id}: rules module says {self.rules.GAME_ID!r}")
        strays = [n for n, option in self.options.items() if option.name != n or n in COMMON]
        strays += [
            n for n, v in self.quick_options.items() if n not in self.options or not
            self.options[n].allows(v)
        ]  # fmt: skip
        if strays:
            raise ValueError(f"{self.id}: misnamed, common or disallowed options {strays}")
        events = set(self.rules.EVENT_TYPES.values())
        marked = {self.landmarks.deal_started, self.landmarks.deal_scored}
        if self.landmarks.trick_completed is not None:
            marked.add(self.landmarks.trick_completed)
        if not marked <= events:
            raise ValueError(f"{self.id}: a landmark is not one of its EVENT_TYPES")
        missing = [
            (kind, v)
            for kind, version in self.schemas.items()
            for v in range(1, version)
            if (kind, v) not in self.upcasters
        ]
        if missing:
            raise ValueError(f"{self.id}: no upcaster for {missing}")
