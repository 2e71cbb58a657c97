"""Configuration read once from the environment, with defaults that work on a bare checkout.

A frozen dataclass so an app's configuration cannot drift after `create_app` has used it.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from service.core.secret_files import read_secret
from service.core.signing import Signer, parse_trusted_keys, read_signing_key

N = TypeVar("N", int, float)

PROJECT_ROOT = Path(__file__).resolve().parents[2]  # service/core/config.py
VAR_DIR = PROJECT_ROOT / "var"
ADMIN_TOKEN_FILE = "admin-token"
BROKER_FILE = "celery-broker.sqlite"
#: Where jobs run: ``eager`` inside the request (tests only: ``CARDLEDGER_JOBS=eager``),
#: ``sqlite`` in the worker `make run` starts, through a broker in a SQLite file (the
#: default without ``REDIS_URL``), ``redis`` in `make worker`s through Redis.
JOB_MODES = ("eager", "sqlite", "redis")
#: ``POST /simulations`` refuses more matches than this (422 ``too_large``): 10,000
#: matches take minutes on a club laptop's two simulation processes, which is as much as
#: one request should commit a shared server to (`cardledger simulate` has no limit).
DEFAULT_MAX_SIMULATION_MATCHES = 10_000
#: How often beat stamps itself and sends each queue a heartbeat (``service.jobs.heartbeats``).
DEFAULT_HEARTBEAT_SECONDS = 5.0
#: Live streams (``GET …/watch``) each web process holds open at most; `make run` gives
#: gunicorn this many threads more than ``THREADS`` (``service.running.serve``).
DEFAULT_WATCHERS = 64
#: How long a table page ignores taps after it redraws the table (ms): the second tap of a
#: double tap lands on the new table within it and must not pick or play what lies there.
DEFAULT_TAP_QUIET_MS = 600


def default_broker_url(var_dir: Path = VAR_DIR) -> str:
    """kombu's SQLAlchemy transport on a SQLite file: a broker that needs no server."""
    return f"sqla+sqlite:///{var_dir.resolve() / BROKER_FILE}"


def default_database_url(var_dir: Path = VAR_DIR) -> str:
    """An absolute SQLite path, so the app, Alembic and workers agree whatever their cwd."""
    return f"sqlite:///{var_dir / 'cardledger.db'}"


def normalize_database_url(url: str) -> str:
    """Send bare `postgres://` / `postgresql://` URLs to psycopg 3, the driver we install."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def read_admin_token(env: Mapping[str, str], var_dir: Path = VAR_DIR) -> str | None:
    """The organiser token: `CARDLEDGER_ADMIN_TOKEN`, else the file `make run` wrote, else None."""
    return read_secret(env, "CARDLEDGER_ADMIN_TOKEN", var_dir / ADMIN_TOKEN_FILE)


def ensure_admin_token(env: Mapping[str, str], var_dir: Path = VAR_DIR) -> tuple[str, bool]:
    """Return the organiser token, creating `var/admin-token` (mode 600) when there is none.

    The second value says whether a new token was generated. The file is created with
    O_EXCL so two concurrent `make run`s cannot write different tokens.
    """
    existing = read_admin_token(env, var_dir)
    if existing:
        return existing, False
    var_dir.mkdir(parents=True, exist_ok=True)
    path = var_dir / ADMIN_TOKEN_FILE
    token = secrets.token_urlsafe(32)
    path.unlink(missing_ok=True)  # only reached when the file is absent or empty
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process won the race: use its token
        return path.read_text(encoding="utf-8").strip(), False
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token, True


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the service needs from its environment."""

    database_url: str
    redis_url: str | None = None
    admin_token: str | None = field(default=None, repr=False)
    #: The Ed25519 private key that signs stream heads (base64 of the raw 32 bytes). None:
    #: `var_dir`/signing-key, generated (mode 600) the first time this server signs, so a
    #: process that never signs (a worker, a migration) writes no key. Tests pass their own.
    signing_key: str | None = field(default=None, repr=False)
    #: Other servers' public keys (base64) whose signed exports this one imports.
    trusted_keys: tuple[str, ...] = ()
    #: Where a generated signing key is kept.
    var_dir: Path = VAR_DIR
    #: Where jobs run (``JOB_MODES``); None: ``redis`` with a ``redis_url``, else ``sqlite``.
    jobs: str | None = None
    #: The Celery broker; None: the one ``jobs`` implies (``default_broker_url`` for sqlite).
    broker_url: str | None = None
    #: The most matches ``POST /simulations`` takes (`CARDLEDGER_MAX_SIMULATION_MATCHES`).
    max_simulation_matches: int = DEFAULT_MAX_SIMULATION_MATCHES
    #: The jobs' heartbeat period (`CARDLEDGER_HEARTBEAT_SECONDS`): `/health` says a worker
    #: or the beat is down after three silent periods, and a job silent for four whose
    #: queue has moved on is resumed (``service.jobs.heartbeats``, ``service.jobs.reaper``).
    heartbeat_seconds: float = DEFAULT_HEARTBEAT_SECONDS
    #: Live streams one web process holds open at most (`CARDLEDGER_WATCHERS`); beyond,
    #: 503 ``too_many_watchers`` and the pages follow by polling (``service.application.live``).
    watchers: int = DEFAULT_WATCHERS
    #: How long a table page ignores taps after a redraw (`CARDLEDGER_TAP_QUIET_MS`).
    tap_quiet_ms: int = DEFAULT_TAP_QUIET_MS

    def __post_init__(self) -> None:
        jobs = self.jobs or ("redis" if self.redis_url else "sqlite")
        if jobs not in JOB_MODES:
            raise ValueError(f"CARDLEDGER_JOBS must be one of {', '.join(JOB_MODES)}, not {jobs!r}")
        if jobs == "redis" and not self.redis_url:
            raise ValueError("CARDLEDGER_JOBS=redis needs REDIS_URL")
        if self.max_simulation_matches < 1:
            raise ValueError("CARDLEDGER_MAX_SIMULATION_MATCHES must be at least 1")
        if not self.heartbeat_seconds > 0:
            raise ValueError("CARDLEDGER_HEARTBEAT_SECONDS must be more than 0")
        if self.watchers < 0:
            raise ValueError("CARDLEDGER_WATCHERS must be 0 or more")
        if self.tap_quiet_ms < 0:
            raise ValueError("CARDLEDGER_TAP_QUIET_MS must be 0 or more")
        broker = self.broker_url
        if jobs == "redis":
            broker = self.redis_url
        elif jobs == "eager":
            broker = "memory://"
        elif not broker:
            broker = default_broker_url(self.var_dir)
        object.__setattr__(self, "jobs", jobs)
        object.__setattr__(self, "broker_url", broker)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, var_dir: Path = VAR_DIR) -> Config:
        """Read `DATABASE_URL`, `REDIS_URL`, the organiser token, the signing keys and where
        jobs run (`CARDLEDGER_JOBS`, `CARDLEDGER_BROKER_URL`: the SQLite broker's URL);
        empty values count as unset. A malformed key stops the server here (ValueError)."""
        env = os.environ if env is None else env
        database_url = env.get("DATABASE_URL", "").strip()
        if not database_url:
            var_dir.mkdir(parents=True, exist_ok=True)
            database_url = default_database_url(var_dir)
        return cls(
            database_url=normalize_database_url(database_url),
            redis_url=env.get("REDIS_URL", "").strip() or None,
            admin_token=read_admin_token(env, var_dir),
            signing_key=_checked_signing_key(read_signing_key(env, var_dir)),
            trusted_keys=parse_trusted_keys(env.get("CARDLEDGER_TRUSTED_KEYS", "")),
            var_dir=var_dir,
            jobs=env.get("CARDLEDGER_JOBS", "").strip().lower() or None,
            broker_url=env.get("CARDLEDGER_BROKER_URL", "").strip() or None,
            max_simulation_matches=_number(
                env, "CARDLEDGER_MAX_SIMULATION_MATCHES", int, DEFAULT_MAX_SIMULATION_MATCHES
            ),
            heartbeat_seconds=_number(
                env, "CARDLEDGER_HEARTBEAT_SECONDS", float, DEFAULT_HEARTBEAT_SECONDS
            ),
            watchers=_number(env, "CARDLEDGER_WATCHERS", int, DEFAULT_WATCHERS),
            tap_quiet_ms=_number(env, "CARDLEDGER_TAP_QUIET_MS", int, DEFAULT_TAP_QUIET_MS),
        )


def _number(env: Mapping[str, str], name: str, kind: type[N], default: N) -> N:
    """A number from the environment (unset or empty: ``default``); a typo stops the server
    here, naming the variable."""
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {text!r}") from None


def _checked_signing_key(key: str | None) -> str | None:
    """``key``, once it is known to be a usable private key: a typo stops the server here."""
    if key is not None:
        try:
            Signer(key)
        except ValueError as error:
            raise ValueError(f"CARDLEDGER_SIGNING_KEY (or var/signing-key): {error}") from None
    return key
