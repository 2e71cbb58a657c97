"""Bots and jobs (``api.md``): autoplay on request, simulations, job status.

The routes only create the job row and enqueue its task; the work runs in a Celery
worker (or, in eager mode, ``CARDLEDGER_JOBS=eager``, in the request). A broker that
cannot take the task is answered with 503 ``broker_unavailable`` (``service/errors.py``);
``GET /jobs/{id}`` reads the database only, so it answers whatever the broker's state.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from kombu.exceptions import OperationalError as BrokerError

from domain.bots.simulate import Simulation
from service import jobs
from service.api.tables import json_body
from service.auth import require_organiser, viewer_of
from service.commands import table_logs
from service.db import get_database
from service.errors import ApiError
from service.schemas.jobs import JobCreatedSchema, JobSchema, SimulationCreateSchema
from service.tablelog import damaged

blueprint = Blueprint("jobs", __name__)


class SCHEMAS:
    """One instance each: building a marshmallow schema costs more than using it."""

    JobCreatedSchema = JobCreatedSchema()
    JobSchema = JobSchema()
    SimulationCreateSchema = SimulationCreateSchema()


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


@blueprint.post("/tables/<id:table_id>/autoplay")
def autoplay(table_id: str) -> tuple[dict[str, Any], int]:
    """Let the bots of a table move until a person must act or the match ends.
    ---
    post:
      summary: Play the bots now
      operationId: autoplay
      tags: [jobs]
      parameters:
        - {in: path, name: table_id, required: true, schema: {type: string}}
      responses:
        "202":
          description: The job playing the bots; poll `GET /jobs/{job}`.
          content:
            application/json:
              schema: JobCreated
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
        "409": {$ref: "#/components/responses/Conflict"}
        "503": {$ref: "#/components/responses/Unavailable"}
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
    return SCHEMAS.JobCreatedSchema.dump({"job": job_id}), 202


@blueprint.post("/simulations")
def simulate() -> tuple[dict[str, Any], int]:
    """Simulate matches between bots (organiser): win rates with 95% intervals.
    ---
    post:
      summary: Simulate bot matches
      operationId: createSimulation
      tags: [jobs]
      requestBody:
        required: true
        content:
          application/json:
            schema: SimulationCreate
      responses:
        "202":
          description: The simulation job; poll `GET /jobs/{job}`.
          content:
            application/json:
              schema: JobCreated
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "422": {$ref: "#/components/responses/Unprocessable"}
        "503": {$ref: "#/components/responses/Unavailable"}
    """
    require_organiser()
    spec = SCHEMAS.SimulationCreateSchema.load(json_body())
    sim = Simulation.of(spec)
    sim.check()  # unknown bot, seats the game refuses, bad rules: 422 before any job
    job_id = jobs.create(jobs.SIMULATION, sim.spec(), sim.matches)
    seconds = jobs.EAGER_SIMULATION_SECONDS if jobs.is_eager() else None
    _start(job_id, "cardledger.simulate", job_id, seconds)
    return SCHEMAS.JobCreatedSchema.dump({"job": job_id}), 202


@blueprint.get("/jobs/<id:job_id>")
def get_job(job_id: str) -> tuple[dict[str, Any], int]:
    """A job's state, progress and result (anyone who knows its id).
    ---
    get:
      summary: Job status
      operationId: getJob
      tags: [jobs]
      security: [{}, {bearer: []}]
      parameters:
        - {in: path, name: job_id, required: true, schema: {type: string}}
      responses:
        "200":
          description: State, progress, and the result once done (or the error).
          content:
            application/json:
              schema: Job
        "404": {$ref: "#/components/responses/NotFound"}
    """
    with get_database().reading() as connection:
        job = jobs.view(connection, job_id)
    return SCHEMAS.JobSchema.dump(job), 200
