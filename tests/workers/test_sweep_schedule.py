"""Celery beat runs the bots' sweep on the broker's schedule; eager mode has none."""

from __future__ import annotations

import pytest

import workers.tasks  # noqa: F401  (registers the shared tasks with every app)
from service.sweep import IDLE_SECONDS, RESUME_TASK
from workers.celery_app import DEFAULT_SWEEP_SECONDS, SWEEP_ENTRY, make_celery

REDIS = "redis://127.0.0.1:6379/0"


def test_beat_sweeps_every_fifteen_seconds_by_default() -> None:
    app = make_celery(REDIS, env={})
    entry = app.conf.beat_schedule[SWEEP_ENTRY]
    assert (entry["task"], entry["schedule"], entry["args"]) == (RESUME_TASK, 15.0, (5.0,))
    assert DEFAULT_SWEEP_SECONDS == 15.0 and IDLE_SECONDS == 5.0
    assert entry["options"]["expires"] == 15.0  # a sweep never waits behind the next one
    assert app.conf.beat_scheduler == "celery.beat:Scheduler"  # no schedule file written
    assert RESUME_TASK in app.tasks


def test_the_interval_and_the_idle_time_come_from_the_environment() -> None:
    env = {"CARDLEDGER_SWEEP_SECONDS": "2.5", "CARDLEDGER_SWEEP_IDLE_SECONDS": "0"}
    entry = make_celery(REDIS, env=env).conf.beat_schedule[SWEEP_ENTRY]
    assert (entry["schedule"], entry["args"], entry["options"]["expires"]) == (2.5, (0.0,), 2.5)


@pytest.mark.parametrize("env", [{"CARDLEDGER_SWEEP_SECONDS": "0"},
                                 {"CARDLEDGER_SWEEP_IDLE_SECONDS": "-1"},
                                 {"CARDLEDGER_SWEEP_SECONDS": "soon"}])  # fmt: skip
def test_a_bad_interval_is_refused_at_start(env: dict[str, str]) -> None:
    with pytest.raises(ValueError):
        make_celery(REDIS, env=env)


def test_eager_mode_schedules_nothing() -> None:
    assert make_celery(None, env={"CARDLEDGER_SWEEP_SECONDS": "1"}).conf.beat_schedule == {}
