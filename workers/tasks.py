"""Celery tasks. `shared_task` binds each task to whichever app runs it (tests build their own)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="cardledger.ping")
def ping() -> str:
    """Round-trip check: proves a worker consumes the queue and the result backend answers."""
    return "pong"
