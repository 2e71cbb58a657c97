"""The contract's HTTP tests share one app per module: each test opens tables of its own,
so none needs a fresh database, and migrating one per test would be most of their time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask

from service.storage.db import get_database
from tests.helpers import make_test_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """An app on a SQLite file of the module's own, no broker (tasks run eagerly)."""
    app = make_test_app(f"sqlite:///{tmp_path_factory.mktemp('contract') / 'cardledger.db'}")
    yield app
    get_database(app).engine.dispose()
