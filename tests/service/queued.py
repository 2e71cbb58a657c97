"""An app whose jobs go to the real SQLite broker `make run` uses, with no worker taking
them: what the routes queue stays in the broker file, where a test reads it, and a test
runs the tasks' own functions itself, the way a worker would."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path
from typing import Any

from flask import Flask

from service.core.config import Config
from service.core.signing import new_private_key
from service.running.app import create_app
from service.storage.db import run_migrations
from tests.helpers import ADMIN_TOKEN

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def queued_app(database_url: str, broker: Path, **config: Any) -> Flask:
    """A migrated app on ``database_url`` whose tasks go to the SQLite broker ``broker``."""
    run_migrations(database_url)
    app = create_app(
        Config(database_url=database_url, admin_token=ADMIN_TOKEN, signing_key=new_private_key(),
               jobs="sqlite", broker_url=f"sqla+sqlite:///{broker}", **config)
    )  # fmt: skip
    app.config["TESTING"] = True
    return app


def waiting(broker: Path) -> list[tuple[str, list[Any]]]:
    """The tasks waiting in the broker, oldest first: (task name, arguments)."""
    if not broker.exists():
        return []
    with sqlite3.connect(broker) as db:
        rows = db.execute("SELECT payload FROM kombu_message WHERE visible ORDER BY id").fetchall()
    found = []
    for (payload,) in rows:
        message = json.loads(payload)
        args = json.loads(base64.b64decode(message["body"]))[0]
        found.append((message["headers"]["task"], args))
    return found


def tasks(broker: Path, name: str) -> list[list[Any]]:
    """The arguments of each waiting ``name`` task."""
    return [args for task, args in waiting(broker) if task == name]
