"""Table options, declared: what a game takes in a table's ``rules`` beside its match.

Each game declares its options in its ``SPEC`` (``GameSpec.options``) as :class:`Option`
values, the way OpenSpiel declares a game's parameters: a name, a type, a default, the
choices or bounds, and help. The game's ``check_options`` validates through them
(:func:`check`), and the API's schema of ``rules``, the console's form and the rules page
read them too, so none of them can disagree with the engine (``docs/api.md``, Opening a
table: ``unknown_option``, ``invalid_option``). ``first_dealer`` is every game's option
(``docs/rules/common.md``, "Seats and directions"): :data:`COMMON`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from domain.errors import RuleViolation

#: ``int`` a whole number (within ``minimum``/``maximum``), ``bool`` true or false,
#: ``choice`` one of the ``choices`` (words), ``seat`` a seat of the table (one of
#: ``choices`` when the game allows only some).
OptionType = Literal["int", "bool", "choice", "seat"]
Value = bool | int | str


@dataclass(frozen=True, slots=True)
class Option:
    """One table option. ``default`` is the value the engine applies when a table leaves
    the option out, or ``None`` when that is not a plain value (Oh Quay's ``first_player``
    follows the table's ``first_dealer``): then ``default_words`` says what it is.
    ``unit`` is what a number counts, as the rules say it ("chips", "turns")."""

    name: str
    type: OptionType
    default: Value | None
    help: str
    choices: tuple[Value, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    unit: str = ""
    default_words: str = ""

    def __post_init__(self) -> None:
        if self.default is None and not self.default_words:
            raise ValueError(f"option {self.name}: a default, or words for it")
        if self.type == "choice" and not all(type(c) is str for c in self.choices or [None]):
            raise ValueError(f"option {self.name}: a choice is between words")
        if self.default is not None and not self.allows(self.default):
            raise ValueError(f"option {self.name}: its default {self.default!r} is not allowed")

    @property
    def takes(self) -> str:
        """What the option takes, in words: ``'short' or 'full'``, ``true or false``,
        ``a whole number of chips, 0 or more``, ``seat 0 or 1``."""
        if self.type == "bool":
            return "true or false"
        if self.type == "choice":
            return _either([f"'{c}'" for c in self.choices])
        if self.type == "seat":
            return f"seat {_either([str(c) for c in self.choices])}" if self.choices else (
                "a seat number of the table")  # fmt: skip
        low, high = self.minimum, self.maximum
        number = f"a whole number of {self.unit}" if self.unit else "a whole number"
        if low is not None and high is not None:
            return f"{number} from {low} to {high}"
        if low is not None:
            return f"{number}, {low} or more" if low <= 0 else f"{number}, at least {low}"
        return number if high is None else f"{number}, {high} or less"

    @property
    def default_text(self) -> str:
        """The default as a table's ``rules`` write it, or in words."""
        if self.default is None:
            return self.default_words
        return shown(self.default)

    def allows(self, value: object) -> bool:
        """Whether the option takes ``value`` (a bool is never a number)."""
        if self.type == "bool":
            return type(value) is bool
        if self.type == "choice":
            return type(value) is str and value in self.choices
        if type(value) is not int:
            return False
        if self.choices:
            return value in self.choices
        low = 0 if self.type == "seat" else self.minimum
        return (low is None or value >= low) and (self.maximum is None or value <= self.maximum)


def shown(value: Value) -> str:
    """A value as a table's ``rules`` write it: ``true``, ``'short'``, ``4``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"'{value}'" if isinstance(value, str) else str(value)


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def declared(*options: Option) -> Mapping[str, Option]:
    """A game's options by name, in the order the rules list them."""
    found = {o.name: o for o in options}
    if len(found) != len(options):
        raise ValueError("an option is declared twice")
    return MappingProxyType(found)


#: The option every game takes: the seat that deals first (``docs/rules/common.md``).
FIRST_DEALER = Option(
    "first_dealer", "seat", 0, "The seat that is dealer in the first deal (seat 0 unless set)."
)
COMMON: Mapping[str, Option] = declared(FIRST_DEALER)


def check(game: str, options: Mapping[str, Option], values: Mapping[str, object]) -> None:
    """Every name of ``values`` is an option of the game, with a value it takes:
    ``unknown_option`` names the option, ``invalid_option`` the value and what it takes."""
    for name, value in values.items():
        option = options.get(name)
        if option is None:
            listed = f"; its options are {', '.join(options)}" if options else ""
            raise RuleViolation("unknown_option", f"{game} has no rule option {name!r}{listed}")
        if not option.allows(value):
            raise RuleViolation(
                "invalid_option", f"option {name} cannot be {value!r}: it takes {option.takes}"
            )


def with_defaults(options: Mapping[str, Option], values: Mapping[str, object]) -> dict[str, object]:
    """``values`` with every option left out at its plain default (assumes :func:`check`)."""
    defaults = {name: o.default for name, o in options.items() if o.default is not None}
    return {**defaults, **values}
