"""Every route of the app: the API's blueprints (``service.api``) and the pages'
(``service.pages``), registered by ``service.app.create_app``."""

from __future__ import annotations

from flask import Flask
from werkzeug.routing import BaseConverter

from service.api.audit import blueprint as audit
from service.api.health import blueprint as health
from service.api.jobs import blueprint as jobs
from service.api.lists import blueprint as lists
from service.api.players import blueprint as players
from service.api.rounds import blueprint as rounds
from service.api.seats import blueprint as seats
from service.api.spec import blueprint as spec
from service.api.tables import blueprint as tables
from service.api.tournaments import blueprint as tournaments
from service.pages import blueprint as pages
from service.pages.console import blueprint as console
from service.pages.play import blueprint as page_play
from service.pages.rules import blueprint as rules

BLUEPRINTS = (
    health,
    spec,
    tables,
    audit,
    jobs,
    tournaments,
    players,
    lists,
    seats,
    rounds,
    pages,
    page_play,
    rules,
    console,
)


class StreamId(BaseConverter):
    """A table or tournament id: 32 lower-case hex digits (a UUID), so that fixed words
    such as ``/tables/import`` never read as an id."""

    regex = "[0-9a-f]{32}"


def register_blueprints(app: Flask) -> None:
    app.url_map.converters["id"] = StreamId
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
