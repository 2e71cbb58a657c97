"""Every route of the app: the API's blueprints (``service.web.api``, registered through
flask-smorest's ``Api``, which documents them) and the pages' (``service.web.pages``), registered
by ``service.running.app.create_app``."""

from __future__ import annotations

from typing import Any

from flask import Flask
from werkzeug.routing import BaseConverter

from service.web.api.audit import blp as audit
from service.web.api.entries import blp as entries
from service.web.api.health import blp as health
from service.web.api.jobs import blp as jobs
from service.web.api.lists import blp as lists
from service.web.api.players import blp as players
from service.web.api.rounds import blp as rounds
from service.web.api.seats import blp as seats
from service.web.api.spec import blp as spec
from service.web.api.tables import blp as tables
from service.web.api.tournaments import blp as tournaments
from service.web.api.watch import blp as watch
from service.web.openapi import init_api
from service.web.pages import blueprint as pages
from service.web.pages import console_seats  # noqa: F401 (adds its routes to the console's)
from service.web.pages.console import blueprint as console
from service.web.pages.play import blueprint as page_play
from service.web.pages.rules import blueprint as rules
from service.web.pages.wall import blueprint as wall

#: Documented in ``openapi.yaml``.
API_BLUEPRINTS = (
    health, spec, tables, audit, jobs, tournaments, players, lists, seats, rounds, entries, watch,
)  # fmt: skip
#: HTML, outside the API's description.
BLUEPRINTS = (pages, page_play, rules, console, wall)


class StreamId(BaseConverter):
    """A table or tournament id: 32 lower-case hex digits (a UUID), so that fixed words
    such as ``/tables/import`` never read as an id."""

    regex = "[0-9a-f]{32}"


def stream_id_schema(converter: BaseConverter) -> dict[str, Any]:
    """A path's id in the spec matches only what the converter does."""
    return {"type": "string", "pattern": f"^{converter.regex}$"}


def register_blueprints(app: Flask) -> None:
    app.url_map.converters["id"] = StreamId
    api = init_api(app)
    api.register_converter(StreamId, stream_id_schema)
    for documented in API_BLUEPRINTS:
        api.register_blueprint(documented)
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
