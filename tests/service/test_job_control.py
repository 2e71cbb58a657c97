"""Jobs under control, on the real SQLite broker with no worker (``tests.service.queued``):
`POST /simulations` above the configured size is 422 ``too_large``; `DELETE /jobs/{job}`
cancels for the organiser or whoever started the job, and a cancelled job's tasks do
nothing and never bring it back; a table has at most one pending autoplay, however it is
woken, and one whose task was lost is sent again by the sweep."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select, update

from domain.bots.simulate import Simulation, result, run_chunk
from service.jobs import autoplays, botplay, queue, simulations, sweep
from service.jobs.heartbeats import ago
from service.storage.db import get_database
from service.storage.models import job_chunks, pending_autoplays
from service.storage.models import jobs as job_rows
from tests.helpers import make_test_app
from tests.service.queued import ORGANISER, queued_app, tasks

AUTOPLAY, SIMULATE, CHUNK = (
    "cardledger.autoplay",
    "cardledger.simulate",
    "cardledger.simulate_chunk",
)
LIMIT = 60


@pytest.fixture
def broker(tmp_path: Path) -> Path:
    return tmp_path / "broker.sqlite"


@pytest.fixture
def app(sqlite_url: str, broker: Path) -> Iterator[Flask]:
    app = queued_app(sqlite_url, broker, max_simulation_matches=LIMIT)
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def simulation(client: FlaskClient, matches: int = 30, **spec: Any) -> str:
    body = {"game": "bottle-imp", "seats": ["random", "random", "random"], "matches": matches,
            "seed": "control", "max_deals": 1, **spec}  # fmt: skip
    response = client.post("/simulations", json=body, headers=ORGANISER)
    assert response.status_code == 202, response.json
    return str(response.json["job"])


def bot_table(client: FlaskClient) -> dict[str, Any]:
    """Ann deals first; Bo and two bots."""
    body = {
        "game": "bottle-imp",
        "seed": "control",
        "max_deals": 1,
        "seats": [{"name": "Ann"}, {"name": "Bo"}, {"bot": "heuristic"}, {"bot": "random"}],
    }
    response = client.post("/tables", json=body, headers=ORGANISER)  # fmt: skip
    assert response.status_code == 201, response.json
    return dict(response.json)


def token(created: dict[str, Any], seat: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {created['seats'][seat]['token']}"}


def job(client: FlaskClient, job_id: str) -> dict[str, Any]:
    response = client.get(f"/jobs/{job_id}")
    assert response.status_code == 200
    return dict(response.json)


def stored_chunks(app: Flask, job_id: str) -> int:
    with get_database(app).reading() as connection:
        return int(
            connection.scalar(select(func.count()).where(job_chunks.c.job_id == job_id)) or 0
        )


# --- the size of a simulation ----------------------------------------------------------------


def test_a_simulation_above_the_configured_size_is_too_large(
    app: Flask, client: FlaskClient, broker: Path
) -> None:
    body = {"game": "oh-quay", "seats": ["random", "random"], "matches": LIMIT + 1, "seed": 1}
    refused = client.post("/simulations", json=body, headers=ORGANISER)
    assert (refused.status_code, refused.json["code"]) == (422, "too_large")
    assert refused.mimetype == "application/problem+json"
    assert refused.json["limit"] == LIMIT and str(LIMIT) in refused.json["detail"]
    assert tasks(broker, SIMULATE) == []  # nothing queued, no job written
    with get_database(app).reading() as connection:
        assert connection.scalar(select(func.count()).select_from(job_rows)) == 0
    assert client.post("/simulations", json={**body, "matches": LIMIT},
                       headers=ORGANISER).status_code == 202  # fmt: skip


def test_the_default_size_is_ten_thousand_matches(client: FlaskClient) -> None:
    eager = make_test_app("sqlite://", migrate=False)
    assert eager.config["CARDLEDGER"].max_simulation_matches == 10_000


# --- cancelling ---------------------------------------------------------------------------------


def test_a_queued_simulation_is_cancelled_and_its_tasks_do_nothing(
    app: Flask, client: FlaskClient, broker: Path
) -> None:
    job_id = simulation(client)
    assert tasks(broker, SIMULATE) == [[job_id, None]]
    cancelled = client.delete(f"/jobs/{job_id}", headers=ORGANISER)
    assert cancelled.status_code == 200
    assert cancelled.json["state"] == "cancelled"
    assert cancelled.json == job(client, job_id)  # the body of GET /jobs/{job}
    again = client.delete(f"/jobs/{job_id}", headers=ORGANISER)
    assert (again.status_code, again.json["state"]) == (200, "cancelled")
    with app.app_context():  # the worker takes the queued task: nothing to start
        assert simulations.start(job_id) == []
        assert simulations.run_simulation_chunk(job_id, 0) == []
    assert job(client, job_id)["state"] == "cancelled"
    assert stored_chunks(app, job_id) == 0


def test_a_running_simulation_stops_and_sends_no_more_chunks(
    app: Flask, client: FlaskClient, broker: Path
) -> None:
    """Cancelled while its chunks play: the chunk under way stops at its next look and
    stores nothing, the ones queued do nothing, and none sends a next one."""
    job_id = simulation(client, matches=LIMIT, seats=["montecarlo", "heuristic", "random"])
    with app.app_context():
        first = simulations.start(job_id)
    assert first == list(range(simulations.IN_FLIGHT)[: LIMIT // 10])
    outcome: list[list[int]] = []

    def worker() -> None:
        with app.app_context():
            outcome.append(simulations.run_simulation_chunk(job_id, 0))

    playing = threading.Thread(target=worker)
    playing.start()
    assert client.delete(f"/jobs/{job_id}", headers=ORGANISER).json["state"] == "cancelled"
    playing.join(timeout=120)
    assert not playing.is_alive() and outcome == [[]]
    with app.app_context():
        assert [simulations.run_simulation_chunk(job_id, c) for c in first[1:]] == [[]] * 5
    assert stored_chunks(app, job_id) == 0
    assert job(client, job_id)["state"] == "cancelled"
    assert job(client, job_id)["progress"]["done"] == 0


def test_a_cancelled_job_never_comes_back(app: Flask, client: FlaskClient) -> None:
    job_id = simulation(client)
    with app.app_context():
        assert queue.start(job_id)
    client.delete(f"/jobs/{job_id}", headers=ORGANISER)
    with app.app_context():
        assert not queue.start(job_id)
        assert not queue.progress(job_id, 10)
        assert not queue.fail(job_id, "the simulation stopped: too late")
        assert not queue.advance(job_id, queue.DONE)
    assert job(client, job_id)["state"] == "cancelled"
    assert job(client, job_id)["error"] is None


def test_who_may_cancel(client: FlaskClient, app: Flask) -> None:
    """The organiser, or the seat that asked (any token of that seat); anyone else is
    refused, as is a job the service queued by itself (the organiser's only)."""
    created = bot_table(client)
    table = f"/tables/{created['id']}"
    assert client.post(f"{table}/actions", json={"type": "deal"},
                       headers=token(created, 0)).status_code == 201  # fmt: skip
    asked = client.post(f"{table}/autoplay", headers=token(created, 1))
    assert asked.status_code == 202
    job_id = asked.json["job"]
    assert client.delete(f"/jobs/{job_id}").status_code == 401
    assert client.delete(f"/jobs/{job_id}", headers=token(created, 0)).status_code == 403
    stranger = {"Authorization": "Bearer not-a-token-of-this-table"}
    assert client.delete(f"/jobs/{job_id}", headers=stranger).status_code == 401
    renewed = client.post(f"{table}/seats/1/token", headers=ORGANISER).json["token"]
    assert client.delete(f"/jobs/{job_id}", headers=token(created, 1)).status_code == 401
    bo = {"Authorization": f"Bearer {renewed}"}
    cancelled = client.delete(f"/jobs/{job_id}", headers=bo)
    assert (cancelled.status_code, cancelled.json["state"]) == (200, "cancelled")
    sim = simulation(client)
    refused = client.delete(f"/jobs/{sim}", headers=bo)
    assert (refused.status_code, refused.json["code"]) == (403, "forbidden")
    assert client.delete(f"/jobs/{'0' * 32}", headers=ORGANISER).status_code == 404
    assert client.delete(f"/jobs/{sim}", headers=ORGANISER).status_code == 200


def test_a_finished_job_cannot_be_cancelled(sqlite_url: str) -> None:
    eager = make_test_app(sqlite_url)  # the job is done before the response returns
    client = eager.test_client()
    try:
        job_id = simulation(client, matches=3)
        assert job(client, job_id)["state"] == "done"
        refused = client.delete(f"/jobs/{job_id}", headers=ORGANISER)
        assert (refused.status_code, refused.json["code"]) == (409, "job_finished")
        assert refused.mimetype == "application/problem+json"
        assert job(client, job_id)["state"] == "done"
    finally:
        get_database(eager).engine.dispose()


# --- one pending autoplay per table ---------------------------------------------------------------


def pending(app: Flask) -> dict[str, str | None]:
    with get_database(app).reading() as connection:
        return dict(connection.execute(select(pending_autoplays.c.table_id,
                                              pending_autoplays.c.job_id)).all())  # fmt: skip


def test_two_quick_triggers_queue_one_autoplay(
    app: Flask, client: FlaskClient, broker: Path
) -> None:
    """A person's action queues the bots; two requests while it waits get one job, carried
    by that pending autoplay; the sweep leaves it. One task, one job, in the broker."""
    created = bot_table(client)
    table_id, table = created["id"], f"/tables/{created['id']}"
    assert client.post(f"{table}/actions", json={"type": "deal"},
                       headers=token(created, 0)).status_code == 201  # fmt: skip
    assert pending(app) == {table_id: None}
    first = client.post(f"{table}/autoplay", headers=ORGANISER)
    second = client.post(f"{table}/autoplay", headers=token(created, 1))
    assert (first.status_code, second.status_code) == (202, 202)
    assert first.json["job"] == second.json["job"]
    with app.app_context():
        assert sweep.resume_bots(idle=0) == []
    assert tasks(broker, AUTOPLAY) == [[table_id, None, None]]
    assert pending(app) == {table_id: first.json["job"]}
    with app.app_context():  # a worker takes it: the job it carries runs
        outcome = botplay.run_autoplay(table_id, None, None)
    assert outcome["moves"] >= 2 and outcome["stopped"] == "waiting_for_person"
    assert pending(app) == {}
    done = job(client, first.json["job"])
    assert (done["state"], done["result"]["moves"]) == ("done", outcome["moves"])
    third = client.post(f"{table}/autoplay", headers=ORGANISER)  # nothing pending: a new job
    assert third.json["job"] != first.json["job"]
    assert len(tasks(broker, AUTOPLAY)) == 2


def test_a_pending_autoplay_whose_task_was_lost_is_sent_again(
    app: Flask, client: FlaskClient, broker: Path
) -> None:
    """The broker lost the task (restarted empty): once the pending autoplay is older
    than ``LOST_SECONDS`` the sweep sends it again, once."""
    created = bot_table(client)
    table_id = created["id"]
    client.post(f"/tables/{table_id}/actions", json={"type": "deal"}, headers=token(created, 0))
    with get_database(app).writing() as connection:
        connection.execute(
            update(pending_autoplays).values(queued_at=ago(autoplays.LOST_SECONDS + 1))
        )
    with app.app_context():
        assert sweep.resume_bots(idle=0) == [table_id]
        assert sweep.resume_bots(idle=0) == []
    assert tasks(broker, AUTOPLAY) == [[table_id, None, None]] * 2


def test_a_simulation_runs_its_chunks_a_few_at_a_time(
    app: Flask, client: FlaskClient, broker: Path
) -> None:
    """Only ``IN_FLIGHT`` chunks wait in the broker; each stored chunk sends the next; the
    merged result is the one played in one go."""
    job_id = simulation(client, matches=LIMIT)
    with app.app_context():
        sent = simulations.start(job_id)
        simulations.send(job_id, sent)
    queued = [args[1] for args in tasks(broker, CHUNK)]
    assert queued == list(range(min(simulations.IN_FLIGHT, LIMIT // 10)))
    following: list[int] = []
    with app.app_context():
        for chunk in queued:
            following += simulations.run_simulation_chunk(job_id, chunk)
        for chunk in following:
            assert simulations.run_simulation_chunk(job_id, chunk) == []
    done = job(client, job_id)
    assert done["state"] == "done" and done["progress"] == {"done": LIMIT, "total": LIMIT}
    sim = Simulation.of({"game": "bottle-imp", "seats": ["random"] * 3, "matches": LIMIT,
                         "seed": "control", "max_deals": 1})  # fmt: skip
    assert done["result"] == result(sim, run_chunk(sim, range(LIMIT)))
