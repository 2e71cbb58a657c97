"""A game's actions, declared: each kind (the ``type`` of a JSON body, as ``legal_actions``
lists them), the action tuple it parses into, and the JSON type of each of its fields.

A game declares them once (``GameSpec.actions``); its ``parse`` reads its kinds from the
declaration, the API's action schema is built from it (``service/web/schemas/actions.py``:
one schema per game, by ``type``) and the pages refuse to start while a declared kind has
no drawer (``service/web/pages/games/checks.py``). The bodies are those of ``docs/api.md``
(Acting at a table); the cards are written as ``docs/rules/common.md`` says (Card notation).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

#: ``seat`` and ``number`` are integers, ``word`` a string (one of ``words`` when given),
#: ``text`` free text; ``card`` a card in the game's notation (an integer or a string, as
#: its deck writes cards), ``cards`` a list of them, ``piles`` a list of lists of them (per
#: seat), ``hands`` a recorded deal's hands per seat (lists, or piles by name).
FieldKind = Literal["seat", "number", "word", "text", "card", "cards", "piles", "hands"]


@dataclass(frozen=True, slots=True)
class FieldType:
    """The JSON type of one field of an action body, in the game's words."""

    kind: FieldKind
    words: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    max_length: int | None = None


SEAT = FieldType("seat")
NUMBER = FieldType("number")
CARD = FieldType("card")
CARDS = FieldType("cards")
PILES = FieldType("piles")
HANDS = FieldType("hands")


def word(*words: str) -> FieldType:
    """A string, one of ``words``."""
    return FieldType("word", words)


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One kind of action: the ``NamedTuple`` it parses into and its fields by JSON name.

    A JSON name Python claims (``from``, a keyword; ``count``, a tuple method) is the
    tuple's field with a trailing underscore (``from_``); a field with no default in the
    tuple is one every body of the kind must give."""

    action: type
    fields: Mapping[str, FieldType]

    def __post_init__(self) -> None:
        named = {self.python_name(name) for name in self.fields}
        tuple_fields = set(_fields_of(self.action))
        if named != tuple_fields:
            raise ValueError(
                f"{self.action.__name__}: declared fields {sorted(named)} are not its fields "
                f"{sorted(tuple_fields)}"
            )

    def python_name(self, name: str) -> str:
        """The tuple's field of a JSON name (``from`` → ``from_``)."""
        return name if name in _fields_of(self.action) else f"{name}_"

    @property
    def required(self) -> tuple[str, ...]:
        """The JSON names every body of this kind gives."""
        defaults = self.action._field_defaults  # type: ignore[attr-defined]
        return tuple(n for n in self.fields if self.python_name(n) not in defaults)

    @property
    def renamed(self) -> dict[str, str]:
        """JSON name → tuple field, where they differ."""
        return {n: self.python_name(n) for n in self.fields if self.python_name(n) != n}


def _fields_of(action: type) -> tuple[str, ...]:
    fields: tuple[str, ...] = action._fields  # type: ignore[attr-defined]
    return fields


def kinds_of(actions: Mapping[str, ActionSpec]) -> dict[str, Any]:
    """Kind → action tuple, as ``domain.actions.parse_action`` takes them."""
    return {kind: spec.action for kind, spec in actions.items()}


def renamed_of(actions: Mapping[str, ActionSpec]) -> dict[str, str]:
    """Every JSON name → tuple field renaming of a game's actions."""
    return {k: v for spec in actions.values() for k, v in spec.renamed.items()}
