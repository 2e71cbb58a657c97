"""Server-rendered pages on top of the API: the club's home, a table as a viewer sees
it, and the replay of a deal (``api.md``, Pages).

Pages read through the same code as the API (``table_logs``, ``view``, ``deal_history``)
and take the viewer's token as ``?token=`` (a link can be opened on a phone), resolved as
``Authorization: Bearer`` is: the organiser's token, a seat token of this table, or none
for the public. No route here has a ``---`` docstring: pages are not part of the JSON
contract in ``openapi.yaml``.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Response, current_app, render_template, request
from sqlalchemy import Connection

from domain.audit import deal_history, deal_text
from domain.events import event_type
from domain.table import ORGANISER, Viewer
from service.auth import viewer_of_token
from service.commands import table_logs
from service.db import get_database
from service.errors import ApiError, status_of
from service.failures import ApplicationError
from service.pages import cards, games, listing, replay, standings
from service.pages.games import scene
from service.pages.scenes import seat_names
from service.tablelog import TableLog

blueprint = Blueprint("pages", __name__)
# the standings page is rendered by its route in ``service/api/tournaments.py``
blueprint.add_app_template_global(standings.standings_page, "standings_page")

#: How often a live table page asks ``GET /events`` for news, in milliseconds (the app's
#: ``PAGES_POLL_MS`` setting overrides it; browser tests poll faster).
POLL_MS = 2000


def page_viewer(connection: Connection, table_id: str) -> Viewer:
    """``?token=``: the organiser, a seat of ``table_id``, or ``None`` (the public)."""
    return viewer_of_token(connection, table_id, request.args.get("token", "").strip())


def _load(table_id: str) -> tuple[TableLog, Viewer]:
    with get_database().reading() as connection:
        viewer = page_viewer(connection, table_id)
        log = table_logs().load(connection, table_id)
    return log, viewer


def _html(page: str, status: int = 200) -> Response:
    response = Response(page, status=status, mimetype="text/html")
    # a page may carry a seat's hand: never from a shared cache
    response.headers["Cache-Control"] = "no-store"
    return response


def _faces(game: str) -> Callable[[cards.Card], cards.Face]:
    """The templates' ``face(card)`` for this table's game."""
    return lambda card: games.face(game, card)


def _viewer_label(viewer: Viewer, names: list[str]) -> str:
    if viewer == ORGANISER:
        return "organiser: every card"
    if isinstance(viewer, int):
        return f"seat {viewer} ({names[viewer]}): your hand and what is public"
    return "public: what lies face up"


def _deals(log: TableLog) -> list[tuple[int, bool]]:
    """Each deal of the table and whether it is scored (its cards public)."""
    deals: dict[int, bool] = {}
    for event in log.events:
        kind = event_type(event)
        if kind == "DealStarted":
            deals[event.deal] = False
        elif kind in ("DealScored", "DealSettled"):
            deals[event.deal] = True
    return sorted(deals.items())


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
        games=listing.GAME_NAMES,
        limit=listing.LIMIT,
    )
    return _html(page)


@blueprint.get("/favicon.ico")
def favicon() -> Response:
    """The pages' icon: a small SVG (browsers ask for ``/favicon.ico`` by name)."""
    response = Response(render_template("pages/favicon.svg"), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


@blueprint.get("/tables/<id:table_id>/view")
def table_page(table_id: str) -> Response:
    """A table as the viewer may see it; refreshes itself while the match runs."""
    log, viewer = _load(table_id)
    shown = log.rules.view(log.state, viewer)
    names = seat_names(log.opened)
    token = request.args.get("token", "").strip() or None
    live = {
        "version": log.version,
        "finished": shown["status"] == "finished",
        "events": f"/tables/{table_id}/events",
        "token": token,
        "interval": current_app.config.get("PAGES_POLL_MS", POLL_MS),
    }
    page = render_template(
        "pages/table.html",
        table_id=table_id,
        opened=log.opened,
        game_name=games.name(log.opened.game),
        view=shown,
        version=log.version,
        names=names,
        scene=scene(shown, names).json(),
        face=_faces(log.opened.game),
        viewer=_viewer_label(viewer, names),
        deals=[(k, scored or viewer == ORGANISER) for k, scored in _deals(log)],
        token=token,
        live=live,
        damage=log.damage,
    )
    return _html(page)


@blueprint.get("/tables/<id:table_id>/deals/<int:deal>/replay")
def replay_page(table_id: str, deal: int) -> Response:
    """Step through a deal event by event, every hand open: once the deal is scored for
    anyone, before that only for the organiser."""
    log, viewer = _load(table_id)
    actors = [row.actor for row in log.rows[1:]]
    history = deal_history(log.opened, log.events[1:], deal, viewer, actors)
    if history is None:
        raise ApiError(404, "not_found", f"table {table_id} has no deal {deal}")
    if not history["scored"] and viewer != ORGANISER:
        raise ApiError(
            403,
            "forbidden",
            f"deal {deal} is still being played: its replay opens once it is scored",
        )
    steps = replay.steps(log, history)
    names = seat_names(log.opened)
    token = request.args.get("token", "").strip() or None
    page = render_template(
        "pages/replay.html",
        table_id=table_id,
        opened=log.opened,
        game_name=games.name(log.opened.game),
        deal=deal,
        scored=history["scored"],
        steps=steps,
        face=_faces(log.opened.game),
        deck=games.deck(log.opened.game),
        record=deal_text(table_id, history),
        names=names,
        token=token,
    )
    return _html(page)


@blueprint.errorhandler(ApiError)
def _error_page(error: ApiError) -> Response:
    """Pages answer errors with a page (same status and code as the API's problem)."""
    page = render_template("pages/error.html", status=error.status, code=error.code,
                           detail=error.detail)  # fmt: skip
    return _html(page, error.status)


@blueprint.errorhandler(ApplicationError)
def _refused_page(error: ApplicationError) -> Response:
    """The command layer's refusals, at the status the API gives them."""
    status = status_of(error)
    page = render_template("pages/error.html", status=status, code=error.code,
                           detail=error.detail)  # fmt: skip
    return _html(page, status)
