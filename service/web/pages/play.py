"""The live table page's own endpoints: news while the table moves, and the moves its
player taps. They ride on the page's cookie (``service.web.pages.session``), never on a
bearer token, and answer JSON: the re-rendered ``#table`` fragment, or a problem whose
``detail`` the page shows to the player. The JSON API itself stays bearer-only.

- ``GET /tables/{id}/view/news?after=N``: ``{"version", "finished", "html"}``; ``html``
  is the fragment as the cookie's viewer sees it, ``null`` while nothing happened after
  version ``N``.
- ``POST /tables/{id}/view/act``: the body is an action exactly as ``legal_actions``
  lists it, ``If-Match: "<version>"`` the version the page showed, ``X-CSRF-Token`` the
  page's CSRF token (else 403 ``csrf``). Taken through the same command as
  ``POST /tables/{id}/actions``; 201 with the fragment after it (and after any bot it
  woke, when bots play in-process). When the table moved on since the page's version
  (others passing or laying cards at the same moment), the move is still taken if it
  is, word for word, one of the moves the viewer may make now; otherwise 409
  ``version_conflict``: a stale page never acts blind, and a move once made is no
  longer offered, so it is never made twice.

Errors keep the app's problem+json handlers: this blueprint registers no HTML handler.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request
from flask_babel import gettext

from domain.errors import RuleViolation
from domain.table import Viewer
from service.application.tables import act, table_logs
from service.storage.db import get_database
from service.storage.eventstore import VersionConflict
from service.web.pages import session, tableview
from service.web.pages.refusals import worded
from service.web.pages.scenes import seat_names
from service.web.problems import ApiError
from service.web.schemas.actions import ActionSchema

blueprint = Blueprint("page_play", __name__)
ACTION = ActionSchema()


def _after() -> int:
    text = request.args.get("after", "0")
    if not (text.isascii() and text.isdigit() and len(text) < 10):
        raise ApiError(400, "bad_after", gettext("after takes a version: ?after=12"))
    return int(text)


def _expected() -> int:
    header = request.headers.get("If-Match")
    text = (header or "").strip().removeprefix("W/").strip('"')
    if not (text.isascii() and text.isdigit() and len(text) < 10):
        raise ApiError(
            428,
            "if_match_required",
            gettext('a page\'s move names the version it saw: If-Match: "12"'),
        )
    return int(text)


def _answer(table_id: str, viewer: Viewer, token: str | None) -> dict[str, Any]:
    with get_database().reading() as connection:
        log = table_logs().load(connection, table_id)
    return {"version": log.version, "finished": log.finished,
            "html": tableview.fragment(log, viewer, token)}  # fmt: skip


@blueprint.get("/tables/<id:table_id>/view/news")
def news(table_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """What changed after version ``after``, as the cookie's viewer sees it."""
    after = _after()
    headers = {"Cache-Control": "no-store"}
    with get_database().reading() as connection:
        log = table_logs().load(connection, table_id)
        if log.version <= after:  # the page's poll, most of the time: nothing to render
            return {"version": log.version, "finished": log.finished, "html": None}, 200, headers
        viewer = session.page_viewer(connection, table_id)
    token = session.cookie_secret(table_id) if viewer is not None else None
    html = tableview.fragment(log, viewer, token)
    return {"version": log.version, "finished": log.finished, "html": html}, 200, headers


@blueprint.post("/tables/<id:table_id>/view/act")
def page_act(table_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """A move tapped on the page, by the seat or organiser whose cookie it rides on."""
    token = session.cookie_secret(table_id)
    if token is None:
        raise ApiError(401, "unauthorized", gettext("open your seat's link once in this browser"))
    session.check_csrf(token)  # before a byte of the body is read
    with get_database().reading() as connection:
        viewer = session.page_viewer(connection, table_id)
    if viewer is None:
        raise ApiError(401, "unauthorized", gettext("this browser's seat link is no longer valid"))
    expected = _expected()
    body = request.get_json(force=True)
    if not isinstance(body, dict):
        raise ApiError(
            422, "validation_error", gettext("a move is a JSON object, as legal_actions has it")
        )
    ACTION.load(body)  # shape and types, as the API checks them; the engine judges the rest
    for attempt in range(1, RETRIES + 1):
        try:
            act(table_id, body, viewer, expected)
            break
        except RuleViolation as refused:  # said to the player with names, "you" for them
            raise _in_words(table_id, refused, viewer, body.get("seat")) from None
        except VersionConflict:
            now = _still_offered(table_id, viewer, body)
            if now is None or attempt == RETRIES:
                raise
            expected = now
    return _answer(table_id, viewer, token), 201, {"Cache-Control": "no-store"}


def _in_words(
    table_id: str, refused: RuleViolation, viewer: Viewer, seat: Any = None
) -> RuleViolation:
    """The engine's refusal with the table's names, and "you" for the viewer, in the
    page's language (the same code, so the same status); ``seat``: the move's."""
    seat = seat if type(seat) is int else None
    with get_database().reading() as connection:
        names = seat_names(table_logs().load(connection, table_id).opened)
    you = viewer if isinstance(viewer, int) else None
    said = worded(refused, names, you, seat)
    return RuleViolation(refused.code, said, **refused.facts)


#: How often a move that lost a race but is still offered is tried again.
RETRIES = 3


def _still_offered(table_id: str, viewer: Viewer, body: dict[str, Any]) -> int | None:
    """The table's version now if ``body`` is one of the moves the viewer may make there
    (the organiser: for any seat to act), else ``None``."""
    with get_database().reading() as connection:
        log = table_logs().load(connection, table_id)
    rules, state = log.rules, log.state
    seats = [viewer] if isinstance(viewer, int) else list(rules.to_act(state))
    offered = (rules.body(a) for seat in seats for a in rules.legal_actions(state, seat))
    return log.version if any(move == body for move in offered) else None
