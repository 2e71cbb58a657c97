"""The one place where errors become RFC 9457 `application/problem+json` responses.

Every error a client can see has a stable machine-readable `code`; a 5xx other than 503 is a
bug, so anything unexpected is logged and turned into a bare 500 problem without internals.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from flask import Flask, Request, Response, current_app, has_request_context, jsonify, request
from flask_babel import force_locale, lazy_gettext
from flask_babel.speaklater import LazyString
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


#: Werkzeug's own descriptions of its HTTP errors, by status, so a client asking for another
#: language (Accept-Language) reads them in it.
HTTP_DETAILS: dict[int, LazyString] = {
    400: lazy_gettext(
        "The browser (or proxy) sent a request that this server could not understand."
    ),
    401: lazy_gettext(
        "The server could not verify that you are authorized to access the URL requested. You "
        "either supplied the wrong credentials (e.g. a bad password), or your browser doesn't "
        "understand how to supply the credentials required."
    ),
    403: lazy_gettext(
        "You don't have the permission to access the requested resource. It is either "
        "read-protected or not readable by the server."
    ),
    404: lazy_gettext(
        "The requested URL was not found on the server. If you entered the URL manually please "
        "check your spelling and try again."
    ),
    405: lazy_gettext("The method is not allowed for the requested URL."),
    409: lazy_gettext(
        "A conflict happened while processing the request. The resource might have been "
        "modified while the request was being processed."
    ),
    415: lazy_gettext("The server does not support the media type transmitted in the request."),
}


def asked_language(message: LazyString | str) -> str:
    """A fixed message in the language the client's ``Accept-Language`` asks for, among the
    app's languages (``LANGUAGES`` in its config, set with Flask-Babel; English otherwise):
    a problem's ``detail`` may follow it, its ``code`` never does."""
    known = current_app.config.get("LANGUAGES") if has_request_context() else None
    if not known:
        return str(message)
    with force_locale(request.accept_languages.best_match(known) or known[0]):
        return str(message)


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
        said = lazy_gettext("The request body is not valid JSON: %(why)s", why=str(e))
        raise ApiError(400, "malformed_json", asked_language(said))


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
    if limit:
        said = lazy_gettext("this route takes a body of at most %(limit)s bytes", limit=limit)
        return problem(413, "payload_too_large", asked_language(said))
    detail = error.description or lazy_gettext("the body is too large")
    return problem(413, "payload_too_large", asked_language(detail))


def _http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    code = HTTP_CODES.get(status) or (error.name or "error").lower().replace(" ", "_")
    headers = {}
    if valid_methods := getattr(error, "valid_methods", None):  # 405 must say what is allowed
        headers["Allow"] = ", ".join(sorted(valid_methods))
    detail = error.description or HTTPStatus(status).phrase
    if detail == type(error).description and status in HTTP_DETAILS:  # werkzeug's own words
        detail = asked_language(HTTP_DETAILS[status])
    return problem(status, code, detail, headers=headers)


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
        asked_language(lazy_gettext("The request is well-formed but some fields are invalid.")),
        extra={"errors": flat_messages(error.messages)},
    )


def _database_unavailable(error: OperationalError) -> Response:
    logger.warning("database unavailable: %s", error.orig)
    said = lazy_gettext("The database is unavailable; try again later.")
    return problem(503, "database_unavailable", asked_language(said))


def _broker_unavailable(error: BrokerError) -> Response:
    logger.warning("broker unavailable: %s", error)
    said = lazy_gettext("The task broker is unavailable; try again later.")
    return problem(503, "broker_unavailable", asked_language(said))


def _rule_violation(error: RuleViolation) -> Response:
    """A broken rule: 409 when it is only the wrong moment, else 422."""
    status = 409 if error.code in WRONG_TIME_CODES else 422
    return problem(status, error.code, error.message)


def _version_conflict(error: VersionConflict) -> Response:
    if error.expected is None:
        said = lazy_gettext(
            "the table kept changing (now version %(current)s); reload and retry",
            current=error.current,
        )
    else:
        said = lazy_gettext(
            "the table is at version %(current)s, not %(expected)s; reload and retry",
            current=error.current,
            expected=error.expected,
        )
    return problem(409, "version_conflict", asked_language(said), extra={"current": error.current})


def _unexpected(error: Exception) -> Response:
    logger.exception("unhandled error", exc_info=error)
    said = lazy_gettext("An unexpected error occurred; it has been logged.")
    return problem(500, "internal_error", asked_language(said))


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
