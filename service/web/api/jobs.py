"""Bots and jobs (``docs/api.md``): autoplay on request, simulations, job status, cancelling.

The routes only write rows and enqueue tasks; the work runs in a Celery worker (or, in
eager mode, ``CARDLEDGER_JOBS=eager``, in the request). A broker that cannot take the
task is answered with 503 ``broker_unavailable`` (``service/web/problems.py``); ``GET
/jobs/{id}`` reads the database only, so it answers whatever the broker's state.

Who may cancel a job (``DELETE /jobs/{id}``): the organiser, or whoever started it, as
``queue.started_by`` recorded it: a seat that asked its table's bots to play (with any
token of that seat, as a seat's token may be replaced). Simulations are the organiser's
only; an autoplay the service queued by itself, or one recorded before jobs had owners,
only the organiser may cancel.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from kombu.exceptions import OperationalError as BrokerError

from domain.bots.simulate import Simulation
from service.application.tables import table_logs
from service.core.config import Config
from service.core.refusals import NotFound
from service.jobs import autoplays, queue
from service.storage.db import get_database
from service.storage.seat_tokens import seat_of_token
from service.storage.tablelog import damaged
from service.web.api.base import TOKEN_OPTIONAL, Blueprint, organiser_only
from service.web.auth import ORGANISER, bearer, is_organiser, viewer_of
from service.web.problems import ApiError
from service.web.schemas.jobs import JobCreatedSchema, JobSchema, SimulationCreateSchema

blp = Blueprint("jobs", __name__, description="Bots' autoplay, simulations, job status.")


def _start(job_id: str, task: str, *args: Any) -> None:
    """Enqueue the job's task. If the broker refuses, the job is marked failed before
    the 503 goes out, so it never sits queued forever. In eager mode the task ran here:
    its failure is the job's (``failed``, with the error), not the request's. The job
    shows a stable message; the error's details are logged (``queue.fail``)."""
    try:
        queue.enqueue(task, *args)
    except BrokerError as error:
        queue.fail(job_id, error, queued=False)
        raise
    except Exception as error:
        if not queue.is_eager():
            raise
        queue.fail(job_id, error)


@blp.post("/tables/<id:table_id>/autoplay", operation_id="autoplay")
@blp.response(
    202,
    JobCreatedSchema,
    description="The job playing the bots (the pending one, if the table has one); "
    "poll `GET /jobs/{job}`.",
)
@blp.problems(401, 404, 409, 503)
def autoplay(table_id: str) -> tuple[dict[str, Any], int]:
    """Play the bots now

    Let the bots of a table move until a person must act or the match ends. A table has
    at most one pending autoplay: while one waits to run, this answers its job.
    """
    with get_database().reading() as connection:
        viewer = viewer_of(connection, table_id)
        if viewer is None:
            raise ApiError(401, "unauthorized", "autoplay needs a seat or organiser token")
        log = table_logs().load(connection, table_id)  # 404 for an unknown table
    if log.damage is not None:  # its bots' moves would be refused one by one
        raise damaged(table_id, log.damage)
    started_by = ORGANISER if viewer == ORGANISER else f"seat {viewer}"
    seconds = queue.EAGER_AUTOPLAY_SECONDS if queue.is_eager() else None
    return {"job": autoplays.request(table_id, started_by, seconds=seconds)}, 202


@blp.post("/simulations", operation_id="createSimulation")
@organiser_only
@blp.arguments(SimulationCreateSchema())
@blp.response(202, JobCreatedSchema, description="The simulation job; poll `GET /jobs/{job}`.")
@blp.problems(400, 401, 403, 422, 503)
def simulate(spec: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Simulate bot matches (organiser)

    Win rates with 95% intervals. At most `CARDLEDGER_MAX_SIMULATION_MATCHES` matches
    (10,000 unless configured), else 422 `too_large`.
    """
    config: Config = current_app.config["CARDLEDGER"]
    limit = config.max_simulation_matches
    if spec["matches"] > limit:
        raise ApiError(
            422,
            "too_large",
            f"a simulation here plays at most {limit} matches, not {spec['matches']} "
            "(CARDLEDGER_MAX_SIMULATION_MATCHES); `cardledger simulate` has no limit",
            extra={"limit": limit},
        )
    sim = Simulation.of(spec)
    sim.check()  # unknown bot, seats the game refuses, bad rules: 422 before any job
    job_id = queue.create(queue.SIMULATION, sim.spec(), sim.matches, started_by=ORGANISER)
    seconds = queue.EAGER_SIMULATION_SECONDS if queue.is_eager() else None
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
        job = queue.view(connection, job_id)
    return job, 200


@blp.delete("/jobs/<id:job_id>", operation_id="cancelJob")
@blp.response(200, JobSchema, description="The job, `cancelled`.")
@blp.problems(401, 403, 404, 409)
def cancel_job(job_id: str) -> tuple[dict[str, Any], int]:
    """Cancel a job

    Cancel a queued or running job (the organiser, or whoever started it): its tasks
    stop at their next look, within about a second, and it stays `cancelled`. A job
    already cancelled is answered again; one already `done` or `failed` is a 409
    `job_finished`.
    """
    token = bearer()
    if token is None:
        raise ApiError(401, "unauthorized", "cancelling a job needs a token")
    if not is_organiser(token):
        with get_database().reading() as connection:
            seat = seat_of_token(connection, token)  # the caller first: 401 for a stranger
            if seat is None:
                raise ApiError(401, "unauthorized", "this token is nobody's")
            try:
                started = queue.owner(connection, job_id)
            except NotFound:  # a seat learns nothing of others' jobs, not even that they exist
                started = (None, None)
        if started != (seat[0], f"seat {seat[1]}"):
            raise ApiError(403, "forbidden", "only the organiser or whoever started it may")
    return queue.cancel(job_id), 200
