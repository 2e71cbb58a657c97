"""Every error is an RFC 9457 problem with a stable `code`, never an HTML page."""

from __future__ import annotations

from typing import NoReturn

import pytest
from flask import Flask, request
from flask.testing import FlaskClient
from marshmallow import Schema, fields
from sqlalchemy.exc import OperationalError

from service.web.problems import ApiError
from tests.helpers import assert_problem


class NameSchema(Schema):
    name = fields.String(required=True)


@pytest.fixture
def app(app: Flask) -> Flask:
    """The usual app plus routes that raise each kind of error."""

    @app.post("/_test/echo")
    def echo() -> dict[str, object]:
        return NameSchema().load(request.get_json())

    @app.get("/_test/api-error")
    def api_error() -> NoReturn:
        raise ApiError(409, "version_conflict", "expected 3, at 4", extra={"current": 4})

    @app.get("/_test/database")
    def database() -> NoReturn:
        raise OperationalError("SELECT 1", {}, Exception("connection refused"))

    @app.get("/_test/bug")
    def bug() -> NoReturn:
        raise RuntimeError("secret internals")

    return app


def test_unknown_route_is_a_404_problem(client: FlaskClient) -> None:
    assert_problem(client.get("/no/such/thing"), 404, "not_found")


def test_wrong_method_is_a_405_problem_with_allow(client: FlaskClient) -> None:
    response = client.delete("/health")
    assert_problem(response, 405, "method_not_allowed")
    assert "GET" in response.headers["Allow"]


def test_malformed_json_is_400(client: FlaskClient) -> None:
    response = client.post("/_test/echo", data="{nope", content_type="application/json")
    assert_problem(response, 400, "malformed_json")


def test_validation_error_lists_fields(client: FlaskClient) -> None:
    body = assert_problem(client.post("/_test/echo", json={}), 422, "validation_error")
    assert body["errors"] == {"name": ["Missing data for required field."]}


def test_api_error_keeps_code_and_extra_fields(client: FlaskClient) -> None:
    body = assert_problem(client.get("/_test/api-error"), 409, "version_conflict")
    assert (body["detail"], body["current"]) == ("expected 3, at 4", 4)


def test_database_operational_error_is_503(client: FlaskClient) -> None:
    assert_problem(client.get("/_test/database"), 503, "database_unavailable")


def test_unexpected_error_is_a_500_problem_without_internals(client: FlaskClient) -> None:
    body = assert_problem(client.get("/_test/bug"), 500, "internal_error")
    assert "secret" not in str(body)
