"""The reaper: no job stays ``queued`` or ``running`` after its worker died.

Beat runs ``cardledger.reap_jobs`` on the live queue every two heartbeat periods. A job
is *lost* when both hold:

1. it showed no sign of life (``queue.alive_at``: stamped when it is queued, starts,
   stores a chunk, and about once a second while a task works on it) for
   ``STALE_PERIODS`` heartbeat periods, and
2. its queue has moved past it: a worker has run a heartbeat that the beat sent after
   that last sign of life (``service.jobs.heartbeats.sent_before``). Queues are first in,
   first out, so every task of the job sent before then has been taken by a worker; had
   it been running, it would have stamped the job.

The second condition is what keeps a job that merely waits its turn (behind other
simulations, or while every worker is down) from being taken for dead: the reaper acts
only on evidence, and only once workers run again. A lost job is resumed: a simulation's
chunks in flight are sent again (``service.jobs.simulations.resend_lost``; chunks are idempotent),
an autoplay's table is queued again with its job (``service.jobs.autoplays.resume``). A
simulation's chunk is judged the same way on its own (it stamps its own sign of life
while it plays): one whose worker died is sent again while the other chunks go on. A job
resumed ``MAX_RESUMES`` times fails with a reason instead. With the default five-second
period a job whose worker was killed is resumed within about half a minute of its last
move once a worker runs its queue (`cardledger serve` restarts a dead worker at once).
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import func, select

from service.jobs import autoplays, queue, simulations
from service.jobs.heartbeats import ago, heartbeat_seconds, sent_before
from service.storage.db import get_database
from service.storage.models import jobs as job_rows

logger = logging.getLogger(__name__)

REAP_TASK = "cardledger.reap_jobs"
#: Silent for this many heartbeat periods (and passed by its queue): lost.
STALE_PERIODS = 4
#: Resumed this often and lost again: failed.
MAX_RESUMES = 3
#: At most this many jobs per pass, the longest silent first; the next pass goes on.
REAP_LIMIT = 100


def lost_jobs(silent_since: str) -> list[Any]:
    """The open jobs whose worker died (see the module docstring), longest silent first."""
    alive = func.coalesce(job_rows.c.alive_at, job_rows.c.updated_at)
    columns = (job_rows.c.id, job_rows.c.kind, job_rows.c.table_id, job_rows.c.resumed)
    with get_database().reading() as connection:
        passed = sent_before(connection)
        rows = connection.execute(
            select(*columns, alive.label("alive"))
            .where(job_rows.c.state.in_(queue.OPEN), alive < silent_since)
            .order_by(alive)
            .limit(REAP_LIMIT)
        ).all()
    return [row for row in rows if row.alive < passed.get(queue.QUEUE_OF[row.kind], "")]


def reap() -> list[str]:
    """Resume (or fail) every lost job, and send again every lost chunk of a simulation
    that goes on; the job ids acted on. Each resumption is a guarded UPDATE, so two beats'
    reapers (one per `make worker` machine) resume a job once."""
    silent_since = ago(STALE_PERIODS * heartbeat_seconds())
    acted = []
    with get_database().reading() as connection:
        passed = sent_before(connection).get(queue.SIMULATIONS, "")
    for job_id, chunk in simulations.lost_chunks(silent_since, passed):
        if simulations.resend_chunk(job_id, chunk, silent_since):
            logger.warning("job %s (simulation): chunk %d's worker died; sent again",
                           job_id, chunk)  # fmt: skip
            acted.append(job_id)
    for row in lost_jobs(silent_since):
        kind = queue.STOPPED.get(row.kind, "the job stopped")
        if row.resumed >= MAX_RESUMES:
            reason = f"{kind}: its worker died {row.resumed + 1} times; start it again"
            if queue.fail(row.id, reason):
                logger.warning("job %s (%s): lost again, failed", row.id, row.kind)
                acted.append(row.id)
            continue
        if row.kind == queue.SIMULATION:
            if not queue.revive(row.id, silent_since):
                continue
            sent = simulations.resend_lost(row.id)
            logger.warning("job %s (simulation): its worker died; chunks %s sent again",
                           row.id, sent)  # fmt: skip
        elif row.table_id is not None and queue.revive(row.id, silent_since):
            if not autoplays.resume(row.table_id, row.id):
                queue.fail(row.id, f"{kind}: its worker died; another autoplay goes on")
            logger.warning("job %s (autoplay): its worker died; table %s queued again",
                           row.id, row.table_id)  # fmt: skip
        else:
            continue
        acted.append(row.id)
    return acted
