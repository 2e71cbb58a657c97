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

#: A ruling's bounds: more points than any match scores, and a reason a person would write.
MAX_POINTS = 1_000_000
MAX_REASON = 500


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
    seat = body.get("seat")
    if type(seat) is not int:
        raise RuleViolation("invalid_action", "an adjust action names the seat")
    points, reason = check_ruling(body.get("points"), body.get("reason"))
    return Adjust(seat, points, reason)


def check_ruling(points: Any, reason: Any) -> tuple[int, str]:
    """Whole points within ``MAX_POINTS`` and a reason within ``MAX_REASON``, for a new
    ruling (``parse``) and one read from an imported log (``decide``) alike: the points
    and the reason, stripped."""
    if type(points) is not int or points == 0 or abs(points) > MAX_POINTS:
        raise RuleViolation(
            "invalid_adjustment",
            f"points must be a whole number other than 0, from -{MAX_POINTS} to {MAX_POINTS}",
        )
    if not isinstance(reason, str) or not reason.strip():
        raise RuleViolation("invalid_adjustment", "a ruling gives its reason")
    if len(reason.strip()) > MAX_REASON:
        raise RuleViolation(
            "invalid_adjustment", f"a ruling's reason has at most {MAX_REASON} characters"
        )
    return points, reason.strip()


def decide(module: Any, state: Any, action: Adjust) -> list[Adjusted]:
    """Allowed at any moment of the match, before it ends (the ranking is final then)."""
    check_ruling(action.points, action.reason)
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
