"""What every game's ``decide`` shares: the phase and seat checks that give the same
codes in every game, the engine's own follow-up events, and the dispatch by action type."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from domain.errors import RuleViolation


def expect_phase(phase: str, *phases: str) -> None:
    """``match_finished`` after the end, ``wrong_phase`` for any other phase."""
    if phase == "finished":
        raise RuleViolation("match_finished", "the match is over; no more actions are taken")
    if phase not in phases:
        raise RuleViolation(
            "wrong_phase", f"this action belongs to the {' or '.join(phases)} phase, not {phase}"
        )


def check_seat(seat: object, seats: int) -> int:
    """``seat`` as a seat index below ``seats`` (a bool is not a seat), else ``unknown_seat``."""
    if type(seat) is not int or not 0 <= seat < seats:
        raise RuleViolation("unknown_seat", f"there is no seat {seat!r} at this table")
    return seat


def with_consequences(
    state: Any,
    events: Iterable[Any],
    evolve: Callable[[Any, Any], Any],
    automatic: Callable[[Any], Any],
) -> list[Any]:
    """``events`` followed by what the engine does by itself after them (a trick taken,
    a deal scored, the match ended), until ``automatic`` has nothing more to add."""
    out = list(events)
    for event in out:
        state = evolve(state, event)
    while (nxt := automatic(state)) is not None:
        out.append(nxt)
        state = evolve(state, nxt)
    return out


def dispatch(
    game_name: str, rules: Mapping[type, Callable[[Any, Any], list[Any]]], state: Any, action: Any
) -> list[Any]:
    """The rule for ``action``'s type applied to ``state``; ``unknown_action`` otherwise."""
    rule = rules.get(type(action))
    if rule is None:
        raise RuleViolation("unknown_action", f"{game_name} has no action {action!r}")
    return rule(state, action)
