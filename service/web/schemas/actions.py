"""``POST /tables/{id}/actions``: one action, its shape declared by each game
(``GameSpec.actions``, ``domain/games/action_specs.py``) and ``adjust`` by every game
(``domain.games.ADJUST``); the bodies are those of ``docs/api.md`` (Acting at a table).

The server loads a body with every field some game declares, each with its JSON type (one
schema for every table, so a refusal is the same ``validation_error`` wherever it is
sent; a name two games type differently is taken as it comes). The table's engine then
judges the kind, the fields and the cards (``unknown_action``, ``invalid_action``,
``unknown_card`` …). The spec says more, from the same declarations: for each game, a body
is one of its kinds, chosen by ``type`` (``oneOf``), with exactly that kind's fields and
the game's card notation (``docs/rules/common.md``, Card notation).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from marshmallow import RAISE, Schema, fields, validate

from domain.games import SPECS, game
from domain.games.action_specs import ActionSpec, FieldType
from domain.games.registry import GameSpec

#: Seats, positions and counts are small numbers: the schema refuses absurd ones, the engine
#: those its rules do not allow (``unknown_seat``, ``invalid_position`` …).
SMALL = 1000
SMALL_NUMBER = validate.Range(min=-SMALL, max=SMALL)


class CardField(fields.Raw):
    """A card in the game's notation (``docs/rules/common.md``): an integer or a string."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("metadata", {"oneOf": [{"type": "integer"}, {"type": "string"}]})
        super().__init__(**kwargs)


def _every_kind() -> dict[str, dict[str, ActionSpec]]:
    """Each kind of action some game takes, ``adjust`` last: game id → its declaration."""
    found: dict[str, dict[str, ActionSpec]] = {}
    for spec in SPECS.values():
        for kind, action in game(spec.id).actions.items():
            found.setdefault(kind, {})[spec.id] = action
    found["adjust"] = found.pop("adjust")
    return found


def _loading_field(types: list[FieldType]) -> fields.Field:
    """How the server loads a field, from every game's type of it."""
    if len({t.kind for t in types}) > 1:
        return fields.Raw()  # two games type it differently: the engines judge
    t = types[0]
    if t.kind in ("seat", "number"):
        low = -SMALL if t.minimum is None else t.minimum
        high = SMALL if t.maximum is None else t.maximum
        return fields.Integer(strict=True, validate=validate.Range(min=low, max=high))
    if t.kind in ("word", "text"):
        size = [] if t.max_length is None else [validate.Length(min=1, max=t.max_length)]
        return fields.String(validate=size)
    if t.kind == "card":
        return CardField()
    if t.kind == "cards":
        return fields.List(CardField())
    if t.kind == "piles":
        return fields.List(fields.List(CardField()))
    return fields.Raw()  # hands: lists, or piles by name (The Bottle Imp's Bright House)


def _loading_fields(kinds: Mapping[str, Mapping[str, ActionSpec]]) -> dict[str, fields.Field]:
    types: dict[str, list[FieldType]] = {}
    for declared in kinds.values():
        for action in declared.values():
            for name, t in action.fields.items():
                types.setdefault(name, []).append(t)
    loading = {name: _loading_field(found) for name, found in types.items()}
    return {"type": fields.String(required=True, validate=validate.OneOf(list(kinds))), **loading}


# --- what the spec says: for each game, one of its kinds by ``type`` -------------------------


def _card(spec: GameSpec) -> dict[str, Any]:
    notation = "integer" if all(type(c) is int for c in spec.deck) else "string"
    return {"type": notation}


def field_schema(t: FieldType, spec: GameSpec) -> dict[str, Any]:
    """A declared field as JSON Schema, in ``spec``'s card notation (a new dict each time:
    the spec has no shared nodes)."""
    if t.kind in ("seat", "number"):
        low = 0 if t.minimum is None else t.minimum
        return {
            "type": "integer",
            "minimum": low,
            "maximum": SMALL if t.maximum is None else t.maximum,
        }
    if t.kind == "word":
        return {"type": "string", "enum": list(t.words)} if t.words else {"type": "string"}
    if t.kind == "text":
        return {"type": "string", "minLength": 1, "maxLength": t.max_length or SMALL}
    if t.kind == "card":
        return _card(spec)
    if t.kind == "cards":
        return {"type": "array", "items": _card(spec)}
    if t.kind == "piles":
        return {"type": "array", "items": {"type": "array", "items": _card(spec)}}
    piles = {"type": "object", "additionalProperties": {"type": "array", "items": _card(spec)}}
    return {"type": "array", "items": {"oneOf": [{"type": "array", "items": _card(spec)}, piles]}}


def kind_schema(kind: str, action: ActionSpec, spec: GameSpec) -> dict[str, Any]:
    """One kind of action of one game: ``type`` names it, and it has exactly its fields."""
    return {
        "title": f"{spec.name}: {kind}",
        "type": "object",
        "required": ["type", *action.required],
        "properties": {
            "type": {"type": "string", "enum": [kind]},
            **{name: field_schema(t, spec) for name, t in action.fields.items()},
        },
        "additionalProperties": False,
    }


def game_schema(spec: GameSpec) -> dict[str, Any]:
    """Every action a table of ``spec``'s game takes, one of them by ``type``."""
    kinds = game(spec.id).actions
    return {
        "title": spec.name,
        "description": f"An action at a table of {spec.name} (game `{spec.id}`).",
        "oneOf": [kind_schema(kind, action, spec) for kind, action in kinds.items()],
    }


def _spec_of(kinds: Iterable[str]) -> dict[str, Any]:
    return {
        "description": "One action; which, and its fields, depend on the table's game.",
        "properties": {"type": {"type": "string", "enum": list(kinds)}},
        "additionalProperties": True,  # each game's schema below says which
        "anyOf": [game_schema(spec) for spec in SPECS.values()],
    }


_KINDS = _every_kind()


class _Action(Schema):
    class Meta:
        unknown = RAISE
        #: what each game declares, said in the spec (``service/web/openapi.py``)
        openapi: ClassVar[dict[str, Any]] = _spec_of(_KINDS)


#: ``POST /tables/{id}/actions``: types checked here, cards and rules by the engine.
ActionSchema = _Action.from_dict(_loading_fields(_KINDS), name="ActionSchema")
