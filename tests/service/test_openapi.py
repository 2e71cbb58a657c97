"""The committed `openapi.yaml` is exactly what the code generates, and is what we serve."""

from __future__ import annotations

import yaml
from flask import Flask
from flask.testing import FlaskClient

from service.web.openapi import SPEC_PATH, render_spec


def test_committed_spec_matches_the_code(app: Flask) -> None:
    assert SPEC_PATH.read_text(encoding="utf-8") == render_spec(app), "run `make openapi`"


def test_spec_is_served(client: FlaskClient) -> None:
    response = client.get("/openapi.yaml")
    assert response.status_code == 200
    assert response.mimetype == "application/yaml"
    assert response.get_data(as_text=True) == SPEC_PATH.read_text(encoding="utf-8")


def test_spec_documents_health_and_problem(app: Flask) -> None:
    document = yaml.safe_load(render_spec(app))
    assert document["openapi"].startswith("3.")
    assert set(document["paths"]["/health"]["get"]["responses"]) == {"200", "503"}
    assert {"Health", "Problem"} <= document["components"]["schemas"].keys()
