"""Celery runs tasks in-process without a broker, and through Redis with one."""

from __future__ import annotations

from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker

from service.config import Config
from workers.celery_app import SWEEP_ENTRY, make_celery
from workers.tasks import ping


def test_without_redis_tasks_run_eagerly() -> None:
    app = make_celery(None)
    assert app.conf.task_always_eager and app.conf.task_eager_propagates
    assert app.tasks[ping.name].delay().get(timeout=1) == "pong"


def test_reliability_settings() -> None:
    conf = make_celery("redis://127.0.0.1:6379/0").conf
    assert conf.broker_url == conf.result_backend == "redis://127.0.0.1:6379/0"
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert not conf.task_always_eager
    assert conf.task_serializer == "json"


@pytest.mark.integration
def test_ping_through_redis_and_a_worker(redis_url: str) -> None:
    app = make_celery(redis_url)
    app.conf.worker_hijack_root_logger = False
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        assert app.tasks[ping.name].delay().get(timeout=10) == "pong"


def test_the_sqlite_broker_needs_no_server(tmp_path: Path) -> None:
    """`make run`'s default: kombu's SQLAlchemy transport on a SQLite file, no results,
    and the bots' sweep on beat's schedule."""
    url = f"sqla+sqlite:///{tmp_path / 'broker.sqlite'}"
    conf = make_celery(Config(database_url="sqlite://", jobs="sqlite", broker_url=url)).conf
    assert conf.broker_url == url and not conf.task_always_eager
    assert conf.task_ignore_result and not conf.result_backend
    assert SWEEP_ENTRY in conf.beat_schedule
