"""A replay step in words: text with its cards as ``{"c": card}`` parts, so the page draws
them as cards (``pages/_cards.html``, ``parts``). Each game words its own events in its
module (``service/web/pages/games/<game>.py``); ``service.web.pages.replay`` words those
every game shares."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flask_babel import gettext

from domain.events import MatchEnded
from domain.games.registry import GameSpec
from domain.rulings import Adjusted
from domain.stand_ins import SeatReturned, SeatTakenOver
from service.web.pages.cards import cards_in
from service.web.pages.stand_ins import returned_step, taken_step

Part = str | dict[str, Any]
Names = Sequence[str]
#: An event's words, from its data and the seats' names.
StepWords = Callable[[Mapping[str, Any], Names], list[Part]]


def card_parts(values: Any) -> list[Part]:
    """The cards in ``values`` (any shape ``cards_in`` reads) as parts; hidden: said so."""
    return [{"c": c} for c in cards_in(values)] or [gettext("(hidden)")]


def who(data: Mapping[str, Any], names: Names) -> str:
    """The name of the event's seat (empty when it has none)."""
    seat = data.get("seat")
    return names[seat] if isinstance(seat, int) else ""


# --- the events every game has ---------------------------------------------------------------


def _deal_started(data: Mapping[str, Any], names: Names) -> list[Part]:
    return [gettext("Deal %(deal)s: %(name)s deals", deal=data["deal"], name=names[data["dealer"]])]


def trick_won(data: Mapping[str, Any], names: Names) -> list[Part]:
    """A completed trick and its winner (``Landmarks.trick_completed``): a game with
    tricks words them, with these words or its own."""
    return [
        gettext("Trick %(trick)s: %(name)s wins", trick=data["trick"], name=names[data["winner"]])
    ]


def _deal_scored(data: Mapping[str, Any], names: Names) -> list[Part]:
    """A deal's scores (Bestia: the balances after its settlement)."""
    settled = "balances" in data
    totals = data["balances"] if settled else data["scores"]
    shown = ", ".join(f"{names[s]} {v:+d}" for s, v in enumerate(totals))
    if settled:
        return [
            gettext("Deal %(deal)s settled: balances %(shown)s", deal=data["deal"], shown=shown)
        ]
    return [gettext("Deal %(deal)s scored: scores %(shown)s", deal=data["deal"], shown=shown)]


def _ruling(data: Mapping[str, Any], names: Names) -> list[Part]:
    points = f"{data['points']:+d}"
    return [
        gettext(
            "Director's ruling: %(name)s %(points)s (%(reason)s)",
            name=who(data, names),
            points=points,
            reason=data["reason"],
        )
    ]


def shared_words(spec: GameSpec) -> dict[str, StepWords]:
    """The words of the events every game has, by the names ``spec`` declares for them
    (``GameSpec.landmarks``): a deal begun and scored, the match over, a director's
    ruling, a seat handed to a bot and back. A game's own words (``GamePages.step_words``)
    come first."""
    marks = spec.landmarks
    return {
        marks.deal_started.__name__: _deal_started,
        marks.deal_scored.__name__: _deal_scored,
        MatchEnded.__name__: lambda data, names: [gettext("The match is over")],
        Adjusted.__name__: _ruling,
        SeatTakenOver.__name__: taken_step,
        SeatReturned.__name__: returned_step,
    }
