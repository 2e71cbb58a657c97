"""The Flask application factory (`gunicorn 'service.app:create_app()'`)."""

from __future__ import annotations

from flask import Flask

from service import db
from service.api import register_blueprints
from service.cli import cardledger
from service.config import Config
from service.errors import register_error_handlers


def create_app(config: Config | None = None) -> Flask:
    """Build an app around `config` (default: from the environment).

    Everything stateful hangs off the app, never a module global, so tests can build as many
    independent apps as they like.
    """
    config = config or Config.from_env()
    app = Flask(__name__)
    app.config["CARDLEDGER"] = config
    app.json.sort_keys = False  # type: ignore[attr-defined]  # keep the documented field order
    db.init_app(app, config.database_url)
    register_error_handlers(app)
    register_blueprints(app)
    app.cli.add_command(cardledger)  # flask --app service cardledger rebuild-projections
    return app
