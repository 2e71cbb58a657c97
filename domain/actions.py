"""Actions as JSON bodies, for every game: ``{"type": "<kind>", field: value, …}``.

Each game names its kinds (``"play"`` → ``Play``) and, where a JSON field is not a
Python name (Oh Quay's ``from``), how it is renamed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.errors import RuleViolation


def parse_action(
    game: str,
    kinds: Mapping[str, Any],
    body: Mapping[str, Any],
    renamed: Mapping[str, str] | None = None,
    convert: Callable[[Any], Any] = lambda value: value,
) -> Any:
    """An action from its JSON body; unknown types and fields are refused by name.

    The values themselves are the rules' to judge (``decide``).
    """
    renamed = renamed or {}
    kind = body.get("type")
    cls = kinds.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RuleViolation(
            "unknown_action", f"{game} has no action {kind!r}; use one of {', '.join(kinds)}"
        )
    fields = {renamed.get(k, k): k for k in body if k != "type"}
    unknown = [name for field, name in fields.items() if field not in cls._fields]
    if unknown:
        raise RuleViolation(
            "invalid_action", f"a {kind} action has no field {', '.join(sorted(unknown))}"
        )
    json_name = {python: name for name, python in renamed.items()}
    required = [f for f in cls._fields if f not in cls._field_defaults]
    missing = [json_name.get(f, f) for f in required if f not in fields]
    if missing:
        raise RuleViolation("invalid_action", f"a {kind} action needs {', '.join(missing)}")
    return cls(**{field: convert(body[name]) for field, name in fields.items()})


def action_body(
    type_of: Mapping[type, str], action: Any, renamed: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The JSON body of an action (fields left at ``None`` are omitted)."""
    json_name = {python: name for name, python in (renamed or {}).items()}
    out: dict[str, Any] = {"type": type_of[type(action)]}
    for name, value in zip(action._fields, action, strict=True):
        if value is not None:
            out[json_name.get(name, name)] = _json(value)
    return out


_PLAIN = frozenset((int, str, bool, float))


def _json(value: Any) -> Any:
    if type(value) in _PLAIN:  # most fields: no abstract-class checks (bots' hot path)
        return value
    if isinstance(value, tuple | list):
        return [_json(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _json(v) for k, v in value.items()}
    return value
