"""Celery beat's scheduler (``beat_scheduler``): Celery's in-memory one (no schedule
file to keep), stamping the beat's own heartbeat as it ticks, so `/health` knows the beat
runs whether or not any worker takes what it sends (``service.jobs.heartbeats``).

A database that does not answer is logged and tried again at the next stamp: the beat
goes on sending the sweep, the heartbeats and the reaper regardless.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from celery.beat import Scheduler
from sqlalchemy.exc import SQLAlchemyError

from service.jobs import heartbeats
from workers.tasks import flask_app

logger = logging.getLogger(__name__)


class Beat(Scheduler):
    """Stamps ``beat`` at start and every heartbeat period (``Config.heartbeat_seconds``)."""

    _next_stamp = 0.0

    def tick(self, *args: Any, **kwargs: Any) -> float:
        interval: float = super().tick(*args, **kwargs)
        app = flask_app()
        period = float(app.config["CARDLEDGER"].heartbeat_seconds)
        if time.monotonic() >= self._next_stamp:
            self._next_stamp = time.monotonic() + period
            try:
                with app.app_context():
                    heartbeats.record(heartbeats.BEAT)
            except SQLAlchemyError as error:
                logger.warning("beat: could not stamp its heartbeat: %s", error)
        return min(interval, max(0.1, self._next_stamp - time.monotonic()))
