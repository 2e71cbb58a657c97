"""Fuzz every documented route from the served `openapi.yaml`: responses must match the spec
and no request may cause a server error."""

from __future__ import annotations

import pytest
import schemathesis
from flask import Flask


@pytest.fixture
def api_schema(app: Flask) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_wsgi("/openapi.yaml", app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
def test_api_matches_its_contract(case: schemathesis.Case) -> None:
    case.call_and_validate()
