"""What every API blueprint shares: flask-smorest's ``Blueprint`` reading bodies through our
limits, refusing as the contract says, and checking the caller before it reads a body.

- Bodies: ``@blp.arguments(Schema)`` reads the JSON with :func:`json_body` (``ClientParser``),
  so ``service.core.client_json``'s limits (depth, a key twice) and the storable-text check apply to
  every body, whatever its ``Content-Type`` says.
- Refusals: a schema's ``ValidationError`` is re-raised as is, so ``service.web.problems`` answers
  422 ``validation_error`` with ``errors: {field: [messages]}`` (webargs would nest them under
  the location).
- The caller: ``organiser_only`` and ``seat_or_organiser`` go between ``@blp.<method>`` and
  ``@blp.arguments``, so a forged token is refused before a byte of the body is read.
- The spec: ``@blp.problems(401, 404)`` names the shared problem responses
  (``service.web.openapi.RESPONSES``); ``operation_id=`` and ``security=`` on the route.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any, NoReturn

import flask_smorest
from flask import request
from marshmallow import Schema, ValidationError
from webargs.flaskparser import FlaskParser

from service.web.auth import require_organiser, require_player
from service.web.problems import ApiError

#: The problem responses of ``components/responses`` (``service.web.openapi``), by status.
PROBLEMS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    409: "Conflict",
    413: "TooLarge",
    422: "Unprocessable",
    503: "Unavailable",
}
#: ``security=`` of a route anyone may call, whose answer a token may widen (hands, seeds).
TOKEN_OPTIONAL: list[dict[str, list[str]]] = [{}, {"bearer": []}]
#: ``security=`` of a route that never looks at a token.
NO_TOKEN: list[dict[str, list[str]]] = []


def json_body() -> Any:
    """The request's JSON object; text that cannot be stored as UTF-8 JSON (a lone
    surrogate, NaN) is refused here rather than deep in the hash chain."""
    body = request.get_json(force=True)  # JSON whatever the Content-Type says
    try:
        json.dumps(body, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (ValueError, UnicodeEncodeError) as error:
        raise ApiError(400, "malformed_json", f"the body is not storable JSON: {error}") from None
    if not isinstance(body, dict):
        raise ApiError(
            422,
            "validation_error",
            "the body must be a JSON object",
            extra={"errors": {"_schema": ["the body must be a JSON object"]}},
        )
    return body


class ClientParser(FlaskParser):
    """webargs, reading a client's JSON our way and leaving refusals to ``service.web.problems``."""

    #: A query schema says itself whether it takes unknown parameters (``Meta.unknown``).
    DEFAULT_UNKNOWN_BY_LOCATION: dict[str, str | None] = {  # noqa: RUF012 (webargs' own)
        **FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION,
        "query": None,
        "querystring": None,
    }

    def load_json(self, req: Any, schema: Schema) -> Any:
        return json_body()

    def load_headers(self, req: Any, schema: Schema) -> Any:
        """Only the headers the schema names, as a plain dict (none of ours is a list):
        webargs' view of them all costs a request more than the rest of its parsing."""
        names = (field.data_key or name for name, field in schema.fields.items())
        return {name: req.headers[name] for name in names if name in req.headers}

    def handle_error(self, error: ValidationError, req: Any, schema: Schema, **_: Any) -> NoReturn:
        """webargs files messages under the location (``{"json": {...}}``); the contract
        lists them by field."""
        by_location = error.messages
        assert isinstance(by_location, dict)
        (error.messages,) = by_location.values()  # one location per @blp.arguments
        raise error


class Blueprint(flask_smorest.Blueprint):
    """A flask-smorest blueprint that parses with ``ClientParser`` and documents our way."""

    ARGUMENTS_PARSER = ClientParser()

    def route(
        self,
        rule: str,
        *,
        operation_id: str | None = None,
        security: list[dict[str, list[str]]] | None = None,
        **options: Any,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """``flask_smorest.Blueprint.route``, also naming the ``operationId`` and, for a
        route open to callers without the organiser's or a seat's token, its ``security``."""
        register = super().route(rule, **options)
        manual: dict[str, Any] = {"operationId": operation_id} if operation_id else {}
        if security is not None:
            manual["security"] = security

        def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
            return register(_docs_only(view, self.doc(**manual)) if manual else view)

        return decorator

    def arguments(
        self, schema: Schema, *, location: str = "json", **options: Any
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """``flask_smorest.Blueprint.arguments``, parsing with webargs straight into the view
        (flask-smorest's own wrapper between them is one more call at every request)."""
        documented = super().arguments(schema, location=location, **options)
        parsing = {key: value for key, value in options.items() if key not in _DOCS_ONLY}

        def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
            parsed = self.ARGUMENTS_PARSER.use_args(schema, location=location, **parsing)(view)
            parsed._apidoc = documented(view)._apidoc  # type: ignore[attr-defined]
            return parsed

        return decorator

    def problems(self, *statuses: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Document each status as its shared problem response (``@blp.alt_response``)."""

        def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
            for status in statuses:
                view = _docs_only(view, self.alt_response(status, response=PROBLEMS[status]))
            return view

        return decorator


#: ``arguments`` options that only document (the rest are webargs' ``use_args`` options).
_DOCS_ONLY = {"content_type", "required", "description", "example", "examples"}


def _docs_only(view: Callable[..., Any], decorator: Callable[..., Any]) -> Callable[..., Any]:
    """What a documenting decorator (``doc``, ``alt_response``) writes in ``_apidoc``, on
    ``view`` itself: their wrappers would only add a call to every request."""
    view._apidoc = decorator(view)._apidoc  # type: ignore[attr-defined]
    return view


def organiser_only(view: Callable[..., Any]) -> Callable[..., Any]:
    """Only the organiser's token passes, checked before the body is read (put it under
    ``@blp.<method>``, above ``@blp.arguments``)."""

    @wraps(view)
    def checked(*args: Any, **kwargs: Any) -> Any:
        require_organiser()
        return view(*args, **kwargs)

    return checked


def seat_or_organiser(why: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The organiser or a seat of the route's ``table_id``, else 401 (``why``), decided from
    the header before the body is read; the view gets it as ``viewer``."""

    def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def checked(*args: Any, **kwargs: Any) -> Any:
            viewer = require_player(kwargs["table_id"], why)
            return view(*args, viewer=viewer, **kwargs)

        return checked

    return decorator
