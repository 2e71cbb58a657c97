"""Bestia's table rules: the **Option**s of ``docs/rules/bestia.md``, declared, checked
and resolved.

``table.options`` holds what a club chose; anything left out takes the default of the
rules text (``OPTIONS``). :class:`Rules` is the resolved form the engine reads on every move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from domain.errors import RuleViolation
from domain.games.bestia.cards import deck, mask_of
from domain.games.options import Option, check, declared, with_defaults
from domain.table import Table

STANDARD = "standard"
VARIANTS = (STANDARD,)
MIN_PLAYERS, MAX_PLAYERS = 3, 8
HAND = 5  # cards per hand, and tricks per deal

#: The table options of ``docs/rules/bestia.md`` (Options), in its order.
OPTIONS: Mapping[str, Option] = declared(
    Option("deck", "choice", "short", "Which cards are in play.", choices=("short", "full")),
    Option("ante", "int", 2, "Chips each seat pays into the pot before a deal.", minimum=0,
           unit="chips"),
    Option("max_exchange", "int", 4, "The most cards a player may exchange.", minimum=0,
           maximum=HAND),
    Option("panfilo", "bool", True, "JC is the highest trump, and earns the panfilo bonus."),
    Option("must_undertrump", "bool", False, "A player who cannot overtrump must undertrump."),
    Option("multiple_bestia", "choice", "flat", "How several bestias in one deal pay.",
           choices=("flat", "doubling")),
    Option("trick_pay", "choice", "one", "What a trick takes from the pot.",
           choices=("one", "fifth")),
    Option("panfilo_bonus", "int", 1, "Chips the panfilo's holder receives.", minimum=0,
           unit="chips"),
)  # fmt: skip
#: Each option's default, as the engine applies it.
DEFAULTS: Mapping[str, Any] = with_defaults(OPTIONS, {})


class Rules(NamedTuple):
    """The table's options resolved, plus the deck they imply."""

    deck: tuple[int, ...]
    deck_mask: int
    ante: int
    max_exchange: int
    panfilo: bool
    must_undertrump: bool
    doubling: bool
    fifth: bool
    panfilo_bonus: int


def check_variant(table: Table) -> None:
    if table.variant not in VARIANTS:
        raise RuleViolation(
            "unknown_variant",
            f"Bestia has no variant {table.variant!r}; it is played as {STANDARD!r}",
        )


def check_options(table: Table) -> None:
    """Every option must be one of ``docs/rules/bestia.md`` and hold a value it allows."""
    check_variant(table)
    check("Bestia", OPTIONS, table.options)


def rules_of(table: Table) -> Rules:
    """The options with their defaults (assumes :func:`check_options` passed)."""
    o = {**DEFAULTS, **table.options}
    cards = deck(table.players, o["deck"])
    return Rules(
        deck=cards,
        deck_mask=mask_of(cards),
        ante=o["ante"],
        max_exchange=o["max_exchange"],
        panfilo=o["panfilo"],
        must_undertrump=o["must_undertrump"],
        doubling=o["multiple_bestia"] == "doubling",
        fifth=o["trick_pay"] == "fifth",
        panfilo_bonus=o["panfilo_bonus"],
    )
