"""The Celery app (`celery -A workers.celery_app worker`).

Without `REDIS_URL` tasks run eagerly, in the process that enqueues them, so a single
`make run` needs no broker; with it, a task survives a worker crash (acks late + reject on
worker lost) and is redelivered, which the idempotent command path makes safe.
"""

from __future__ import annotations

from celery import Celery

from service.config import Config


def make_celery(redis_url: str | None) -> Celery:
    celery = Celery("cardledger", include=["workers.tasks"])
    celery.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # with acks late, a crashed worker strands at most one task
        task_track_started=True,
        broker_connection_retry_on_startup=True,
    )
    if redis_url:
        celery.conf.update(broker_url=redis_url, result_backend=redis_url)
    else:
        celery.conf.update(
            broker_url="memory://",
            result_backend="cache+memory://",
            task_always_eager=True,
            task_eager_propagates=True,
        )
    return celery


app = make_celery(Config.from_env().redis_url)
