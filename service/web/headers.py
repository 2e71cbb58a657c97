"""The headers every response carries, pages and API alike.

- ``Cache-Control: no-store`` unless the route chose its own (a response can carry a
  hand, a seat token or a whole log; none that carries a secret chooses otherwise).
- ``Referrer-Policy: no-referrer``: a page's address never leaks onward.
- ``Content-Security-Policy``: only this server's own resources; scripts and style
  sheets only inline ones carrying this response's nonce (``csp_nonce()``, a fresh
  random value per response, which the templates put on each ``<script>`` and
  ``<style>``), so markup slipped into a page cannot run or restyle anything; no plugins
  (``object-src 'none'``), no ``<base>`` (``base-uri 'none'``), forms post only here
  (``form-action 'self'``), and no other site may frame a page (``frame-ancestors
  'none'``, and ``X-Frame-Options: DENY`` for browsers that predate it).
- ``X-Content-Type-Options: nosniff``: a JSON answer or an export is never run as a
  script or shown as a page.
"""

from __future__ import annotations

import secrets

from flask import Flask, Response, g


def csp_nonce() -> str:
    """This response's nonce for inline ``<script>`` and ``<style>`` elements."""
    if "csp_nonce" not in g:
        g.csp_nonce = secrets.token_urlsafe(18)
    nonce: str = g.csp_nonce
    return nonce


def content_security_policy(nonce: str | None) -> str:
    inline = f" 'nonce-{nonce}'" if nonce else ""
    return "; ".join(
        (
            "default-src 'self'",
            f"script-src 'self'{inline}",
            f"style-src 'self'{inline}",
            "img-src 'self' data:",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        )
    )


def _secure(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("Cache-Control", "no-store")
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers["Content-Security-Policy"] = content_security_policy(g.get("csp_nonce"))
    headers["X-Content-Type-Options"] = "nosniff"
    headers["X-Frame-Options"] = "DENY"
    return response


def install(app: Flask) -> None:
    """Every response of ``app`` gets the headers; templates get ``csp_nonce()``."""
    app.after_request(_secure)
    app.jinja_env.globals["csp_nonce"] = csp_nonce
