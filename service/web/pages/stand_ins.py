"""Seats taken over, as the pages say them (``docs/api.md``, "Seats taken over"): which bot
plays a person's seat and why, on the table page's seat panels and in the replay's steps;
who made each move, a person or a bot, in people's words. A person whose seat a bot plays
is offered no move (the server would refuse it: ``seat_taken_over``); they still see
their seat."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flask_babel import gettext

from domain.table import Viewer
from service.storage.tablelog import TableLog, takeovers
from service.web.pages.scenes import Scene, bot_name
from service.web.pages.words import bot_word


def taken_words(name: str, bot: str, reason: str) -> str:
    """``Ann's seat is played by the heuristic bot: left early``."""
    return gettext(
        "%(name)s's seat is played by the %(bot)s bot: %(reason)s",
        name=name,
        bot=bot_word(bot),
        reason=reason,
    )


def returned_words(name: str) -> str:
    return gettext("%(name)s's seat is handed back: %(name)s plays it again", name=name)


def _yours(bot: str, reason: str) -> str:
    return gettext(
        "The organiser handed your seat to the %(bot)s bot (%(reason)s): it plays "
        "for you until they hand it back",
        bot=bot_word(bot),
        reason=reason,
    )


def yours_words(log: TableLog, seat: int) -> str:
    """To the person whose seat a bot plays now, in their page's turn line (the first
    thing their phone shows): which bot, why, and until when."""
    held = takeovers(log)[seat]
    return _yours(held.bot, held.reason)


def mark(scene: Scene, log: TableLog, names: Sequence[str], viewer: Viewer = None) -> None:
    """Tag each seat a bot plays for its person with that bot, and say why under its
    name (to the person themself, that it is theirs again once handed back)."""
    for seat, held in takeovers(log).items():
        if seat >= len(scene.seats):
            continue
        panel = scene.seats[seat]
        panel.tags.append(bot_name(held.bot))
        if seat == viewer:
            panel.notes.append(_yours(held.bot, held.reason))
        else:
            panel.notes.append(taken_words(names[seat], held.bot, held.reason))


def acting(log: TableLog, viewer: Viewer) -> Viewer:
    """The viewer a page offers moves and turns to: ``None`` (no move, someone else's
    turn) for a person whose seat a bot plays now."""
    if isinstance(viewer, int) and viewer in takeovers(log):
        return None
    return viewer


def who_moved(by: str | None, names: Sequence[str]) -> str:
    """Who recorded a step (the log's ``by``: ``seat 1``, ``bot heuristic seat 1``,
    ``organiser``, ``engine``) in people's words: ``Bo``, ``the heuristic bot for Bo``
    (a seat it was handed), ``the random bot`` (a bot's own seat), ``the organiser``."""
    words = (by or "").split()
    if len(words) == 2 and words[0] == "seat" and words[1].isdigit():
        return _name(int(words[1]), names)
    if len(words) == 4 and words[0] == "bot" and words[2] == "seat" and words[3].isdigit():
        name = _name(int(words[3]), names)
        if name == bot_name(words[1]):  # a bot's seat from the start is named after it
            return gettext("the %(bot)s bot", bot=bot_word(words[1]))
        return gettext("the %(bot)s bot for %(name)s", bot=bot_word(words[1]), name=name)
    if words[:1] == ["organiser"]:
        return gettext("the organiser")
    if words == ["engine"]:
        return gettext("the rules")
    return by or ""


def _name(seat: int, names: Sequence[str]) -> str:
    return names[seat] if 0 <= seat < len(names) else gettext("seat %(num)s", num=seat + 1)


def taken_step(data: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The replay's words for ``SeatTakenOver`` (``service.web.pages.step_words``)."""
    return [taken_words(_name(data["seat"], names), data["bot"], data["reason"])]


def returned_step(data: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The replay's words for ``SeatReturned``."""
    return [returned_words(_name(data["seat"], names))]
