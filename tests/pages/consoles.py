"""The organiser's console as a browser uses it, through the Flask client: open the
organiser's link once (a session in the cookie), then post forms with the session's CSRF
token and a one-time form key, as every rendered form carries them."""

from __future__ import annotations

import re
import secrets
from typing import Any
from urllib.parse import urlsplit

from flask.testing import FlaskClient

from service.web.pages.formkeys import FIELD as FORM_KEY
from service.web.pages.session import CSRF_FIELD, ORGANISER_COOKIE, csrf_token
from tests.helpers import ADMIN_TOKEN


def log_in(client: FlaskClient, base_url: str = "http://localhost") -> FlaskClient:
    """Open the organiser's link in ``client`` (its cookie: a new session)."""
    response = client.get(f"/console?token={ADMIN_TOKEN}", base_url=base_url)
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    return client


def session_of(client: FlaskClient, base_url: str = "http://localhost") -> str:
    """The organiser's session id in ``client``'s cookie."""
    cookie = client.get_cookie(ORGANISER_COOKIE, domain=urlsplit(base_url).hostname or "")
    assert cookie is not None, "open the organiser's link first"
    return cookie.value


def csrf_of(client: FlaskClient, base_url: str = "http://localhost") -> str:
    return csrf_token(session_of(client, base_url))


def new_form_key() -> str:
    return secrets.token_urlsafe(16)


def post(
    client: FlaskClient,
    path: str,
    data: dict[str, str] | None = None,
    *,
    key: str | None = None,
    base_url: str = "http://localhost",
    **kw: Any,
) -> Any:
    """Post a console form as its page would: CSRF token and a (fresh, unless ``key``)
    one-time form key."""
    sent = {CSRF_FIELD: csrf_of(client, base_url), FORM_KEY: key or new_form_key(), **(data or {})}
    return client.post(path, data=sent, base_url=base_url, **kw)


def form_keys_in(page: str) -> list[str]:
    """The one-time keys of the forms on a rendered page."""
    return re.findall(rf'name="{FORM_KEY}" value="([^"]+)"', page)
