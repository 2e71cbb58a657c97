"""The Flask application factory (`gunicorn 'service.app:create_app()'`)."""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app
from flask.json.provider import DefaultJSONProvider

from service import botplay, db, followups, headers, house
from service.chores import cardledger
from service.config import Config
from service.errors import register_error_handlers
from service.jsonbody import MAX_JSON_BODY, loads
from service.routes import register_blueprints


def create_app(config: Config | None = None) -> Flask:
    """Build an app around `config` (default: from the environment).

    Everything stateful hangs off the app, never a module global, so tests can build as many
    independent apps as they like.
    """
    config = config or Config.from_env()
    app = Flask(__name__)
    app.config["CARDLEDGER"] = config
    app.extensions[house.CONFIG_KEY] = config
    house.find_with(lambda: current_app.extensions)  # commands find the app's resources
    app.json = ClientJsonProvider(app)  # a client's JSON: no deep nesting, no key twice
    app.json.sort_keys = False  # keep the documented field order
    app.config["MAX_CONTENT_LENGTH"] = MAX_JSON_BODY  # the import route raises its own limit
    headers.install(app)  # no-store, CSP, nosniff, no framing, no referrer: every response
    db.init_app(app, config.database_url)
    register_error_handlers(app)
    register_blueprints(app)
    followups.register(app.extensions, followups.TABLE_CHANGED, botplay.after_action)
    app.cli.add_command(cardledger)  # flask --app service cardledger rebuild-projections
    return app


class ClientJsonProvider(DefaultJSONProvider):
    """Flask's JSON, reading with :func:`service.jsonbody.loads`: every ``request.get_json``
    goes through it."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads(s)
