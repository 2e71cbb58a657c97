"""Bestia's table rules: the **Option**s of ``docs/rules/bestia.md``, checked and resolved.

``table.options`` holds what a club chose; anything left out takes the default of the
rules text. :class:`Rules` is the resolved form the engine reads on every move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from domain.errors import RuleViolation
from domain.games.bestia.cards import deck, mask_of
from domain.table import Table

STANDARD = "standard"
VARIANTS = (STANDARD,)
MIN_PLAYERS, MAX_PLAYERS = 3, 8
HAND = 5  # cards per hand, and tricks per deal

DEFAULTS: Mapping[str, Any] = {
    "deck": "short",
    "ante": 2,
    "max_exchange": 4,
    "panfilo": True,
    "must_undertrump": False,
    "multiple_bestia": "flat",
    "trick_pay": "one",
    "panfilo_bonus": 1,
}


def _count(low: int, high: int | None = None) -> Any:
    def ok(v: object) -> bool:
        return type(v) is int and v >= low and (high is None or v <= high)

    return ok


def _one_of(*values: str) -> Any:
    return lambda v: type(v) is str and v in values


def _flag(v: object) -> bool:
    return type(v) is bool


VALID = {
    "deck": (_one_of("short", "full"), "'short' or 'full'"),
    "ante": (_count(0), "a whole number of chips, 0 or more"),
    "max_exchange": (_count(0, HAND), "a whole number from 0 to 5"),
    "panfilo": (_flag, "true or false"),
    "must_undertrump": (_flag, "true or false"),
    "multiple_bestia": (_one_of("flat", "doubling"), "'flat' or 'doubling'"),
    "trick_pay": (_one_of("one", "fifth"), "'one' or 'fifth'"),
    "panfilo_bonus": (_count(0), "a whole number of chips, 0 or more"),
}


def shown(value: object) -> str:
    """An option's value as the rules text and the request body write it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"'{value}'" if isinstance(value, str) else str(value)


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
    for name, value in table.options.items():
        if name not in VALID:
            raise RuleViolation(
                "unknown_option",
                f"Bestia has no rule option {name!r}; options are {', '.join(VALID)}",
            )
        valid, wanted = VALID[name]
        if not valid(value):
            raise RuleViolation(
                "invalid_option", f"option {name} cannot be {value!r}: it takes {wanted}"
            )


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
