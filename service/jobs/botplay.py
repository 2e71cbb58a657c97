"""Bot seats move by themselves, through the same command path as a person.

A bot seat is one the table opened with, or one the organiser handed to a bot for an
absent person until it is handed back (``service.storage.tablelog.bot_to_move``, folded
from the log): a takeover's commit wakes the bots like any action, and a hand-back stops
them at their next look, since the loop decides only at the version it read.

``play_bots`` is the autoplay loop: while a bot seat is among those the table waits
for, it shows the bot that seat's observation only (``domain.bots.common.observe``),
seeds the decision from (deal key, version, seat), and submits the chosen action with
``act`` at the expected version under the idempotency key ``bot:{version}:{seat}``. Two
loops racing on one table therefore never both append: the loser either finds its key
(same decision, already recorded) or a newer version, and reloads.

``wake_bots`` is the trigger, subscribed to every committed ``TableChanged``
(``service.application.changes``): when an action (or a table's opening) leaves a bot to
move, it queues ``cardledger.autoplay`` unless one is already pending for the table
(``service.jobs.autoplays``: at most one pending per table); in eager mode that runs before
the response returns. Bot moves themselves publish no change (the loop is already
running). A trigger the broker lost is made good by the sweep (``service.jobs.sweep``).

In a worker, one task plays a table for at most ``SLICE_SECONDS`` and then queues the
table again behind the other live tables (``autoplays.hand_on``): a table of Monte Carlo
bots playing a whole match never keeps the live workers from the other tables' bots,
and no live task runs long. Before every move the loop asks its ``KeepAlive``, which
stamps the live queue's heartbeat and the job's sign of life and stops the loop once its
job was cancelled.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from kombu.exceptions import OperationalError as BrokerError
from sqlalchemy import select

from domain.bots import bot, decision_rng
from domain.bots.common import current_deal, observe
from domain.shuffle import deal_key
from service.application.changes import TableChanged
from service.application.tables import act, table_logs
from service.jobs import autoplays, queue
from service.jobs.autoplays import AUTOPLAY_TASK
from service.jobs.heartbeats import KeepAlive
from service.storage.db import get_database
from service.storage.eventstore import VersionConflict
from service.storage.models import jobs as job_rows
from service.storage.tablelog import TableLog, bot_to_move

logger = logging.getLogger(__name__)

__all__ = ["AUTOPLAY_TASK", "choose", "play_bots", "run_autoplay", "wake_bots"]

#: How long one autoplay task plays a table in a worker before queueing it again.
SLICE_SECONDS = 5.0


def choose(log: TableLog, seat: int, name: str) -> dict[str, Any]:
    """The bot's action at ``seat``, from that seat's observation only.

    Its dice come from the table's deal key, salt included (docs/rules/common.md, "Bots' dice"):
    from the bare seed, a guessable seed would predict the bot's choices, and a choice
    (the index of the card it plays) tells where a card sits in its hand.
    """
    rules = log.rules
    observation = observe(rules, log.state, seat, current_deal(rules, log.events))
    opened = log.opened
    key = deal_key(opened.seed, opened.salt) if opened.seed is not None else log.id
    return bot(name).choose(opened.game, observation, decision_rng(key, log.version, seat))


def play_bots(
    table_id: str,
    *,
    seconds: float | None = None,
    progress: Callable[[int], None] | None = None,
    keep_going: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Play bot moves at ``table_id`` until a person must act or the match ends (or
    ``seconds`` ran out, or ``keep_going`` said no): what happened, for the job's result."""
    deadline = time.monotonic() + seconds if seconds is not None else None
    moves = conflicts = 0
    while True:
        with get_database().reading() as connection:
            log = table_logs().load(connection, table_id)
        if log.damage is not None:  # the command path would refuse the move: stop here
            stopped = "log_damaged"
            break
        found = bot_to_move(log)
        if found is None:
            stopped = "finished" if log.state.phase == "finished" else "waiting_for_person"
            break
        if deadline is not None and time.monotonic() > deadline:
            stopped = "time_budget"
            break
        if keep_going is not None and not keep_going():
            stopped = "cancelled"
            break
        seat, name = found
        body = choose(log, seat, name)
        try:
            act(
                table_id,
                body,
                seat,
                expected=log.version,
                key=f"bot:{log.version}:{seat}",
                actor=f"bot {name} seat {seat}",
                autoplay=False,
            )
        except VersionConflict:
            conflicts += 1  # another writer moved first: reload and look again
            continue
        moves += 1
        if progress is not None:
            progress(moves)
    return {
        "table": table_id,
        "moves": moves,
        "conflicts": conflicts,
        "version": log.version,
        "status": log.rules.view(log.state, None)["status"],
        "to_act": list(log.rules.to_act(log.state)),
        "stopped": stopped,
    }


def wake_bots(changed: TableChanged) -> None:
    """Queue autoplay when the changed table leaves a bot to move and none is pending. A
    broker that is down does not undo the action: it is logged, and once the broker is
    back the sweep (``service.jobs.sweep``, from the ``bot_turns`` projection) queues it
    again."""
    log = changed.log
    if bot_to_move(log) is None:
        return
    eager = queue.is_eager()
    try:
        autoplays.trigger(log.id, seconds=queue.EAGER_AUTOPLAY_SECONDS if eager else None)
    except BrokerError as error:
        logger.warning("table %s: bots not queued, broker down (the sweep resumes them): %s",
                       log.id, error)  # fmt: skip
    except Exception:
        if not eager:
            raise
        # In-process, a failing bot must not turn the person's recorded action into an
        # error: the table simply waits, and POST /tables/{id}/autoplay reports why.
        logger.exception("table %s: autoplay failed", log.id)


def run_autoplay(table_id: str, job_id: str | None, seconds: float | None) -> dict[str, Any]:
    """The ``cardledger.autoplay`` task: bot moves until a person must act or the match
    ends; in a worker for one ``SLICE_SECONDS`` slice at a time, in eager mode within
    ``seconds``. Its job, if any, is the one its pending autoplay carried (or named in
    the message, as older messages do); a job no longer open is left alone."""
    job_id = autoplays.take(table_id) or job_id
    base = 0
    if job_id is not None:
        if not queue.start(job_id):
            return {}
        with get_database().reading() as connection:
            base = connection.scalar(select(job_rows.c.done).where(job_rows.c.id == job_id)) or 0

    def progress(moves: int) -> None:
        if job_id is not None:
            queue.progress(job_id, base + moves)

    eager = seconds is not None
    try:
        outcome = play_bots(
            table_id,
            seconds=seconds if eager else SLICE_SECONDS,
            progress=progress,
            keep_going=KeepAlive(queue.LIVE, job_id),
        )
    except Exception as error:
        if job_id is not None:
            queue.fail(job_id, error)
        raise
    if outcome["stopped"] == "cancelled":
        return outcome
    if outcome["stopped"] == "time_budget" and not eager:
        if autoplays.hand_on(table_id, job_id):
            return outcome  # the job goes on in the next slice
        outcome["stopped"] = "handed_on"  # another job waits there and goes on
    if job_id is not None:
        total = base + outcome["moves"]
        queue.advance(job_id, queue.DONE, done=total, total=total,
                     result=json.dumps({**outcome, "moves": total}))  # fmt: skip
    return outcome
