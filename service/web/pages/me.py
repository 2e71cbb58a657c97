"""A person's own page in a tournament (``/tournaments/{id}/me``, ``docs/api.md``, "More
pages"): it opens their seat at the table the current round gives them, or says in plain
words where and when they play next. It follows the tournament by itself (its stream,
``/tournaments/{id}/watch``, else polling), so a round opened sends each phone on to its
seat. The route is the API's (``service.web.api.entries``); this module draws the page.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, redirect, render_template
from flask_babel import gettext
from werkzeug.wrappers import Response

from service.application.entries import FINISHED, PLAYING, WAITING, WITHDRAWN, Whereabouts
from service.application.tournaments import read_standings
from service.storage.db import get_database
from service.storage.projections.tournaments import tournament_of
from service.storage.tournamentlog import TournamentLog
from service.web.pages import games
from service.web.pages.answers import html
from service.web.pages.words import ordinal

#: How often the page asks where its person is when the stream is not available (ms).
POLL_MS = 5000


@dataclass(frozen=True, slots=True)
class PlayedTable:
    round: int
    number: int
    table: str
    finished: bool


def page(log: TournamentLog, where: Whereabouts) -> Response:
    """Their seat (303 to its table page) while they are at a table; else the page."""
    if where.status == PLAYING:
        return redirect(f"/tables/{where.table}/view", code=303)
    state = log.state
    shown = render_template(
        "pages/me.html",
        tournament_id=log.id,
        config=state.config,
        game_name=games.name(state.config.game),
        where=where,
        words=words(log, where),
        played=_played(log, where.entry),
        poll_ms=POLL_MS,
    )
    return html(shown)


def words(log: TournamentLog, where: Whereabouts) -> str:
    """Where and when they play next, in plain words."""
    state = log.state
    current = state.current
    if where.status == WITHDRAWN:
        return gettext(
            "You have withdrawn from the tournament, so you are not seated in the rounds "
            "to come. To play again, ask the organiser to take you back."
        )
    if where.status == FINISHED:
        return _place(log, where.entry)
    assert where.status == WAITING
    opens = gettext("This page opens your seat as soon as it begins.")
    now, next_round = (current.number if current else 0), where.round
    if current is not None and not current.finished:
        if where.bye:
            said = gettext(
                "You sit out round %(now)s (a bye). Your next table is in round %(next)s, once "
                "every table of round %(now)s has finished.",
                now=now,
                next=next_round,
            )
        elif where.done:
            said = gettext(
                "Your table of round %(now)s has finished. Round %(next)s begins once the "
                "other tables of round %(now)s have finished.",
                now=now,
                next=next_round,
            )
        else:
            said = gettext(
                "You joined during round %(now)s: you are seated from round %(next)s, once "
                "every table of round %(now)s has finished.",
                now=now,
                next=next_round,
            )
        return f"{said} {opens}"
    said = gettext(
        "Round %(next)s has not begun yet: the organiser opens it when everyone is ready.",
        next=next_round,
    )
    return f"{said} {opens}"


def _place(log: TournamentLog, entry: int) -> str:
    _, rows = read_standings(log.id)
    ranked = [row for row in rows if not row.withdrawn]
    mine = next((row for row in rows if row.entry == entry), None)
    if mine is None or mine.withdrawn or not mine.tables:
        return gettext("The tournament is over. The standings below say how everyone finished.")
    return gettext(
        "The tournament is over: you finished %(place)s of %(count)s.",
        place=ordinal(mine.rank),
        count=len(ranked),
    )


def _played(log: TournamentLog, entry: int) -> list[PlayedTable]:
    """The tables this entry sat at, round by round."""
    return [
        PlayedTable(played.number, seated.number, seated.table, seated.table in played.results)
        for played in log.state.rounds
        for seated in played.tables
        if entry in seated.seats
    ]


def onward_link(table_id: str) -> str | None:
    """Where a seat's page of a tournament table sends its player once the match is over:
    their personal page, which opens their next seat (``None``: a table on its own)."""
    with get_database().reading() as connection:
        owner = tournament_of(connection, table_id)
    return f"/tournaments/{owner}/me" if owner else None


def install(app: Flask) -> None:
    """The table page's fragment asks ``onward_link(table_id)`` once its match is over."""
    app.add_template_global(onward_link, "onward_link")


__all__ = ["FINISHED", "WAITING", "install", "onward_link", "page", "words"]
