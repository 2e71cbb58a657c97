"""Celery runs tasks in-process without a broker, and through Redis with one."""

from __future__ import annotations

import pytest
from celery.contrib.testing.worker import start_worker

from workers.celery_app import make_celery
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
