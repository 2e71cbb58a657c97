"""Who opened a page: tokens travel in cookies, never in URLs.

A link carries its token once (``?token=``, a printed seat slip or the organiser's link).
The page that receives it checks it, stores it in an HttpOnly, SameSite=Strict cookie and
redirects to the same address without the token, so the secret leaves the address bar,
the history and any Referer. A seat's cookie is scoped to its table's path
(``/tables/{id}``); the organiser's to the whole site.

Requests a page sends back (an action, a form) must carry the CSRF token of the cookie
they ride on (``X-CSRF-Token`` header or ``csrf`` form field): an HMAC of the token, so it
can be checked without server state and forged by nobody who lacks the token itself.
SameSite=Strict already keeps the cookie off cross-site requests; the CSRF token and the
``Origin`` check are the second lock.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlencode

from flask import redirect, request
from sqlalchemy import Connection
from werkzeug.wrappers import Response

from domain.table import ORGANISER, Viewer
from service.auth import is_organiser, viewer_of_token
from service.errors import ApiError

SEAT_COOKIE = "cardledger_seat"
ORGANISER_COOKIE = "cardledger_organiser"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf"
#: A seat's cookie lasts a long club evening; the organiser's a working day.
SEAT_MAX_AGE = 24 * 3600
ORGANISER_MAX_AGE = 12 * 3600


def link_token() -> str | None:
    """The token a link carries (``?token=``), if any."""
    token = request.args.get("token", "").strip()
    return token or None


def clean_url() -> str:
    """This request's address without its ``token`` parameter."""
    rest = [(k, v) for k, v in request.args.items(multi=True) if k != "token"]
    return request.path + (f"?{urlencode(rest)}" if rest else "")


def table_path(table_id: str) -> str:
    return f"/tables/{table_id}"


def _set_cookie(response: Response, name: str, token: str, path: str, max_age: int) -> None:
    response.set_cookie(
        name,
        token,
        max_age=max_age,
        path=path,
        secure=request.is_secure,
        httponly=True,
        samesite="Strict",
    )


def exchange_for_table(connection: Connection, table_id: str) -> Response | None:
    """If the link carries a token valid at ``table_id``, a redirect to the clean address
    that stores it in a cookie; ``None`` when there is no token. An unknown token is a 401
    (``viewer_of_token``), so a mistyped slip says so instead of showing the public view."""
    token = link_token()
    if token is None:
        return None
    viewer = viewer_of_token(connection, table_id, token)
    response = redirect(clean_url(), code=303)
    if viewer == ORGANISER:
        _set_cookie(response, ORGANISER_COOKIE, token, "/", ORGANISER_MAX_AGE)
    else:
        _set_cookie(response, SEAT_COOKIE, token, table_path(table_id), SEAT_MAX_AGE)
    return response


def exchange_for_organiser() -> Response | None:
    """The organiser's link (``/console?token=…``): cookie and clean redirect; any other
    token is a 403, no token ``None``."""
    token = link_token()
    if token is None:
        return None
    if not is_organiser(token):
        raise ApiError(403, "forbidden", "this link's token is not the organiser's")
    response = redirect(clean_url(), code=303)
    _set_cookie(response, ORGANISER_COOKIE, token, "/", ORGANISER_MAX_AGE)
    return response


def cookie_token(table_id: str | None = None) -> str | None:
    """The token this page request rides on: the organiser's cookie first, else (for a
    table's pages) that table's seat cookie. Stale cookies are ignored, not errors: a
    re-issued seat token must not lock its old phone out of the public view."""
    organiser = request.cookies.get(ORGANISER_COOKIE)
    if organiser and is_organiser(organiser):
        return organiser
    if table_id is not None:
        return request.cookies.get(SEAT_COOKIE) or None
    return None


def page_viewer(connection: Connection, table_id: str) -> Viewer:
    """The organiser, a seat of ``table_id`` or ``None`` (the public), from the cookies."""
    token = cookie_token(table_id)
    if token is None:
        return None
    try:
        return viewer_of_token(connection, table_id, token)
    except ApiError:
        return None  # a seat cookie whose token was re-issued: the public view


def is_organiser_page() -> bool:
    return cookie_token() is not None


def require_organiser_page() -> None:
    """Organiser-only pages: 401 without the organiser's cookie."""
    if not is_organiser_page():
        raise ApiError(
            401,
            "unauthorized",
            "open the organiser's link (/console?token=…) once in this browser",
        )


def csrf_token(token: str) -> str:
    """The CSRF token that goes with ``token`` (a page embeds it; its requests echo it)."""
    return hmac.new(token.encode("utf-8"), b"cardledger-csrf:v1", hashlib.sha256).hexdigest()


def check_csrf(token: str) -> None:
    """Refuse a page's state-changing request that is cross-site or lacks the CSRF token
    of the cookie it rides on (403 ``csrf``)."""
    origin = request.headers.get("Origin")
    if origin is not None and origin.rstrip("/") != request.host_url.rstrip("/"):
        raise ApiError(403, "csrf", "this request comes from another site")
    if request.headers.get("Sec-Fetch-Site") == "cross-site":
        raise ApiError(403, "csrf", "this request comes from another site")
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD, "")
    if not hmac.compare_digest(sent.encode("utf-8"), csrf_token(token).encode("utf-8")):
        raise ApiError(403, "csrf", "the page's CSRF token is missing or wrong: reload the page")
