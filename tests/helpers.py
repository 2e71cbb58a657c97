"""Helpers for tests that build apps beyond the default `app` fixture."""

from __future__ import annotations

from flask import Flask

from service.app import create_app
from service.config import Config

ADMIN_TOKEN = "test-organiser-token"


def make_test_app(database_url: str, redis_url: str | None = None) -> Flask:
    """An app on `database_url`, with a known organiser token and Flask's testing mode."""
    app = create_app(
        Config(database_url=database_url, redis_url=redis_url, admin_token=ADMIN_TOKEN)
    )
    app.config["TESTING"] = True
    return app
