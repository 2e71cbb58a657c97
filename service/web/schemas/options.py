"""A table's ``rules``: the options its game declares (``domain.games.options``), by name.

The schema bounds every value (a flag, a word or a modest number) and names, from the
games' declarations, each option with its type, default and help; which options a game
takes, with which values, is the engine's to say (``unknown_option``, ``invalid_option``:
``docs/api.md``, Opening a table).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import ValidationError, fields

from domain.errors import RuleViolation
from domain.games import SPECS
from domain.games.options import COMMON, Option

#: A rule option's value (``docs/rules/*.md``) is a flag, a word or a modest number.
MAX_OPTION_NUMBER = 10_000
MAX_OPTION_TEXT = 40


class OptionValue(fields.Field):
    """A rule option's value, within bounds; which options a game takes, with which values,
    is the engine's to say (``unknown_option``, ``invalid_option``)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault(
            "metadata",
            {
                "oneOf": [
                    {"type": "boolean"},
                    {
                        "type": "integer",
                        "minimum": -MAX_OPTION_NUMBER,
                        "maximum": MAX_OPTION_NUMBER,
                    },
                    {"type": "string", "maxLength": MAX_OPTION_TEXT},
                ]
            },
        )
        super().__init__(**kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and abs(value) <= MAX_OPTION_NUMBER:
            return value
        if isinstance(value, str) and len(value) <= MAX_OPTION_TEXT:
            return value
        raise ValidationError(
            f"a rule option is true or false, a whole number from -{MAX_OPTION_NUMBER} to "
            f"{MAX_OPTION_NUMBER} or a word of at most {MAX_OPTION_TEXT} characters"
        )


def _option_name(name: str) -> None:
    """No game has an option with an empty or a longer name: refused as the engine refuses
    any name it does not know, ``unknown_option`` (OpenAPI 3.0 cannot bound a key, so the
    spec could not call this a validation error)."""
    if not 1 <= len(name) <= MAX_OPTION_TEXT:
        shown = name[:MAX_OPTION_TEXT]
        raise RuleViolation("unknown_option", f"no game has a rule option named {shown!r}")


def option_schema(option: Option) -> dict[str, Any]:
    """A declared option as JSON Schema, within the bounds every value keeps."""
    if option.type == "bool":
        schema: dict[str, Any] = {"type": "boolean"}
    elif option.type == "choice":
        schema = {"type": "string", "enum": list(option.choices)}
    elif option.choices:
        schema = {"type": "integer", "enum": list(option.choices)}
    else:
        low = 0 if option.type == "seat" else option.minimum
        high = option.maximum
        schema = {
            "type": "integer",
            "minimum": -MAX_OPTION_NUMBER if low is None else max(low, -MAX_OPTION_NUMBER),
            "maximum": MAX_OPTION_NUMBER if high is None else min(high, MAX_OPTION_NUMBER),
        }
    if option.default is not None:
        schema["default"] = option.default
    words = f" Default: {option.default_words}." if option.default is None else ""
    return {**schema, "description": f"{option.help} Takes {option.takes}.{words}"}


def _declared(common: bool) -> dict[str, dict[str, Any]]:
    """Every option some game declares, by name, with the games that take it (``anyOf``
    where two games declare one name differently)."""
    games: dict[str, list[str]] = {}
    schemas: dict[str, list[dict[str, Any]]] = {}
    for spec in SPECS.values():
        own: Mapping[str, Option] = {**COMMON, **spec.options} if common else spec.options
        for name, option in own.items():
            games.setdefault(name, []).append(spec.id)
            found = schemas.setdefault(name, [])
            if option_schema(option) not in found:
                found.append(option_schema(option))
    out = {}
    for name, found in schemas.items():
        bare = [{k: v for k, v in s.items() if k != "description"} for s in found]
        said = " Or: ".join(s["description"] for s in found)
        schema = bare[0] if len(bare) == 1 else {"anyOf": bare}
        out[name] = {**schema, "description": f"{said} ({', '.join(games[name])})"}
    return out


def rules_field(*, common: bool = True, **kwargs: Any) -> fields.Dict:
    """``rules``: the game's options by name (``docs/rules/*.md``), bounded; ``common``:
    ``first_dealer`` too (a table's, not a tournament's or a simulation's)."""
    metadata = {
        "description": "The game's options (the games that take each are in brackets).",
        "properties": _declared(common),
        **kwargs.pop("metadata", {}),
    }
    return fields.Dict(
        keys=fields.String(validate=_option_name),
        values=OptionValue(),
        load_default=dict,
        metadata=metadata,
        **kwargs,
    )
