"""The club room's big screen (``GET /tournaments/{id}/wall``, ``docs/api.md``, "More pages"):
the current round's tables as they play (each seat's total, who is still to act, each
table's result as it finishes) and the standings, large enough to read across a room at
1920 by 1080. Public, like the standings: no token, and nothing on it a player may not see
(totals and places only, never a card), no signature and no developer's words.

It follows the tournament by itself: the tournament's stream (``/tournaments/{id}/watch``)
says when a table moves or the tournament changes, and the page fetches itself again and
swaps its content in; without the stream it asks every few seconds.
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template

from domain.tournament.standings import shown, unranked
from service.application.tournaments import read_standings, read_tournament
from service.web.languages import speak_club_language
from service.web.pages import games
from service.web.pages.answers import answer_errors_with_pages, html
from service.web.pages.console_tournaments import round_tables
from service.web.pages.words import ordinal, status_words

blueprint = Blueprint("wall", __name__)

#: How often the wall asks for news when the stream is not available (milliseconds).
POLL_MS = 5000


@blueprint.get("/tournaments/<id:tournament_id>/wall")
def wall(tournament_id: str) -> Response:
    """Tables in play and the standings, for the club room's screen."""
    log = read_tournament(tournament_id)
    state = log.state
    speak_club_language(state.config.language)
    current = state.current
    seating = round_tables(tournament_id, current.number) if current is not None else None
    _, rows = read_standings(tournament_id)
    planned = state.config.rounds
    page = render_template(
        "pages/wall.html",
        tournament_id=tournament_id,
        config=state.config,
        game_name=games.name(state.config.game),
        finished=state.finished,
        version=log.version,
        planned=planned,
        seating=seating,
        standings=[r for r in rows if not unranked(r.withdrawn, r.tables, r.byes)],
        points=shown,
        ordinal=ordinal,
        status_words=status_words,
        poll_ms=POLL_MS,
    )
    return html(page)


answer_errors_with_pages(blueprint)
