"""Directors' rulings: the organiser adjusts a seat's points (or chips) with a reason.

A ruling is an action like any other (``Adjust`` → ``Adjusted``), recorded in the log,
shown in the history and the totals, and re-checked by verification. It is common to
every game; a game whose totals need more care (Bestia's chips and pot) defines
``totals(state)``, ``check_adjust(state, seat, points)`` and ``adjust(state, seat, points)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from domain.errors import RuleViolation


class Adjust(NamedTuple):
    seat: int
    points: int
    reason: str


class Adjusted(NamedTuple):
    seat: int
    points: int
    reason: str


def parse(body: Mapping[str, Any]) -> Adjust:
    unknown = set(body) - {"type", "seat", "points", "reason"}
    if unknown:
        raise RuleViolation(
            "invalid_action", f"an adjust action has no field {', '.join(sorted(unknown))}"
        )
    seat, points, reason = body.get("seat"), body.get("points"), body.get("reason")
    if type(seat) is not int:
        raise RuleViolation("invalid_action", "an adjust action names the seat")
    if type(points) is not int or points == 0:
        raise RuleViolation("invalid_adjustment", "points must be a whole number other than 0")
    if not isinstance(reason, str) or not reason.strip():
        raise RuleViolation("invalid_adjustment", "a ruling gives its reason")
    return Adjust(seat, points, reason.strip())


def decide(module: Any, state: Any, action: Adjust) -> list[Adjusted]:
    """Allowed at any moment of the match, before it ends (the ranking is final then)."""
    if state.phase == "finished":
        raise RuleViolation("match_finished", "the match is over; its ranking is final")
    totals = module.totals(state) if hasattr(module, "totals") else state.totals
    if not 0 <= action.seat < len(totals):
        raise RuleViolation("unknown_seat", f"there is no seat {action.seat} at this table")
    if hasattr(module, "check_adjust"):
        module.check_adjust(state, action.seat, action.points)
    return [Adjusted(action.seat, action.points, action.reason)]


def evolve(module: Any, state: Any, event: Adjusted) -> Any:
    custom = getattr(module, "adjust", None)
    if custom is not None:
        return custom(state, event.seat, event.points)
    totals = list(state.totals)
    totals[event.seat] += event.points
    return state._replace(totals=tuple(totals))
