"""Who opened a page: secrets travel in cookies, never in URLs.

A link carries its token once (``?token=``, a printed seat slip or the organiser's link).
The page that receives it checks it, stores a cookie (HttpOnly, SameSite=Strict) and
redirects to the same address without the token, so the secret leaves the address bar,
the history and any Referer. A seat's cookie holds its seat token and is scoped to its
table's path (``/tables/{id}``). The organiser's cookie never holds the organiser token:
the token is exchanged for a session (``service.storage.organiser_sessions``: random, stored
hashed, expiring, revoked by "Log out" or a new token) whose id is the cookie, site-wide.
A personal link (``/tournaments/{id}/me?token=…``) stores its entry token in a cookie of
that tournament's own name, site-wide, so it opens the seat its entry holds at whichever
table the current round gives it (``service.application.entries``).

Requests a page sends back (an action, a form) must carry the CSRF token of the cookie
they ride on (``X-CSRF-Token`` header or ``csrf`` form field): an HMAC of the cookie's
secret (the seat token, or the organiser's session id), so it can be checked without
server state and forged by nobody who lacks the cookie itself. SameSite=Strict already
keeps the cookie off cross-site requests; the CSRF token and the ``Origin`` check are the
second lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
from typing import TypeVar
from urllib.parse import urlencode

from flask import current_app, g, redirect, request
from flask_babel import gettext
from sqlalchemy import Connection
from werkzeug.wrappers import Response

from domain.table import ORGANISER, Viewer
from service.application.entries import entry_of, seat_of_entry_token
from service.core.config import Config
from service.storage.db import get_database
from service.storage.organiser_sessions import (
    SESSION_SECONDS,
    close_session,
    open_session,
    session_valid,
)
from service.storage.projections.tournaments import tournament_of
from service.web.auth import is_organiser, viewer_of_token
from service.web.problems import ApiError

SEAT_COOKIE = "cardledger_seat"
ENTRY_COOKIE = "cardledger_entry"
ORGANISER_COOKIE = "cardledger_organiser"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf"
#: A seat's cookie lasts a long club evening; the organiser's session a working day.
SEAT_MAX_AGE = 24 * 3600
ORGANISER_MAX_AGE = SESSION_SECONDS
R = TypeVar("R", bound=Response)
#: The longest address a clean redirect keeps its other parameters in (the rest are
#: dropped): no request can grow a ``Location`` header past it.
MAX_CLEAN_URL = 2000


def link_token() -> str | None:
    """The token a link carries (``?token=``), if any."""
    token = request.args.get("token", "").strip()
    return token or None


def clean_url() -> str:
    """This request's address without its ``token`` parameter (and without the others
    when they would make it longer than ``MAX_CLEAN_URL``)."""
    rest = [(k, v) for k, v in request.args.items(multi=True) if k != "token"]
    url = request.path + (f"?{urlencode(rest)}" if rest else "")
    return url if len(url) <= MAX_CLEAN_URL else request.path


def table_path(table_id: str) -> str:
    return f"/tables/{table_id}"


def _set_cookie(response: Response, name: str, value: str, path: str, max_age: int) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path=path,
        secure=request.is_secure,
        httponly=True,
        samesite="Strict",
    )


def _admin_token() -> str | None:
    config: Config = current_app.config["CARDLEDGER"]
    return config.admin_token


def _organiser_redirect(token: str) -> Response:
    """The clean address, with a new organiser session in the cookie (``token`` checked)."""
    with get_database().writing() as connection:
        session_id = open_session(connection, token)
    response = redirect(clean_url(), code=303)
    _set_cookie(response, ORGANISER_COOKIE, session_id, "/", ORGANISER_MAX_AGE)
    return response


def exchange_for_table(table_id: str) -> Response | None:
    """If the link carries a token valid at ``table_id``, a redirect to the clean address
    that stores a cookie (the seat's token, or a new organiser session); ``None`` when
    there is no token. An unknown token is a 401 (``viewer_of_token``), so a mistyped slip
    says so instead of showing the public view."""
    token = link_token()
    if token is None:
        return None
    with get_database().reading() as connection:
        viewer = viewer_of_token(connection, table_id, token)
    if viewer == ORGANISER:
        return _organiser_redirect(token)
    response = redirect(clean_url(), code=303)
    _set_cookie(response, SEAT_COOKIE, token, table_path(table_id), SEAT_MAX_AGE)
    return response


def entry_cookie_name(tournament_id: str) -> str:
    """A personal link's cookie is named after its tournament: one per tournament."""
    return f"{ENTRY_COOKIE}_{tournament_id}"


def entry_cookie(tournament_id: str) -> str | None:
    """The entry token this browser holds for ``tournament_id``, if any (unchecked)."""
    return request.cookies.get(entry_cookie_name(tournament_id)) or None


def exchange_for_entry(tournament_id: str) -> Response | None:
    """A personal link (``?token=``): checked (401 if it is not this tournament's), kept
    in the tournament's cookie for every page, and the clean address to go to; ``None``
    when there is no token."""
    token = link_token()
    if token is None:
        return None
    with get_database().reading() as connection:
        entry_of(connection, tournament_id, token)
    response = redirect(clean_url(), code=303)
    _set_cookie(response, entry_cookie_name(tournament_id), token, "/", SEAT_MAX_AGE)
    return response


def exchange_for_organiser() -> Response | None:
    """The organiser's link (``/console?token=…``): a new session in the cookie and the
    clean redirect; any other token is a 403, no token ``None``."""
    token = link_token()
    if token is None:
        return None
    if not is_organiser(token):
        raise ApiError(403, "forbidden", gettext("this link's token is not the organiser's"))
    return _organiser_redirect(token)


def organiser_session() -> str | None:
    """The organiser's session id this request's cookie holds, if the session is live
    (looked up once per request)."""
    if "organiser_session" not in g:
        session_id = request.cookies.get(ORGANISER_COOKIE) or ""
        live = False
        if session_id:
            with get_database().reading() as connection:
                live = session_valid(connection, session_id, _admin_token())
        g.organiser_session = session_id if live else None
    found: str | None = g.organiser_session
    return found


def log_out(response: R) -> R:
    """End this browser's organiser session (server-side first) and clear its cookie."""
    session_id = request.cookies.get(ORGANISER_COOKIE)
    if session_id:
        with get_database().writing() as connection:
            close_session(connection, session_id)
    g.organiser_session = None
    response.delete_cookie(ORGANISER_COOKIE, path="/", secure=request.is_secure,
                           httponly=True, samesite="Strict")  # fmt: skip
    return response


def cookie_secret(table_id: str | None = None) -> str | None:
    """The secret this page request rides on, which its CSRF token derives from: the
    secret of the viewer ``page_viewer`` finds (a seat this browser holds at the table,
    unless the organiser's view is asked; else the organiser's live session), else a
    stale seat cookie's. Stale cookies are ignored, not errors: a re-issued seat token
    must not lock its old phone out of the public view."""
    session_id = organiser_session()
    if table_id is None:
        return session_id
    with get_database().reading() as connection:
        seat, secret = _seat_cookies(connection, table_id)
    if session_id is not None and (seat is None or organiser_asked()):
        return session_id
    return secret


def organiser_asked() -> bool:
    """A table page asked as the organiser's (``?as=organiser``): the organiser's session
    then wins over a seat this browser also holds at that table."""
    return request.args.get("as") == "organiser"


def page_viewer(connection: Connection, table_id: str) -> Viewer:
    """A seat of ``table_id`` this browser holds (its seat cookie, else the personal
    link's cookie of its tournament), else the organiser (a live session), else ``None``
    (the public). An organiser who also plays sees only their own hand on their seat's
    page, and every hand only when asking for it (``organiser_asked``). A seat cookie
    never makes anyone the organiser."""
    seat = _seat_cookies(connection, table_id)[0]
    if organiser_session() is not None and (seat is None or organiser_asked()):
        return ORGANISER
    return seat


def _seat_cookies(connection: Connection, table_id: str) -> tuple[Viewer, str | None]:
    """The seat this browser's cookies hold at ``table_id`` and the secret it rides on:
    the table's seat cookie, else the personal link of the table's tournament while its
    entry sits there; neither: the public, with whichever stale secret there is (a
    re-issued token must not lock its old phone out of the public view). Found once per
    request."""
    found: dict[str, tuple[Viewer, str | None]] = g.setdefault("seat_cookies", {})
    if table_id in found:
        return found[table_id]
    token = request.cookies.get(SEAT_COOKIE) or None
    seat: tuple[Viewer, str | None] = (None, token)
    if token and not is_organiser(token):
        with contextlib.suppress(ApiError):  # a seat cookie whose token was re-issued
            seat = (viewer_of_token(connection, table_id, token), token)
    if seat[0] is None:
        owner = tournament_of(connection, table_id)
        personal = entry_cookie(owner) if owner else None
        if personal and (held := seat_of_entry_token(connection, table_id, personal)) is not None:
            seat = (held, personal)
        elif personal and token is None:
            seat = (None, personal)
    found[table_id] = seat
    return seat


def is_organiser_page() -> bool:
    return organiser_session() is not None


def require_organiser_page() -> str:
    """Organiser-only pages: the live session's id, else 401."""
    session_id = organiser_session()
    if session_id is None:
        raise ApiError(
            401,
            "unauthorized",
            gettext(
                "open the organiser's link (/console?token=…) in this browser: its session has "
                "ended or was never opened here"
            ),
        )
    return session_id


def csrf_token(secret: str) -> str:
    """The CSRF token that goes with a cookie's ``secret`` (a page embeds it; its requests
    echo it)."""
    return hmac.new(secret.encode("utf-8"), b"cardledger-csrf:v1", hashlib.sha256).hexdigest()


def check_csrf(secret: str) -> None:
    """Refuse a page's state-changing request that is cross-site or lacks the CSRF token
    of the cookie it rides on (403 ``csrf``)."""
    origin = request.headers.get("Origin")
    if origin is not None and origin.rstrip("/") != request.host_url.rstrip("/"):
        raise ApiError(403, "csrf", gettext("this request comes from another site"))
    if request.headers.get("Sec-Fetch-Site") == "cross-site":
        raise ApiError(403, "csrf", gettext("this request comes from another site"))
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD, "")
    if not hmac.compare_digest(sent.encode("utf-8"), csrf_token(secret).encode("utf-8")):
        raise ApiError(
            403, "csrf", gettext("the page's CSRF token is missing or wrong: reload the page")
        )
