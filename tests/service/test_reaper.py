"""No job stays queued or running after its worker died (``service.jobs.reaper``), on the real
SQLite broker with no worker (``tests.service.queued``): the test plays the worker, its
death, and the passing of time, by writing the signs of life a real one would leave.

A job is lost when it showed no life for four heartbeat periods *and* a worker has since
run a heartbeat sent after its last sign of life; then its work is sent again (a
simulation's unstored chunks, an autoplay's table with its job), and after
``MAX_RESUMES`` resumptions it fails with a reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from domain.bots.simulate import Simulation, result, run_chunk
from service.jobs import autoplays, botplay, heartbeats, queue, reaper, simulations
from service.storage.db import get_database
from service.storage.eventstore import now
from service.storage.models import job_chunk_starts
from service.storage.models import jobs as job_rows
from tests.service.queued import ORGANISER, queued_app, tasks

SPEC = {"game": "bottle-imp", "seats": ["random", "random", "random"], "matches": 40,
        "seed": "reaped", "max_deals": 1}  # fmt: skip
CHUNK, SIMULATE, AUTOPLAY = (
    "cardledger.simulate_chunk",
    "cardledger.simulate",
    "cardledger.autoplay",
)


@pytest.fixture
def broker(tmp_path: Path) -> Path:
    return tmp_path / "broker.sqlite"


@pytest.fixture
def app(sqlite_url: str, broker: Path) -> Iterator[Flask]:
    app = queued_app(sqlite_url, broker)
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def silent_since(app: Flask, job_id: str, seconds: float) -> None:
    """The job's last sign of life was ``seconds`` ago."""
    with get_database(app).writing() as connection:
        connection.execute(
            update(job_rows).where(job_rows.c.id == job_id).values(alive_at=heartbeats.ago(seconds))
        )


def heartbeat_ran(app: Flask, queue: str, sent_at: str) -> None:
    """A worker of ``queue`` ran a heartbeat the beat sent at ``sent_at``."""
    with app.app_context():
        heartbeats.record(queue, sent_at)


def job(client: FlaskClient, job_id: str) -> dict[str, Any]:
    return dict(client.get(f"/jobs/{job_id}").json)


def started_simulation(app: Flask, client: FlaskClient) -> tuple[str, list[int]]:
    """Queued, started by a worker (its first chunks sent), then the worker died."""
    response = client.post("/simulations", json=SPEC, headers=ORGANISER)
    job_id = str(response.json["job"])
    with app.app_context():
        first = simulations.start(job_id)
        simulations.send(job_id, first)
    return job_id, first


def chunks_waiting(broker: Path, job_id: str) -> list[int]:
    return [args[1] for args in tasks(broker, CHUNK) if args[0] == job_id]


def stale(app: Flask) -> float:
    return float(reaper.STALE_PERIODS * app.config["CARDLEDGER"].heartbeat_seconds + 1)


def test_a_simulation_whose_worker_died_is_resumed_and_finishes(
    app: Flask, client: FlaskClient, broker: Path
) -> None:
    job_id, first = started_simulation(app, client)
    with app.app_context():  # the worker stored one chunk, then died holding the rest
        assert simulations.run_simulation_chunk(job_id, first[0]) == []  # all 4 were sent
    silent_since(app, job_id, stale(app))
    heartbeat_ran(app, queue.SIMULATIONS, now())  # the queue has moved on past its chunks
    with app.app_context():
        assert reaper.reap() == [job_id]
        assert reaper.reap() == []  # resumed just now: alive again
    assert chunks_waiting(broker, job_id) == first + first[1:]  # the lost ones, again
    with app.app_context():  # a worker takes them: the duplicates do nothing
        for chunk in chunks_waiting(broker, job_id):
            simulations.run_simulation_chunk(job_id, chunk)
    done = job(client, job_id)
    assert done["state"] == "done", done
    sim = Simulation.of(SPEC)
    assert done["result"] == result(sim, run_chunk(sim, range(sim.matches)))


def test_a_chunk_whose_worker_died_is_sent_again_while_the_others_go_on(
    app: Flask, client: FlaskClient, broker: Path
) -> None:
    """Chunk 2 began on a worker that died; the job keeps showing life (its other chunks
    go on): the chunk alone is sent again, once, and the job is not resumed."""
    job_id, first = started_simulation(app, client)
    with app.app_context():
        assert simulations.begin(job_id, 2)
    with get_database(app).writing() as connection:
        connection.execute(
            update(job_chunk_starts)
            .where(job_chunk_starts.c.job_id == job_id)
            .values(alive_at=heartbeats.ago(stale(app)))
        )
    heartbeat_ran(app, queue.SIMULATIONS, now())
    with app.app_context():
        assert reaper.reap() == [job_id]
        assert reaper.reap() == []
    assert chunks_waiting(broker, job_id) == [*first, 2]
    with get_database(app).reading() as connection:
        resumed = connection.scalar(select(job_rows.c.resumed).where(job_rows.c.id == job_id))
    assert resumed == 0


def test_two_reapers_resume_a_job_once(app: Flask, client: FlaskClient, broker: Path) -> None:
    """Two beats (two `make worker` machines) judging the same silence: the first revives
    the job and sends its chunks, the second finds it alive since and sends nothing."""
    job_id, first = started_simulation(app, client)
    silent_since(app, job_id, stale(app))
    cutoff = heartbeats.ago(stale(app) - 1)
    with app.app_context():
        assert queue.revive(job_id, cutoff) is True
        assert queue.revive(job_id, cutoff) is False
        assert simulations.begin(job_id, 0)
        assert simulations.resend_chunk(job_id, 0, cutoff) is False  # alive: not lost
    assert chunks_waiting(broker, job_id) == first


def test_a_simulation_whose_start_was_lost_is_started(
    app: Flask, client: FlaskClient, broker: Path
) -> None:
    job_id = str(client.post("/simulations", json=SPEC, headers=ORGANISER).json["job"])
    silent_since(app, job_id, stale(app))
    heartbeat_ran(app, queue.SIMULATIONS, now())
    with app.app_context():
        assert reaper.reap() == [job_id]
    assert tasks(broker, SIMULATE) == [[job_id, None]] * 2


def test_a_job_waiting_its_turn_is_left_alone(app: Flask, client: FlaskClient) -> None:
    """Silent for long, but no heartbeat sent after its last sign of life has run: its
    tasks may be waiting behind others (or no worker runs): not lost."""
    job_id, _ = started_simulation(app, client)
    sent = heartbeats.ago(stale(app) + 5)
    silent_since(app, job_id, stale(app))
    heartbeat_ran(app, queue.SIMULATIONS, sent)
    heartbeat_ran(app, queue.LIVE, now())  # the other queue moving on says nothing
    with app.app_context():
        assert reaper.reap() == []
    assert job(client, job_id)["state"] == "running"


def test_a_job_lost_again_and_again_fails_with_a_reason(app: Flask, client: FlaskClient) -> None:
    job_id, _ = started_simulation(app, client)
    with get_database(app).writing() as connection:
        connection.execute(
            update(job_rows).where(job_rows.c.id == job_id).values(resumed=reaper.MAX_RESUMES)
        )
    silent_since(app, job_id, stale(app))
    heartbeat_ran(app, queue.SIMULATIONS, now())
    with app.app_context():
        assert reaper.reap() == [job_id]
    failed = job(client, job_id)
    assert failed["state"] == "failed"
    assert failed["error"] == "the simulation stopped: its worker died 4 times; start it again"


def test_a_chunk_that_kills_its_worker_every_time_fails_its_job(
    app: Flask, client: FlaskClient
) -> None:
    """Each time the chunk began, its worker died (Celery hands it back each time)."""
    job_id, _ = started_simulation(app, client)
    with app.app_context():
        assert [simulations.begin(job_id, 2) for _ in range(simulations.MAX_CHUNK_STARTS)] == [
            True
        ] * simulations.MAX_CHUNK_STARTS
        assert simulations.begin(job_id, 2) is False
    failed = job(client, job_id)
    assert failed["state"] == "failed"
    assert (
        failed["error"] == "the simulation stopped: the worker playing matches 20–29 died 3 times"
    )


def test_a_lost_autoplay_job_is_queued_again_and_finishes(
    app: Flask, client: FlaskClient, broker: Path
) -> None:
    body = {"game": "bottle-imp", "seed": "reaped", "max_deals": 1,
            "seats": [{"bot": "random"}, {"bot": "heuristic"}, {"bot": "random"}]}  # fmt: skip
    table_id = client.post("/tables", json=body, headers=ORGANISER).json["id"]
    job_id = client.post(f"/tables/{table_id}/autoplay", headers=ORGANISER).json["job"]
    with app.app_context():  # a worker took the task and started the job, then died
        assert autoplays.take(table_id) == job_id
        assert queue.start(job_id)
    silent_since(app, job_id, stale(app))
    heartbeat_ran(app, queue.LIVE, now())
    with app.app_context():
        assert reaper.reap() == [job_id]
        assert autoplays.pending_job(table_id) == job_id
        while autoplays.pending_job(table_id) == job_id:  # the next worker carries it on
            botplay.run_autoplay(table_id, None, None)
    assert len(tasks(broker, AUTOPLAY)) >= 2
    finished = job(client, job_id)
    assert (finished["state"], finished["result"]["stopped"]) == ("done", "finished")
    assert client.get(f"/tables/{table_id}").json["status"] == "finished"
