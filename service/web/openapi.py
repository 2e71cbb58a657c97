"""The API's OpenAPI description: flask-smorest's ``Api`` gathers it from the routes'
declarations (``@blp.arguments``, ``@blp.response``, ``@blp.problems``: ``service.web.api``),
and this module adds what is shared (problem responses, bearer security, body limits).

The output is deterministic (paths and schemas sorted, fixed key order) so the committed
file can be compared with a fresh build in a test: the spec cannot silently drift from the
code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import flask_smorest
import yaml
from apispec import BasePlugin
from apispec.ext.marshmallow.common import resolve_schema_cls
from flask import Flask

from service.core.client_json import MAX_DEPTH, MAX_IMPORT_BODY, MAX_JSON_BODY
from service.core.config import PROJECT_ROOT
from service.version import __version__
from service.web.schemas import ProblemSchema

SPEC_PATH = PROJECT_ROOT / "openapi.yaml"
OPENAPI_VERSION = "3.0.3"  # 3.0 rather than 3.1: best supported by schemathesis and client tools

#: Error responses the routes refer to as ``#/components/responses/<name>``.
RESPONSES = {
    "BadRequest": "Malformed JSON or header; JSON nested more than "
    f"{MAX_DEPTH} deep (`too_deeply_nested`) or naming a key twice in one object "
    "(`duplicate_key`).",
    "Unauthorized": "No token, or a token this resource does not know.",
    "Forbidden": "The token may not do this.",
    "NotFound": "No such resource.",
    "Conflict": "Version conflict (`version_conflict`), the wrong moment for this action, or "
    "a damaged stored log (`log_damaged`, naming its first bad `version`).",
    "Unprocessable": "Well-formed but invalid (`validation_error`) or against the rules.",
    "Unavailable": "A backing service this needs is down (`broker_unavailable`).",
    "TooLarge": f"The body is larger than the route takes (`payload_too_large`): "
    f"{MAX_JSON_BODY // 1024} KiB, or {MAX_IMPORT_BODY // 2**20} MiB for an import.",
}


class BodyLimits(BasePlugin):
    """Every route that takes a body may answer 413: the limit is app-wide
    (``service.running.app``)."""

    def operation_helper(
        self, path: str | None = None, operations: dict | None = None, **_: object
    ) -> None:
        for operation in (operations or {}).values():
            if "requestBody" in operation:
                operation.setdefault("responses", {})["413"] = {
                    "$ref": "#/components/responses/TooLarge"
                }


class CrossFieldRules(BasePlugin):
    """A rule across fields (``exactly one of …``) that a schema checks in its
    ``@validates_schema`` is invisible to apispec: the schema states it as ``Meta.openapi``
    (JSON Schema keywords), added to its component so the spec says what the server checks."""

    def schema_helper(self, name: str, definition: dict, **kwargs: Any) -> dict | None:
        schema = kwargs.get("schema")
        meta = getattr(resolve_schema_cls(schema), "Meta", None) if schema else None
        return dict(getattr(meta, "openapi", None) or {}) or None


class Api(flask_smorest.Api):
    """flask-smorest's ``Api`` for the spec and the blueprints' registration only: errors
    stay ``service.web.problems``'s problems, and no response is documented that is not declared."""

    DEFAULT_ERROR_RESPONSE_NAME = None

    def _register_error_handlers(self) -> None:
        """``service.web.problems`` answers every error (problem+json with a stable ``code``)."""

    def _register_responses(self) -> None:
        """Our problem responses instead (``init_api``)."""

    def _register_pagination_header(self) -> None:
        """No route pages with flask-smorest's headers (lists page with ``next``)."""

    def _register_etag_headers(self) -> None:
        """``If-Match`` is documented where a route reads it."""


def init_api(app: Flask) -> Api:
    """The app's ``Api``, with the components every route may refer to."""
    api = Api(
        app,
        spec_kwargs={
            "title": "Card Ledger",
            "version": __version__,
            "openapi_version": OPENAPI_VERSION,
            "info": {"description": "Event-sourced tournament and scoring service for card games."},
            "extra_plugins": [BodyLimits(), CrossFieldRules()],
        },
    )
    spec = api.spec
    assert spec is not None
    spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    spec.components.schema("Problem", schema=ProblemSchema)
    for name, description in RESPONSES.items():
        spec.components.response(
            name,
            {
                "description": description,
                "content": {"application/problem+json": {"schema": "Problem"}},
            },
        )
    return api


def render_spec(app: Flask) -> str:
    api: Api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
    built = api.spec.to_dict()
    built["paths"] = {path: _tidy(item) for path, item in sorted(built["paths"].items())}
    schemas = built.get("components", {}).get("schemas", {})
    built["components"]["schemas"] = dict(sorted(schemas.items()))
    built.setdefault("security", [{"bearer": []}])  # routes opt out with `security: []`
    order = ["openapi", "info", "security", "paths", "components"]
    document = {key: built[key] for key in order if key in built}
    document.update({key: value for key, value in built.items() if key not in document})
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)


def _tidy(item: dict[str, Any]) -> dict[str, Any]:
    """A path's operations with their responses by status, as people read them, and the
    docstring's description as paragraphs (its line breaks are the source's, not the text's)."""
    for operation in item.values():
        if isinstance(operation, dict) and "responses" in operation:
            operation["responses"] = dict(sorted(operation["responses"].items()))
            if "description" in operation:
                paragraphs = operation["description"].split("\n\n")
                operation["description"] = "\n\n".join(" ".join(p.split()) for p in paragraphs)
    return item


def write_spec(app: Flask, path: Path = SPEC_PATH) -> bool:
    """Write the spec to `path`; return whether the content changed."""
    text = render_spec(app)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True
