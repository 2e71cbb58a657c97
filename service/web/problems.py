"""The one place where errors become RFC 9457 `application/problem+json` responses.

Every error a client can see has a stable machine-readable `code`; a 5xx other than 503 is a
bug, so anything unexpected is logged and turned into a bare 500 problem without internals.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from flask import Flask, Request, Response, jsonify, request
from kombu.exceptions import OperationalError as BrokerError
from marshmallow import ValidationError
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from domain.errors import WRONG_TIME_CODES, RuleViolation
from service.core.client_json import JsonRefused
from service.core.refusals import (
    ApplicationError,
    Conflict,
    Forbidden,
    NotFound,
    Unauthorized,
    Unavailable,
    Unprocessable,
)
from service.storage.eventstore import VersionConflict

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
    """A request whose unparseable JSON body raises our `malformed_json` error, not a bare 400,
    and whose refused JSON (``service.core.client_json``: nested too deep, a key twice) its own
    400."""

    def get_data(  # type: ignore[override]
        self, cache: bool = True, as_text: bool = False, parse_form_data: bool = False
    ) -> bytes | str:
        """werkzeug stops a streamed (chunked) body quietly at ``max_content_length``, so a
        long one would read as cut short; one byte more past the limit makes it the 413."""
        data = super().get_data(cache=cache, parse_form_data=parse_form_data)
        limit, streamed = self.max_content_length, self.content_length is None
        if streamed and limit is not None and len(data) >= limit and self.stream_goes_on():
            raise RequestEntityTooLarge()
        return data.decode(errors="replace") if as_text else data

    def stream_goes_on(self) -> bool:
        """Whether the client's stream holds another byte (the server ends a chunked body)."""
        return bool(self.environ["wsgi.input"].read(1))

    def on_json_loading_failed(self, e: ValueError | None) -> Any:
        if e is None:  # wrong Content-Type: keep werkzeug's 415
            return super().on_json_loading_failed(e)
        if isinstance(e, JsonRefused):
            raise e
        raise ApiError(400, "malformed_json", f"The request body is not valid JSON: {e}")


def _api_error(error: ApiError) -> Response:
    return problem(error.status, error.code, error.detail, title=error.title, extra=error.extra)


#: The one mapping of the command layer's errors (``service.core.refusals``) to HTTP statuses.
STATUSES: dict[type[ApplicationError], int] = {
    Unauthorized: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    Unprocessable: 422,
    Unavailable: 503,
}


def status_of(error: ApplicationError) -> int:
    """The HTTP status of an application error (the nearest class the table names)."""
    for cls in type(error).__mro__:
        if cls in STATUSES:
            return STATUSES[cls]
    return 400


def _application_error(error: ApplicationError) -> Response:
    return problem(status_of(error), error.code, error.detail, extra=error.extra)


def _json_refused(error: JsonRefused) -> Response:
    extra = {**error.extra, **({"line": error.line} if error.line is not None else {})}
    return problem(400, error.code, error.detail, extra=extra)


def _too_large(error: RequestEntityTooLarge) -> Response:
    """413 naming the route's limit (``service.core.client_json``), refused before or while
    reading."""
    limit = request.max_content_length
    detail = f"this route takes a body of at most {limit} bytes" if limit else error.description
    return problem(413, "payload_too_large", detail or "the body is too large")


def _http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    code = HTTP_CODES.get(status) or (error.name or "error").lower().replace(" ", "_")
    headers = {}
    if valid_methods := getattr(error, "valid_methods", None):  # 405 must say what is allowed
        headers["Allow"] = ", ".join(sorted(valid_methods))
    return problem(status, code, error.description or HTTPStatus(status).phrase, headers=headers)


def flat_messages(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow's nested messages as ``{"seats.0.bot": ["…"]}``: one list per field."""
    if isinstance(messages, dict):
        out: dict[str, list[str]] = {}
        for key, value in messages.items():
            name = prefix if key == "_schema" and prefix else f"{prefix}.{key}" if prefix else key
            for field, texts in flat_messages(value, str(name)).items():
                out.setdefault(field, []).extend(texts)
        return out
    if isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        return {prefix or "_schema": list(messages)}
    if isinstance(messages, list):
        out = {}
        for value in messages:
            for field, texts in flat_messages(value, prefix).items():
                out.setdefault(field, []).extend(texts)
        return out
    return {prefix or "_schema": [str(messages)]}


def _validation_error(error: ValidationError) -> Response:
    return problem(
        422,
        "validation_error",
        "The request is well-formed but some fields are invalid.",
        extra={"errors": flat_messages(error.messages)},
    )


def _database_unavailable(error: OperationalError) -> Response:
    logger.warning("database unavailable: %s", error.orig)
    return problem(503, "database_unavailable", "The database is unavailable; try again later.")


def _broker_unavailable(error: BrokerError) -> Response:
    logger.warning("broker unavailable: %s", error)
    return problem(503, "broker_unavailable", "The task broker is unavailable; try again later.")


def _rule_violation(error: RuleViolation) -> Response:
    """A broken rule: 409 when it is only the wrong moment, else 422."""
    status = 409 if error.code in WRONG_TIME_CODES else 422
    return problem(status, error.code, error.message)


def _version_conflict(error: VersionConflict) -> Response:
    if error.expected is None:
        detail = f"the table kept changing (now version {error.current}); reload and retry"
    else:
        detail = f"the table is at version {error.current}, not {error.expected}; reload and retry"
    return problem(409, "version_conflict", detail, extra={"current": error.current})


def _unexpected(error: Exception) -> Response:
    logger.exception("unhandled error", exc_info=error)
    return problem(500, "internal_error", "An unexpected error occurred; it has been logged.")


def register_error_handlers(app: Flask) -> None:
    """Install the handlers; Flask picks the most specific one by exception class."""
    app.request_class = JsonRequest
    app.register_error_handler(ApiError, _api_error)
    app.register_error_handler(ApplicationError, _application_error)
    app.register_error_handler(HTTPException, _http_exception)
    app.register_error_handler(RequestEntityTooLarge, _too_large)
    app.register_error_handler(JsonRefused, _json_refused)
    app.register_error_handler(ValidationError, _validation_error)
    app.register_error_handler(OperationalError, _database_unavailable)
    app.register_error_handler(BrokerError, _broker_unavailable)
    app.register_error_handler(RuleViolation, _rule_violation)
    app.register_error_handler(VersionConflict, _version_conflict)
    app.register_error_handler(Exception, _unexpected)
