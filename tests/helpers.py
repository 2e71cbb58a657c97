"""Helpers for tests that build apps beyond the default `app` fixture."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from flask import Flask

from service.core.config import Config
from service.core.signing import new_private_key
from service.running.app import create_app
from service.storage.db import run_migrations

ADMIN_TOKEN = "test-organiser-token"
#: The tests' server key: every app a test builds is the same server unless it says
#: otherwise (its processes share one key, as a real server's do).
SIGNING_KEY = new_private_key()


def make_test_app(
    database_url: str,
    redis_url: str | None = None,
    *,
    migrate: bool = True,
    signing_key: str | None = None,
    trusted_keys: tuple[str, ...] = (),
    jobs: str | None = None,
    broker_url: str | None = None,
) -> Flask:
    """An app on a migrated `database_url`, with a known organiser token, in testing mode.

    Its jobs run where ``jobs`` says; by default through Redis given a ``redis_url``, else
    eagerly inside the request (``CARDLEDGER_JOBS=eager``), never `make run`'s SQLite broker.

    Its signing key is `signing_key`, else the tests' ``SIGNING_KEY``: never the checkout's
    `var/signing-key`.
    """
    if migrate:
        run_migrations(database_url)
    config = Config(
        database_url=database_url,
        redis_url=redis_url,
        admin_token=ADMIN_TOKEN,
        signing_key=signing_key or SIGNING_KEY,
        trusted_keys=trusted_keys,
        jobs=jobs or ("redis" if redis_url else "eager"),
        broker_url=broker_url,
    )
    app = create_app(config)
    app.config["TESTING"] = True
    return app


def wait_for(check: Callable[[], Any], seconds: float, what: str) -> Any:
    """Poll ``check`` until it returns something truthy, at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")
