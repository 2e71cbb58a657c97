"""Seats taken over: the organiser hands an absent person's seat to a bot, and back
(docs/api.md, "Seats taken over").

Who plays a seat is the table's business, not the rules': like a director's ruling
(``domain.rulings``) the two events are every game's, dispatched by the wrapper
``domain.games.Rules``, and they leave the game's state as it was. Who moves each seat is
folded from the log instead (``taken_over``, ``playing``): the table's opening bots,
overlaid with the takeovers in force. The seat still belongs to its person for the
ranking and the standings.

Deciding is in two halves, because the game's state does not know who plays a seat:
``decide`` checks what the table knows (the match not over, a person's seat of the
opening, a reason), which is all a re-check of a recorded log (``domain.audit``) can ask;
``check`` adds what the log's takeovers in force say (a seat a bot already plays, a seat
not taken over), which the command asks before it records anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from domain.errors import RuleViolation
from domain.rulings import MAX_REASON


class TakeOverSeat(NamedTuple):
    """The organiser hands ``seat`` to ``bot`` (for an absent person), saying why."""

    seat: int
    bot: str
    reason: str


class ReturnSeat(NamedTuple):
    """The organiser hands ``seat`` back to its person."""

    seat: int


class SeatTakenOver(NamedTuple):
    seat: int
    bot: str
    reason: str


class SeatReturned(NamedTuple):
    seat: int


#: The events, by the names they are stored under (every game's: ``Rules.EVENT_TYPES``).
EVENT_TYPES: Mapping[str, type] = {"SeatTakenOver": SeatTakenOver, "SeatReturned": SeatReturned}
EVENTS = (SeatTakenOver, SeatReturned)
ACTIONS = (TakeOverSeat, ReturnSeat)

#: The takeovers in force, by seat.
Takeovers = Mapping[int, SeatTakenOver]


def decide(state: Any, action: TakeOverSeat | ReturnSeat) -> list[Any]:
    """The event ``action`` records, as far as the table (``state.table``, ``state.phase``)
    can tell: allowed until the match ends, for a person's seat of the opening only (a
    bot's seat has no one to stand in for)."""
    if state.phase == "finished":
        raise RuleViolation("match_finished", "the match is over: its seats are played no more")
    seats = state.table.seats
    seat = action.seat
    if type(seat) is not int or not 0 <= seat < len(seats):
        raise RuleViolation(
            "unknown_seat", f"this table has seats 0 to {len(seats) - 1}, not {seat!r}"
        )
    if seats[seat].bot:
        raise RuleViolation(
            "bot_seat", f"seat {seat} is the {seats[seat].bot} bot's from the start: no person "
            "to stand in for", seat=seat
        )  # fmt: skip
    if isinstance(action, ReturnSeat):
        return [SeatReturned(seat)]
    if not isinstance(action.bot, str) or not action.bot:
        raise RuleViolation("invalid_takeover", "a takeover names the bot that plays the seat")
    reason = action.reason.strip() if isinstance(action.reason, str) else ""
    if not reason:
        raise RuleViolation("invalid_takeover", "a takeover gives its reason")
    if len(reason) > MAX_REASON:
        raise RuleViolation(
            "invalid_takeover", f"a takeover's reason has at most {MAX_REASON} characters"
        )
    return [SeatTakenOver(seat, action.bot, reason)]


def check(taken: Takeovers, action: TakeOverSeat | ReturnSeat) -> None:
    """What the takeovers in force (``taken_over``) refuse: a seat a bot already plays
    (``already_taken_over``), or handing back a seat no bot plays (``not_taken_over``)."""
    held = taken.get(action.seat)
    if type(action) is TakeOverSeat and held is not None:
        raise RuleViolation(
            "already_taken_over",
            f"seat {action.seat} is played by the {held.bot} bot already: hand it back first",
            seat=action.seat,
        )
    if type(action) is ReturnSeat and held is None:
        raise RuleViolation(
            "not_taken_over",
            f"seat {action.seat} is played by its person: nothing to hand back",
            seat=action.seat,
        )


def evolve(taken: Takeovers, event: Any) -> Takeovers:
    """The takeovers in force after ``event`` (any event of the log: others change nothing)."""
    kind = type(event)
    if kind is SeatTakenOver:
        return {**taken, event.seat: event}
    if kind is SeatReturned:
        return {seat: held for seat, held in taken.items() if seat != event.seat}
    return taken


def taken_over(events: Iterable[Any], taken: Takeovers | None = None) -> Takeovers:
    """The takeovers in force after ``events``, by seat (``taken``: those in force before
    them, when only the newer events are folded)."""
    taken = {} if taken is None else taken
    for event in events:
        if type(event) in EVENTS:
            taken = evolve(taken, event)
    return taken


def playing(seats: Sequence[Mapping[str, Any]], taken: Takeovers) -> tuple[str | None, ...]:
    """Which bot plays each seat of the opening (``TableOpened.seats``): its own bot, or
    the one it was handed to; ``None`` for a person playing their own seat."""
    return tuple(
        held.bot if (held := taken.get(s)) is not None else seat.get("bot")
        for s, seat in enumerate(seats)
    )


def action_of(event: SeatTakenOver | SeatReturned) -> TakeOverSeat | ReturnSeat:
    """The organiser's action ``event`` records."""
    if type(event) is SeatTakenOver:
        return TakeOverSeat(event.seat, event.bot, event.reason)
    return ReturnSeat(event.seat)


__all__ = [
    "ACTIONS",
    "EVENTS",
    "EVENT_TYPES",
    "ReturnSeat",
    "SeatReturned",
    "SeatTakenOver",
    "TakeOverSeat",
    "Takeovers",
    "action_of",
    "check",
    "decide",
    "evolve",
    "playing",
    "taken_over",
]
