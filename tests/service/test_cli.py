"""`cardledger token` makes one organiser token and then keeps it."""

from __future__ import annotations

import stat
from pathlib import Path

from service.config import Config, ensure_admin_token


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
