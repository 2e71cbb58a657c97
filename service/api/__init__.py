"""HTTP routes, one blueprint per resource."""

from __future__ import annotations

from flask import Flask

from service.api.health import blueprint as health
from service.api.spec import blueprint as spec
from service.api.tables import blueprint as tables

BLUEPRINTS = (health, spec, tables)


def register_blueprints(app: Flask) -> None:
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
