"""`GET /health`: for load balancers and people, needs no token.

``ok`` (and 200) while the database answers, whatever the jobs: reads and actions need
nothing else. Beside it: the broker (does it answer), and the jobs: where they run
(``sqlite``, ``redis``, ``eager``), or ``down`` while a worker of either queue or the beat
is not running, with ``workers`` saying which (``service.jobs.heartbeats``: not heard from for
three heartbeat periods, or seen exiting by `cardledger serve`).
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from pathlib import Path

import redis
from flask import current_app
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from service.core.config import Config
from service.jobs import heartbeats
from service.storage.db import get_database
from service.web.api.base import NO_TOKEN, Blueprint
from service.web.schemas import HealthSchema

logger = logging.getLogger(__name__)
blp = Blueprint("health", __name__, description="For load balancers and people.")
BROKER_TIMEOUT_SECONDS = 0.5


def database_status() -> str:
    try:
        with get_database().engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except SQLAlchemyError as error:
        logger.warning("health: database down: %s", error)
        return "down"
    return "ok"


def sqlite_broker_status(broker_url: str) -> str:
    """The SQLite broker's file answers a query (kombu creates its tables on first use)."""
    path = broker_url.split(":///", 1)[1] if ":///" in broker_url else ""
    try:
        if not path or not Path(path).parent.is_dir():
            raise sqlite3.OperationalError(f"no directory for {path!r}")
        with contextlib.closing(sqlite3.connect(path, timeout=BROKER_TIMEOUT_SECONDS)) as db:
            db.execute("SELECT 1").fetchone()
    except sqlite3.Error as error:
        logger.warning("health: broker down: %s", error)
        return "down"
    return "ok"


def broker_status(redis_url: str | None) -> str:
    """`eager` without a broker (tasks run in-process); else a ping with a short timeout."""
    if redis_url is None:
        return "eager"
    client = redis.Redis.from_url(
        redis_url,
        socket_connect_timeout=BROKER_TIMEOUT_SECONDS,
        socket_timeout=BROKER_TIMEOUT_SECONDS,
    )
    try:
        with client:
            client.ping()
    except redis.RedisError as error:
        logger.warning("health: broker down: %s", error)
        return "down"
    return "ok"


def workers_status(config: Config) -> dict[str, str]:
    """Each job part, ``ok`` or ``down``; all ``down`` when the database cannot say."""
    try:
        with get_database().reading() as connection:
            return heartbeats.status(connection, config.heartbeat_seconds)
    except SQLAlchemyError as error:
        logger.warning("health: job heartbeats unreadable: %s", error)
        return dict.fromkeys(heartbeats.PARTS, "down")


@blp.get("/health", operation_id="getHealth", security=NO_TOKEN)
@blp.response(
    200,
    HealthSchema,
    description="The service answers; `broker` says whether jobs can be queued, `jobs` "
    "whether they run.",
)
@blp.alt_response(503, schema=HealthSchema, description="The database is down.")
def health() -> tuple[dict[str, object], int]:
    """Service health

    Without the database nothing works (503); a broker that is down, or a job worker or
    beat that is not running, is reported, but every route that does not queue work still
    answers.
    """
    config: Config = current_app.config["CARDLEDGER"]
    if config.jobs == "sqlite":
        broker = sqlite_broker_status(str(config.broker_url))
    else:
        broker = broker_status(config.redis_url if config.jobs == "redis" else None)
    report: dict[str, object] = {"database": database_status(), "broker": broker,
                                 "jobs": config.jobs}  # fmt: skip
    if config.jobs != "eager":
        workers = workers_status(config)
        if "down" in workers.values():
            report["jobs"] = "down"
        report["workers"] = workers
    ok = report["database"] == "ok"
    return {"ok": ok, **report}, 200 if ok else 503
