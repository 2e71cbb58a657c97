"""Helpers for tests that build apps beyond the default `app` fixture."""

from __future__ import annotations

from flask import Flask

from service.app import create_app
from service.config import Config
from service.db import run_migrations

ADMIN_TOKEN = "test-organiser-token"


def make_test_app(
    database_url: str, redis_url: str | None = None, *, migrate: bool = True
) -> Flask:
    """An app on a migrated `database_url`, with a known organiser token, in testing mode."""
    if migrate:
        run_migrations(database_url)
    app = create_app(
        Config(database_url=database_url, redis_url=redis_url, admin_token=ADMIN_TOKEN)
    )
    app.config["TESTING"] = True
    return app
