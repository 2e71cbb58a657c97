"""The Flask application factory (`gunicorn 'service.running.app:create_app()'`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask, current_app, request
from flask.json.provider import DefaultJSONProvider

from service.application import changes
from service.application.tournaments import read_tournament
from service.core import resources
from service.core.client_json import MAX_JSON_BODY, loads
from service.core.config import Config
from service.core.refusals import ApplicationError
from service.jobs import botplay
from service.running.maintenance import cardledger
from service.running.routes import register_blueprints
from service.storage import db
from service.web import headers, languages
from service.web.problems import register_error_handlers

#: Where the pages' templates live (``service/web/templates``): the app's root for Flask.
WEB = Path(__file__).resolve().parent.parent / "web"


def create_app(config: Config | None = None) -> Flask:
    """Build an app around `config` (default: from the environment).

    Everything stateful hangs off the app, never a module global, so tests can build as many
    independent apps as they like.
    """
    config = config or Config.from_env()
    app = Flask("service", root_path=str(WEB), template_folder="templates")
    app.config["CARDLEDGER"] = config
    app.extensions[resources.CONFIG_KEY] = config
    resources.find_with(lambda: current_app.extensions)  # commands find the app's resources
    app.json = ClientJsonProvider(app)  # a client's JSON: no deep nesting, no key twice
    app.json.sort_keys = False  # keep the documented field order
    app.config["MAX_CONTENT_LENGTH"] = MAX_JSON_BODY  # the import route raises its own limit
    headers.install(app)  # no-store, CSP, nosniff, no framing, no referrer: every response
    languages.install(app)  # the pages' words in en, es, fi, fr (Flask-Babel)
    app.before_request(speak_club_language)  # a tournament's slips and wall
    db.init_app(app, config.database_url)
    register_error_handlers(app)
    register_blueprints(app)
    changes.subscribe(app.extensions, changes.TableChanged, botplay.wake_bots)
    app.cli.add_command(cardledger)  # flask --app service cardledger rebuild-projections
    return app


#: The pages that speak a tournament's club language when their viewer chose none.
CLUB_PAGES = ("wall.wall", "console.slips")


def speak_club_language() -> None:
    """A tournament's seat slips and wall speak its club's language (``language`` when it was
    created), unless the viewer chose one; the page itself answers an unknown tournament."""
    if request.endpoint not in CLUB_PAGES or not request.view_args:
        return
    try:
        config = read_tournament(request.view_args["tournament_id"]).state.config
    except ApplicationError:
        return
    languages.speak_club_language(config.language)


class ClientJsonProvider(DefaultJSONProvider):
    """Flask's JSON, reading with :func:`service.core.client_json.loads`: every ``request.get_json``
    goes through it."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads(s)
