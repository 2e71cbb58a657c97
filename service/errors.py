"""The one place where errors become RFC 9457 `application/problem+json` responses.

Every error a client can see has a stable machine-readable `code`; a 5xx other than 503 is a
bug, so anything unexpected is logged and turned into a bare 500 problem without internals.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from flask import Flask, Request, Response, jsonify
from marshmallow import ValidationError
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException

logger = logging.getLogger(__name__)

PROBLEM_MIMETYPE = "application/problem+json"

# Werkzeug's HTTP errors, by status, in the words of the API contract.
HTTP_CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


class ApiError(Exception):
    """An error meant for the client: raise it anywhere in the service."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        title: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.title = title
        self.extra = extra or {}


def problem(
    status: int,
    code: str,
    detail: str,
    *,
    title: str | None = None,
    extra: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """Build a problem+json response.

    `type` is a URN naming the code: a stable identifier that needs no documentation host.
    """
    body: dict[str, Any] = {
        "type": f"urn:cardledger:problem:{code}",
        "title": title or HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        **(extra or {}),
    }
    response = jsonify(body)
    response.status_code = status
    response.mimetype = PROBLEM_MIMETYPE
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


class JsonRequest(Request):
    """A request whose unparseable JSON body raises our `malformed_json` error, not a bare 400."""

    def on_json_loading_failed(self, e: ValueError | None) -> Any:
        if e is None:  # wrong Content-Type: keep werkzeug's 415
            return super().on_json_loading_failed(e)
        raise ApiError(400, "malformed_json", f"The request body is not valid JSON: {e}")


def _api_error(error: ApiError) -> Response:
    return problem(error.status, error.code, error.detail, title=error.title, extra=error.extra)


def _http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    code = HTTP_CODES.get(status) or (error.name or "error").lower().replace(" ", "_")
    headers = {}
    if valid_methods := getattr(error, "valid_methods", None):  # 405 must say what is allowed
        headers["Allow"] = ", ".join(sorted(valid_methods))
    return problem(status, code, error.description or HTTPStatus(status).phrase, headers=headers)


def _validation_error(error: ValidationError) -> Response:
    messages = error.messages if isinstance(error.messages, dict) else {"_schema": error.messages}
    return problem(
        422,
        "validation_error",
        "The request is well-formed but some fields are invalid.",
        extra={"errors": messages},
    )


def _database_unavailable(error: OperationalError) -> Response:
    logger.warning("database unavailable: %s", error.orig)
    return problem(503, "database_unavailable", "The database is unavailable; try again later.")


def _unexpected(error: Exception) -> Response:
    logger.exception("unhandled error", exc_info=error)
    return problem(500, "internal_error", "An unexpected error occurred; it has been logged.")


def register_error_handlers(app: Flask) -> None:
    """Install the handlers; Flask picks the most specific one by exception class."""
    app.request_class = JsonRequest
    app.register_error_handler(ApiError, _api_error)
    app.register_error_handler(HTTPException, _http_exception)
    app.register_error_handler(ValidationError, _validation_error)
    app.register_error_handler(OperationalError, _database_unavailable)
    app.register_error_handler(Exception, _unexpected)
