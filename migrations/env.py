"""Alembic environment: the URL comes from service.core.config, never from alembic.ini."""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection

from service.core.config import Config
from service.storage.db import make_engine, metadata

config = context.config
if config.config_file_name and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

# Tests aim Alembic at their own database through `attributes`; otherwise use the environment.
database_url: str = config.attributes.get("database_url") or Config.from_env().database_url


def _configure(**kwargs: object) -> None:
    # Batch mode lets ALTER-style migrations work on SQLite by copying the table.
    context.configure(target_metadata=metadata, render_as_batch=True, **kwargs)  # type: ignore[arg-type]


def run_migrations_offline() -> None:
    _configure(url=database_url, literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


def _run(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
