"""Celery beat runs the bots' sweep, the heartbeats and the reaper on the broker's
schedule; eager mode has none."""

from __future__ import annotations

import pytest
from celery.beat import BeatLazyFunc

import workers.tasks  # noqa: F401  (registers the shared tasks with every app)
from service.jobs.heartbeats import HEARTBEAT_TASK
from service.jobs.reaper import REAP_TASK
from service.jobs.sweep import IDLE_SECONDS, RESUME_TASK
from service.jobs.verifier import VERIFY_TASK
from service.storage.eventstore import now
from workers.celery_app import (
    DEFAULT_SWEEP_SECONDS,
    REAP_ENTRY,
    SWEEP_ENTRY,
    VERIFY_ENTRY,
    heartbeat_entry,
    make_celery,
)

REDIS = "redis://127.0.0.1:6379/0"


def test_beat_sweeps_every_fifteen_seconds_by_default() -> None:
    app = make_celery(REDIS, env={})
    entry = app.conf.beat_schedule[SWEEP_ENTRY]
    assert (entry["task"], entry["schedule"], entry["args"]) == (RESUME_TASK, 15.0, (5.0,))
    assert DEFAULT_SWEEP_SECONDS == 15.0 and IDLE_SECONDS == 5.0
    assert entry["options"]["expires"] == 15.0  # a sweep never waits behind the next one
    assert app.conf.beat_scheduler == "workers.beat:Beat"  # in memory: no schedule file
    assert RESUME_TASK in app.tasks


def test_beat_sends_each_queue_a_heartbeat_and_runs_the_reaper() -> None:
    """Every period (CARDLEDGER_HEARTBEAT_SECONDS) a heartbeat to each queue, carrying the
    moment beat sent it (evaluated as it sends); the reaper every two periods."""
    schedule = make_celery(REDIS, env={"CARDLEDGER_HEARTBEAT_SECONDS": "2"}).conf.beat_schedule
    for queue in ("live", "simulations"):
        entry = schedule[heartbeat_entry(queue)]
        assert (entry["task"], entry["schedule"], entry["args"]) == (HEARTBEAT_TASK, 2.0,
                                                                     (queue,))  # fmt: skip
        assert entry["options"] == {"queue": queue, "expires": 6.0}
        sent_at = entry["kwargs"]["sent_at"]
        assert isinstance(sent_at, BeatLazyFunc) and len(sent_at()) == len(now())
    reap = schedule[REAP_ENTRY]
    assert (reap["task"], reap["schedule"]) == (REAP_TASK, 4.0)
    assert {HEARTBEAT_TASK, REAP_TASK} <= set(make_celery(REDIS, env={}).tasks)


def test_beat_runs_the_verifier_on_the_background_queue() -> None:
    """Every CARDLEDGER_VERIFY_SECONDS (60 by default) the verifier re-checks the streams,
    on the simulations queue, so it never delays a live table's bots."""
    for env, seconds in (({}, 60.0), ({"CARDLEDGER_VERIFY_SECONDS": "7"}, 7.0)):
        entry = make_celery(REDIS, env=env).conf.beat_schedule[VERIFY_ENTRY]
        assert (entry["task"], entry["schedule"]) == (VERIFY_TASK, seconds)
        assert entry["options"] == {"queue": "simulations", "expires": seconds}
    assert VERIFY_TASK in make_celery(REDIS, env={}).tasks
    with pytest.raises(ValueError, match="CARDLEDGER_VERIFY_SECONDS"):
        make_celery(REDIS, env={"CARDLEDGER_VERIFY_SECONDS": "0"})


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
