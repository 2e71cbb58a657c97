"""Build `openapi.yaml` from the routes' docstrings and the marshmallow schemas.

The output is deterministic (routes sorted by path, fixed key order) so the committed file can
be compared with a fresh build in a test: the spec cannot silently drift from the code.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from apispec import APISpec, BasePlugin
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.common import resolve_schema_cls
from apispec_webframeworks.flask import FlaskPlugin
from flask import Flask

from service.config import PROJECT_ROOT
from service.jsonbody import MAX_DEPTH, MAX_IMPORT_BODY, MAX_JSON_BODY
from service.schemas import HealthSchema, ProblemSchema
from service.schemas import jobs as j
from service.schemas import lists as ls
from service.schemas import tables as t
from service.schemas import tournaments as tn
from service.schemas.common import SigningKeySchema
from service.version import __version__

SPEC_PATH = PROJECT_ROOT / "openapi.yaml"
OPENAPI_VERSION = "3.0.3"  # 3.0 rather than 3.1: best supported by schemathesis and client tools

DOCSTRING_YAML = re.compile(r"^\s*---\s*$", re.MULTILINE)
SCHEMAS = {
    "Health": HealthSchema,
    "Problem": ProblemSchema,
    "TableCreate": t.TableCreateSchema,
    "TableCreated": t.TableCreatedSchema,
    "Action": t.ActionSchema,
    "ActionResult": t.ActionResultSchema,
    "TableSummary": t.TableSummarySchema,
    "State": t.StateSchema,
    "EventPage": t.EventPageSchema,
    "DealHistory": t.DealHistorySchema,
    "Verification": t.VerificationSchema,
    "SigningKey": SigningKeySchema,
    "SimulationCreate": j.SimulationCreateSchema,
    "JobCreated": j.JobCreatedSchema,
    "Job": j.JobSchema,
    "TournamentCreate": tn.TournamentCreateSchema,
    "Tournament": tn.TournamentSchema,
    "EntryCreate": tn.EntryCreateSchema,
    "Entry": tn.EntrySchema,
    "RoundSeated": tn.RoundSeatedSchema,
    "Standings": tn.StandingsSchema,
    "PlayerCreate": tn.PlayerCreateSchema,
    "Player": tn.PlayerSchema,
    "Ladder": tn.LadderSchema,
    "TablePage": ls.TablePageSchema,
    "TournamentPage": ls.TournamentPageSchema,
    "PlayerPage": ls.PlayerPageSchema,
    "RoundSeating": ls.RoundSeatingSchema,
    "SeatToken": ls.SeatTokenSchema,
}
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
    """Every route that takes a body may answer 413: the limit is app-wide (``service.app``)."""

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


class PathIds(BasePlugin):
    """A path parameter routed by the ``id`` converter (``service.api.StreamId``) matches only
    what that converter does, so the spec takes its pattern from there: a fixed word such as
    ``/tables/import`` is then not offered as a table's id."""

    def operation_helper(
        self, path: str | None = None, operations: dict | None = None, **kwargs: Any
    ) -> None:
        app, view = kwargs.get("app"), kwargs.get("view")
        if app is None or view is None:
            return
        stream_id = app.url_map.converters["id"]
        patterns = {
            name: f"^{converter.regex}$"
            for rule in app.url_map.iter_rules()
            if app.view_functions.get(rule.endpoint) is view
            for name, converter in rule._converters.items()
            if isinstance(converter, stream_id)
        }
        for operation in (operations or {}).values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "path" and parameter.get("name") in patterns:
                    parameter.setdefault("schema", {})["pattern"] = patterns[parameter["name"]]


def build_spec(app: Flask) -> APISpec:
    spec = APISpec(
        title="Card Ledger",
        version=__version__,
        openapi_version=OPENAPI_VERSION,
        plugins=[FlaskPlugin(), MarshmallowPlugin(), BodyLimits(), CrossFieldRules(), PathIds()],
        info={
            "description": "Event-sourced tournament and scoring service for card games.",
        },
    )
    spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    for name, schema in sorted(SCHEMAS.items()):
        spec.components.schema(name, schema=schema)
    for name, description in RESPONSES.items():
        spec.components.response(
            name,
            {
                "description": description,
                "content": {"application/problem+json": {"schema": "Problem"}},
            },
        )
    rules = sorted(app.url_map.iter_rules(), key=lambda rule: (rule.rule, rule.endpoint))
    with app.app_context():
        for rule in rules:
            view = app.view_functions[rule.endpoint]
            if DOCSTRING_YAML.search(view.__doc__ or ""):  # only documented routes are published
                spec.path(view=view, app=app)
    return spec


def render_spec(app: Flask) -> str:
    built = build_spec(app).to_dict()
    built.setdefault("security", [{"bearer": []}])  # routes opt out with `security: []`
    order = ["openapi", "info", "security", "paths", "components"]
    document = {key: built[key] for key in order if key in built}
    document.update({key: value for key, value in built.items() if key not in document})
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)


def write_spec(app: Flask, path: Path = SPEC_PATH) -> bool:
    """Write the spec to `path`; return whether the content changed."""
    text = render_spec(app)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True
