"""Bots and jobs (``api.md``): autoplay on request, simulations, job status.

The routes only create the job row and enqueue its task; the work runs in a Celery
worker (or, in eager mode, ``CARDLEDGER_JOBS=eager``, in the request). A broker that
cannot take the task is answered with 503 ``broker_unavailable`` (``service/errors.py``);
``GET /jobs/{id}`` reads the database only, so it answers whatever the broker's state.
"""

from __future__ import annotations

from typing import Any

from kombu.exceptions import OperationalError as BrokerError

from domain.bots.simulate import Simulation
from service import jobs
from service.api.base import TOKEN_OPTIONAL, Blueprint, organiser_only
from service.auth import viewer_of
from service.commands import table_logs
from service.db import get_database
from service.errors import ApiError
from service.schemas.jobs import JobCreatedSchema, JobSchema, SimulationCreateSchema
from service.tablelog import damaged

blp = Blueprint("jobs", __name__, description="Bots' autoplay, simulations, job status.")


def _start(job_id: str, task: str, *args: Any) -> None:
    """Enqueue the job's task. If the broker refuses, the job is marked failed before
    the 503 goes out, so it never sits queued forever. In eager mode the task ran here:
    its failure is the job's (``failed``, with the error), not the request's. The job
    shows a stable message; the error's details are logged (``jobs.fail``)."""
    try:
        jobs.enqueue(task, *args)
    except BrokerError as error:
        jobs.fail(job_id, error, queued=False)
        raise
    except Exception as error:
        if not jobs.is_eager():
            raise
        jobs.fail(job_id, error)


@blp.post("/tables/<id:table_id>/autoplay", operation_id="autoplay")
@blp.response(
    202, JobCreatedSchema, description="The job playing the bots; poll `GET /jobs/{job}`."
)
@blp.problems(401, 404, 409, 503)
def autoplay(table_id: str) -> tuple[dict[str, Any], int]:
    """Play the bots now

    Let the bots of a table move until a person must act or the match ends.
    """
    with get_database().reading() as connection:
        viewer = viewer_of(connection, table_id)
        if viewer is None:
            raise ApiError(401, "unauthorized", "autoplay needs a seat or organiser token")
        log = table_logs().load(connection, table_id)  # 404 for an unknown table
    if log.damage is not None:  # its bots' moves would be refused one by one
        raise damaged(table_id, log.damage)
    job_id = jobs.create(jobs.AUTOPLAY, {"table": table_id}, None, table_id)
    seconds = jobs.EAGER_AUTOPLAY_SECONDS if jobs.is_eager() else None
    _start(job_id, "cardledger.autoplay", table_id, job_id, seconds)
    return {"job": job_id}, 202


@blp.post("/simulations", operation_id="createSimulation")
@organiser_only
@blp.arguments(SimulationCreateSchema())
@blp.response(202, JobCreatedSchema, description="The simulation job; poll `GET /jobs/{job}`.")
@blp.problems(400, 401, 403, 422, 503)
def simulate(spec: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Simulate bot matches (organiser)

    Win rates with 95% intervals.
    """
    sim = Simulation.of(spec)
    sim.check()  # unknown bot, seats the game refuses, bad rules: 422 before any job
    job_id = jobs.create(jobs.SIMULATION, sim.spec(), sim.matches)
    seconds = jobs.EAGER_SIMULATION_SECONDS if jobs.is_eager() else None
    _start(job_id, "cardledger.simulate", job_id, seconds)
    return {"job": job_id}, 202


@blp.get("/jobs/<id:job_id>", operation_id="getJob", security=TOKEN_OPTIONAL)
@blp.response(
    200, JobSchema, description="State, progress, and the result once done (or the error)."
)
@blp.problems(404)
def get_job(job_id: str) -> tuple[dict[str, Any], int]:
    """Job status

    A job's state, progress and result (anyone who knows its id).
    """
    with get_database().reading() as connection:
        job = jobs.view(connection, job_id)
    return job, 200
