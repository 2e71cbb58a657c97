"""The Flask application factory (`gunicorn 'service.running.app:create_app()'`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask, current_app
from flask.json.provider import DefaultJSONProvider

from service.application import changes
from service.core import resources
from service.core.client_json import MAX_JSON_BODY, loads
from service.core.config import Config
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
    db.init_app(app, config.database_url)
    register_error_handlers(app)
    register_blueprints(app)
    changes.subscribe(app.extensions, changes.TableChanged, botplay.wake_bots)
    app.cli.add_command(cardledger)  # flask --app service cardledger rebuild-projections
    return app


class ClientJsonProvider(DefaultJSONProvider):
    """Flask's JSON, reading with :func:`service.core.client_json.loads`: every ``request.get_json``
    goes through it."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads(s)
