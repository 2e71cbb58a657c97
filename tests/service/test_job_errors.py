"""A failed job's public ``error`` (``GET /jobs/{id}``, readable by anyone with its id) is
a stable sentence: never a broker's or a database's address, a password, or an exception
class; the details are in the server's log."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
import redis
from flask import Flask
from kombu.exceptions import OperationalError as BrokerError
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from service.core.refusals import NotFound, Unavailable
from service.jobs import botplay, queue
from service.storage.db import get_database
from service.storage.models import jobs as job_rows
from tests.helpers import ADMIN_TOKEN

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
INTERNALS = re.compile(
    r"redis://|postgres|://|\d+\.\d+\.\d+\.\d+|[\w.-]+:\d{2,5}\b|Error\b|Exception\b|secret"
)


def only_job(app: Flask) -> dict[str, Any]:
    """The one job there is, as ``GET /jobs/{id}`` shows it (a refused route's 503 does
    not name its job: the job is found in the database)."""
    with get_database(app).reading() as connection:
        (job_id,) = connection.scalars(select(job_rows.c.id)).all()
    response = app.test_client().get(f"/jobs/{job_id}")
    assert response.status_code == 200
    return dict(response.json)


def assert_public(error: str | None, expected: str) -> None:
    assert error == expected
    assert not INTERNALS.search(error), error


def test_an_autoplay_the_broker_refused_says_so_without_its_address(
    brokerless: Flask, closed_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    client = brokerless.test_client()
    body = {"game": "oh-quay", "seats": [{"name": "Ann"}, {"bot": "random"}], "seed": "e"}
    table_id = client.post("/tables", json=body, headers=ORGANISER).json["id"]
    with caplog.at_level(logging.ERROR, logger="service.jobs.queue"):
        refused = client.post(f"/tables/{table_id}/autoplay", headers=ORGANISER)
    assert (refused.status_code, refused.json["code"]) == (503, "broker_unavailable")
    job = only_job(brokerless)
    assert job["state"] == "failed"
    assert_public(
        job["error"], "the job could not be queued: the broker was unavailable; try again later"
    )
    assert str(closed_port) in caplog.text  # the details: in the log, for the operator


def test_a_simulation_the_broker_refused_says_so_without_its_address(brokerless: Flask) -> None:
    spec = {"game": "oh-quay", "seats": ["random", "random"], "matches": 2, "seed": 1}
    refused = brokerless.test_client().post("/simulations", json=spec, headers=ORGANISER)
    assert refused.status_code == 503
    assert_public(
        only_job(brokerless)["error"],
        "the job could not be queued: the broker was unavailable; try again later",
    )


def test_an_autoplay_at_a_table_that_is_not_there_names_no_exception(app: Flask) -> None:
    """The bots' task for a table id that no table has (a task outliving its table's
    database): the job says the API's stable code, not the exception's text."""
    with app.app_context():
        job_id = queue.create(queue.AUTOPLAY, {"table": "0" * 32}, None, "0" * 32)
        with pytest.raises(NotFound):  # the task fails (and Celery logs it)
            botplay.run_autoplay("0" * 32, job_id, None)
    job = app.test_client().get(f"/jobs/{job_id}").json
    assert job["state"] == "failed"
    assert_public(job["error"], "the bots stopped: not_found")


ADDRESSED = [
    (
        BrokerError("Error 111 connecting to redis://:secret@10.0.0.7:6379/0. Connection refused."),
        "the broker was unavailable; try again later",
    ),
    (
        redis.ConnectionError("Error 111 connecting to cache.internal:6380. Connection refused."),
        "the broker was unavailable; try again later",
    ),
    (
        OperationalError(
            "SELECT 1", {}, Exception("connection to server at db.internal:5432 failed")
        ),
        "the database was unavailable; try again later",
    ),
    (
        RuntimeError("worker lost postgresql://cardledger:secret@10.0.0.8:5432/prod"),
        "an internal error was logged",
    ),
    (KeyError("montecarlo"), "an internal error was logged"),
    (
        Unavailable("t's log cannot be read (JSONDecodeError(…))", "unreadable_log"),
        "unreadable_log",
    ),
]


@pytest.mark.parametrize(("error", "says"), ADDRESSED)
@pytest.mark.parametrize(
    ("kind", "stopped"),
    [("autoplay", "the bots stopped"), ("simulation", "the simulation stopped")],
)
def test_a_job_failed_by_an_exception_shows_a_stable_message(
    app: Flask,
    kind: str,
    stopped: str,
    error: Exception,
    says: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """What a task's ``except`` hands ``queue.fail``: an exception carrying an address,
    a password or only its class's meaning."""
    with app.app_context():
        job_id = queue.create(kind, {}, None)
        with caplog.at_level(logging.ERROR, logger="service.jobs.queue"):
            queue.fail(job_id, error)
        queue.fail(job_id, RuntimeError("a second failure"))  # the first error stays
    job = app.test_client().get(f"/jobs/{job_id}").json
    assert job["state"] == "failed"
    assert_public(job["error"], f"{stopped}: {says}")
    assert job_id in caplog.text and type(error).__name__ in caplog.text
