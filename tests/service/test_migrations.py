"""Alembic upgrades and downgrades cleanly on both backends."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text

from service.storage.db import alembic_config


def assert_round_trip(url: str) -> None:
    config = alembic_config(url)
    head = ScriptDirectory.from_config(config).get_current_head()
    command.upgrade(config, "head")
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            assert connection.scalar(text("SELECT version_num FROM alembic_version")) == head
        command.downgrade(config, "base")
        command.upgrade(config, "head")
        assert "alembic_version" in inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_migrations_on_sqlite(sqlite_url: str) -> None:
    assert_round_trip(sqlite_url)


@pytest.mark.integration
def test_migrations_on_postgresql(postgres_url: str) -> None:
    assert_round_trip(postgres_url)
