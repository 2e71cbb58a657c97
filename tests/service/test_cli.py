"""`cardledger token` makes one organiser token and then keeps it."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from service.core.config import Config, ensure_admin_token


def test_token_is_generated_once_with_mode_600(tmp_path: Path) -> None:
    token, created = ensure_admin_token({}, tmp_path)
    assert created and len(token) >= 40
    assert stat.S_IMODE((tmp_path / "admin-token").stat().st_mode) == 0o600
    assert ensure_admin_token({}, tmp_path) == (token, False)
    assert Config.from_env({}, tmp_path).admin_token == token


def test_environment_token_wins(tmp_path: Path) -> None:
    env = {"CARDLEDGER_ADMIN_TOKEN": "from-env"}
    assert ensure_admin_token(env, tmp_path) == ("from-env", False)
    assert not (tmp_path / "admin-token").exists()


def test_config_defaults(tmp_path: Path) -> None:
    config = Config.from_env({"DATABASE_URL": "postgres://u@h/db", "REDIS_URL": ""}, tmp_path)
    assert config.database_url == "postgresql+psycopg://u@h/db"
    assert config.redis_url is None
    default = Config.from_env({}, tmp_path / "var")
    assert default.database_url == f"sqlite:///{tmp_path / 'var' / 'cardledger.db'}"
    assert (tmp_path / "var").is_dir()


def test_a_pages_quiet_moment_after_a_redraw(tmp_path: Path) -> None:
    """600 ms unless CARDLEDGER_TAP_QUIET_MS says otherwise; never negative."""
    assert Config.from_env({}, tmp_path).tap_quiet_ms == 600
    assert Config.from_env({"CARDLEDGER_TAP_QUIET_MS": "150"}, tmp_path).tap_quiet_ms == 150
    with pytest.raises(ValueError, match="CARDLEDGER_TAP_QUIET_MS"):
        Config.from_env({"CARDLEDGER_TAP_QUIET_MS": "-1"}, tmp_path)


def test_where_jobs_run(tmp_path: Path) -> None:
    """Without REDIS_URL jobs go through a SQLite broker under var/ (make run's worker);
    eager, inside the request, only when asked for (CARDLEDGER_JOBS=eager, the tests)."""
    default = Config.from_env({}, tmp_path)
    assert default.jobs == "sqlite"
    assert default.broker_url == f"sqla+sqlite:///{tmp_path.resolve() / 'celery-broker.sqlite'}"
    moved = Config.from_env({"CARDLEDGER_BROKER_URL": "sqla+sqlite:////x/b.sqlite"}, tmp_path)
    assert moved.broker_url == "sqla+sqlite:////x/b.sqlite"
    redis_env = {"REDIS_URL": "redis://h:6379/0"}
    assert Config.from_env(redis_env, tmp_path).jobs == "redis"
    assert Config.from_env(redis_env, tmp_path).broker_url == "redis://h:6379/0"
    assert Config.from_env({"CARDLEDGER_JOBS": "eager"}, tmp_path).jobs == "eager"
    with pytest.raises(ValueError, match="CARDLEDGER_JOBS"):
        Config.from_env({"CARDLEDGER_JOBS": "threads"}, tmp_path)
    with pytest.raises(ValueError, match="needs REDIS_URL"):
        Config.from_env({"CARDLEDGER_JOBS": "redis"}, tmp_path)
