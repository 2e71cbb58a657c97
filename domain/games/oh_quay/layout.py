"""Who plays, who starts, and how a shuffled deck becomes quays and canals.

- Two seats, 0 and 1, one variant (``standard``).
- Table options (``docs/rules/oh-quay.md``): ``max_turns`` (int ≥ 1, default 200; the
  **Decision** that caps a game) and ``first_player`` (0 or 1).
- The first game's starter is the option ``first_player`` when given, else the table's
  ``first_dealer`` (0 unless the table says otherwise); in later games the loser of the
  previous game starts, after a tie the player who did not start it (Setup).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.errors import RuleViolation
from domain.games.options import Option, check, declared
from domain.table import Table

STANDARD = "standard"
VARIANTS = (STANDARD,)
PLAYERS = 2
SEATS = (0, 1)
PILE = 9  # cards per quay and per canal at the deal
DEFAULT_MAX_TURNS = 200
#: The table options of ``docs/rules/oh-quay.md`` (Table options).
OPTIONS: Mapping[str, Option] = declared(
    Option("max_turns", "int", DEFAULT_MAX_TURNS, "The turns after which a game ends.",
           minimum=1, unit="turns"),
    Option("first_player", "seat", None, "Who starts the first game.", choices=SEATS,
           default_words="the table's first_dealer"),
)  # fmt: skip


def check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise RuleViolation(
            "unknown_variant",
            f"Oh Quay has no variant {variant!r}; choose one of {', '.join(VARIANTS)}",
        )


def check_players(players: int) -> None:
    if players != PLAYERS:
        raise RuleViolation(
            "wrong_player_count", f"Oh Quay is played by {PLAYERS} players, not {players}"
        )


def check_options(options: Mapping[str, object]) -> None:
    """Unknown options are refused by name, bad values with what the option takes."""
    check("Oh Quay", OPTIONS, options)


def max_turns(table: Table) -> int:
    return int(table.options.get("max_turns", DEFAULT_MAX_TURNS))


def first_starter(table: Table) -> int:
    """``first_player`` if set, else ``first_dealer`` (a seat, checked here)."""
    if type(table.first_dealer) is not int or table.first_dealer not in SEATS:
        raise RuleViolation("invalid_rules", "first_dealer must be seat 0 or 1")
    if "first_player" in table.options:
        return int(table.options["first_player"])
    return table.first_dealer


def next_starter(starter: int, scores: Sequence[int]) -> int:
    """The loser of the game just scored starts the next; after a tie, the other player."""
    if scores[0] != scores[1]:
        return 0 if scores[0] < scores[1] else 1
    return 1 - starter


def seeded_piles(
    deck: Sequence[str], starter: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """Setup: positions 0–8 the starter's quay, 9–17 their canal, 18–26 the other's quay,
    27–35 the other's canal, order kept. Returns ``(quays, canals)`` indexed by seat."""
    piles = [tuple(deck[i : i + PILE]) for i in range(0, 4 * PILE, PILE)]
    quays: list[tuple[str, ...]] = [(), ()]
    canals: list[tuple[str, ...]] = [(), ()]
    quays[starter], canals[starter] = piles[0], piles[1]
    quays[1 - starter], canals[1 - starter] = piles[2], piles[3]
    return tuple(quays), tuple(canals)
