"""Server-rendered pages on top of the API: the club's home, a table as a viewer sees
it, and the replay of a deal (``docs/api.md``, Pages).

Pages read through the same code as the API (``table_logs``, ``view``, ``deal_history``).
Who opens a table's page comes from a cookie (``service.web.pages.session``): a link's
``?token=`` is exchanged once for an HttpOnly cookie (a seat's token, or an organiser's
session) and a redirect to the clean address, so no token stays in an address bar, a
history or a Referer. The viewer is then the
organiser, a seat of the table, or the public. No route here has a ``---`` docstring:
pages are not part of the JSON contract in ``openapi.yaml``; the live table page's own
JSON endpoints are in ``service.web.pages.play``. What differs from game to game is in
``service.web.pages.games``, checked complete when the app registers these pages.
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template
from flask_babel import gettext
from werkzeug.wrappers import Response as BaseResponse

from domain.audit import deal_history
from domain.table import ORGANISER, Viewer
from service.application.tables import table_logs
from service.storage.db import get_database
from service.storage.tablelog import TableLog
from service.web.pages import games, listing, record, replay, session, tableview
from service.web.pages.answers import answer_errors_with_pages, html
from service.web.pages.scenes import seat_names
from service.web.pages.words import status_words
from service.web.problems import ApiError

blueprint = Blueprint("pages", __name__)
# the standings page is rendered by its route in ``service/web/api/tournaments.py``
blueprint.record_once(lambda setup: games.check(setup.app))  # every game's web side, or no app


def _load(table_id: str) -> tuple[TableLog, Viewer]:
    with get_database().reading() as connection:
        viewer = session.page_viewer(connection, table_id)
        log = table_logs().load(connection, table_id)
    return log, viewer


def _exchange(table_id: str) -> BaseResponse | None:
    """A link's token: checked, stored in a cookie, and the clean address to go to."""
    return session.exchange_for_table(table_id)


@blueprint.get("/")
def home() -> Response:
    """The club's home: running and recent tables, tournaments, with links."""
    with get_database().reading() as connection:
        tables = listing.recent_tables(connection)
        tournaments = listing.recent_tournaments(connection)
    page = render_template(
        "pages/home.html",
        running=[t for t in tables if t.running],
        recent=[t for t in tables if not t.running],
        tournaments=tournaments,
        games=games.names(),
        limit=listing.LIMIT,
        status_words=status_words,  # a table's status as every other page says it
    )
    return html(page)


@blueprint.get("/favicon.ico")
def favicon() -> Response:
    """The pages' icon: a small SVG (browsers ask for ``/favicon.ico`` by name)."""
    response = Response(render_template("pages/favicon.svg"), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


@blueprint.get("/tables/<id:table_id>/view")
def table_page(table_id: str) -> BaseResponse:
    """A table as the viewer may see it, with the moves the viewer may make; follows the
    table by itself while the match runs (``service.web.pages.play``)."""
    if (moved := _exchange(table_id)) is not None:
        return moved
    log, viewer = _load(table_id)
    token = session.cookie_secret(table_id) if viewer is not None else None
    with get_database().reading() as connection:
        seating = listing.seating_of(connection, table_id)
    page = render_template(
        "pages/table.html",
        seating=seating,
        organiser=viewer == ORGANISER,
        also_organiser=viewer != ORGANISER and session.is_organiser_page(),
        **tableview.context(log, viewer, token),
    )
    return html(page)


@blueprint.get("/tables/<id:table_id>/deals/<int:deal>/replay")
def replay_page(table_id: str, deal: int) -> BaseResponse:
    """Step through a deal event by event, every hand open: once the deal is scored for
    anyone, before that only for the organiser."""
    if (moved := _exchange(table_id)) is not None:
        return moved
    log, viewer = _load(table_id)
    actors = [row.actor for row in log.rows[1:]]
    history = deal_history(log.opened, log.events[1:], deal, viewer, actors)
    if history is None:
        raise ApiError(
            404, "not_found", gettext("table %(id)s has no deal %(deal)s", id=table_id, deal=deal)
        )
    if not history["scored"] and viewer != ORGANISER:
        raise ApiError(
            403,
            "forbidden",
            gettext(
                "deal %(deal)s is still being played: its replay opens once it is scored",
                deal=deal,
            ),
        )
    steps = replay.steps(log, history)
    names = seat_names(log.opened)
    with get_database().reading() as connection:
        seating = listing.seating_of(connection, table_id)
    page = render_template(
        "pages/replay.html",
        table_id=table_id,
        seating=seating,
        opened=log.opened,
        game_name=games.name(log.opened.game),
        deal_word=games.deal_word(log.opened.game),
        deal=deal,
        scored=history["scored"],
        steps=steps,
        face=tableview.faces(log.opened.game),
        deck=games.deck(log.opened.game),
        record=record.record_text(table_id, history, names),
        names=names,
    )
    return html(page)


answer_errors_with_pages(blueprint)
