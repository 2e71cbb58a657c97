"""The table commands: open a table, act at it. An action is parsed, checked and
decided by the game's rules on the table as its unit of work loaded it, and appended
there (``service.application.unit_of_work``: the transaction, the lock, the
Idempotency-Key, the policies and what follows the commit). HTTP routes, the console and
the bots' Celery tasks all come through here.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from domain.errors import RuleViolation
from domain.events import TableOpened, event_type, to_data
from domain.games import game
from domain.match import MatchRules
from domain.shuffle import seed_commitment
from domain.table import ORGANISER, SeatSpec, Table, Viewer
from domain.upcast import current_schema
from service.application.players import check_seat_players
from service.application.unit_of_work import Accepted, Request, unit_of_work
from service.core.refusals import Forbidden, Unauthorized
from service.core.resources import resources
from service.storage.db import get_database
from service.storage.eventstore import NewEvent, StaleHead, VersionConflict, canonical_json
from service.storage.seat_tokens import issue_seat_tokens
from service.storage.tablelog import TableLog, TableLogs, refuse_taken_over, table_logs_of

if TYPE_CHECKING:
    from flask import Flask

logger = logging.getLogger(__name__)


def table_logs(app: Flask | None = None) -> TableLogs:
    """The cached table logs of ``app``, or of the house the caller runs in."""
    return table_logs_of(app.extensions if app is not None else resources())


@dataclass(frozen=True, slots=True)
class CreatedTable:
    id: str
    log: TableLog
    tokens: dict[int, str]


def create_table(
    spec: Mapping[str, Any], connection: Connection | None = None, *, autoplay: bool = True
) -> CreatedTable:
    """Open a table: check the game, seats and rules with the engine, record ``TableOpened``.

    An omitted seed is drawn by the server; either way the server draws the table's
    secret 128-bit salt (never a client's: docs/rules/common.md, "Deterministic
    shuffling", rule 1), and both stay secret until the match ends.
    ``connection``: open it in the caller's write transaction (a tournament seating a
    round, a console form), whose commit then wakes a bot that deals first. ``autoplay``
    off: nothing wakes them (the caller plays the bots itself).
    """
    rules_module = game(spec["game"])
    options = dict(spec.get("rules") or {})
    first_dealer = options.pop("first_dealer", 0)
    if type(first_dealer) is not int:
        raise RuleViolation("invalid_rules", "first_dealer is a seat number")
    seed = spec.get("seed")
    target, deals = spec.get("target_score"), spec.get("max_deals")
    seats = tuple(SeatSpec(**seat) for seat in spec["seats"])
    if target is None and deals is None:
        match = rules_module.default_match(len(seats))
    else:
        match = MatchRules(target, deals)
    table = Table(
        game=spec["game"],
        variant=spec.get("variant") or rules_module.DEFAULT_VARIANT,
        seats=seats,
        match=match,
        seed=str(seed) if seed is not None else secrets.token_urlsafe(16),
        first_dealer=first_dealer,
        options=options,
        salt=secrets.token_hex(16),
    )
    rules_module.check_options(table)
    state = rules_module.initial_state(table)  # raises RuleViolation for a table refused
    table_id = uuid.uuid4().hex
    with unit_of_work(connection, publish=autoplay) as work:
        seats = check_seat_players(work.connection, table.seats)
        if seats != table.seats:  # a player's seat takes the player's name
            table = replace(table, seats=seats)
            state = rules_module.initial_state(table)
        log = work.open_table(table_id, TableOpened.of(table), state)
        humans = (s for s, seat in enumerate(table.seats) if not seat.bot)
        tokens = issue_seat_tokens(work.connection, table_id, humans)
    return CreatedTable(table_id, log, tokens)


def commitment(opened: TableOpened) -> str:
    """The published ``seed_commitment``: SHA-256 of ``"{salt}:{seed}"`` (of the bare seed
    for a table recorded before salts)."""
    return seed_commitment(opened.seed, opened.salt) if opened.seed is not None else ""


def _request_hash(body: Mapping[str, Any], expected: int | None, viewer: Viewer) -> str:
    """What an Idempotency-Key stands for: this body, this If-Match, from this caller (a
    key replayed by someone else must not hand them the first caller's answer)."""
    return hashlib.sha256(canonical_json([body, expected, viewer]).encode()).hexdigest()


def _authorize(viewer: Viewer, body: Mapping[str, Any]) -> None:
    """The organiser may act for any seat; a seat token only for its own seat."""
    if viewer is None:
        raise Unauthorized("acting at a table needs a seat or organiser token")
    if viewer == ORGANISER:
        return
    if body.get("type") == "deal":
        if any(k != "type" for k in body):
            raise Forbidden("only the organiser records a physical deal")
        return
    if body.get("type") == "adjust":
        raise Forbidden("only the organiser makes a director's ruling")
    seat = body.get("seat")
    if seat != viewer or type(seat) is not int:
        raise Forbidden(f"seat {viewer}'s token cannot act for seat {seat!r}")


def _authorize_deal(log: TableLog, viewer: Viewer) -> None:
    """A seat deals only when it is the one to deal."""
    if viewer != ORGANISER and viewer not in log.rules.to_act(log.state):
        raise Forbidden(f"seat {viewer} is not the one to deal")


def act(
    table_id: str,
    body: Mapping[str, Any],
    viewer: Viewer,
    expected: int | None = None,
    key: str | None = None,
    actor: str | None = None,
    autoplay: bool = True,
) -> Accepted:
    """Validate ``body`` with the engine and append what it causes, in one unit of work.

    ``viewer`` is who asks, already resolved by the caller (a seat, the organiser, None).
    ``expected`` (If-Match) must be the current version, else ``VersionConflict``;
    without it, an action that lost a race to another writer is decided again on the new
    state (a few times). An ``Idempotency-Key`` seen before returns the first response
    and appends nothing (docs/api.md, "Acting at a table"). ``actor`` names who acted in
    the log when it is not the caller (``bot random seat 2``); without it, a seat acting
    for itself is its person, refused while a bot plays the seat (``seat_taken_over``,
    ``domain.stand_ins``). Once committed, the change is published (which wakes a bot
    left to move: ``service.jobs.botplay``), unless ``autoplay`` is off: the bots' own
    loop.

    On PostgreSQL, a table this process has cached is acted on as cached, unless the
    request carries an Idempotency-Key: its append checks the stored head in the same
    statement (``UnitOfWork.lock_table``). If that check fails, or the cached table is
    refused, it is done again once, locked and loaded from the database (``StaleHead``).
    """
    unchecked = key is None
    attempt = 1
    while True:
        try:
            return _act_once(table_id, body, viewer, expected, key, actor, autoplay, unchecked)
        except StaleHead:
            if not unchecked:
                raise  # only an unchecked attempt can find its head stale
            logger.info("table %s: the cached log was not the stored one, loading it", table_id)
            unchecked = False
        except (VersionConflict, IntegrityError) as conflict:
            unchecked = False
            if expected is not None or attempt == ATTEMPTS:
                if isinstance(conflict, IntegrityError):
                    _refuse_if_damaged(table_id)
                with get_database().reading() as connection:
                    current = table_logs().head(connection, table_id).version
                raise VersionConflict(table_id, expected, current) from conflict
            at = conflict.expected if isinstance(conflict, VersionConflict) else "?"
            logger.warning("table %s: lost a race at version %s, deciding again (attempt %d)",
                           table_id, at, attempt + 1)  # fmt: skip
            attempt += 1


ATTEMPTS = 3


def _refuse_if_damaged(table_id: str) -> None:
    """After a write the database refused: a row already stored beyond the head is damage
    the cached log (at that head, so unchecked) cannot show; replay and check it all."""
    table_logs().forget(table_id)
    with unit_of_work() as work:
        work.table(table_id)


def _act_once(
    table_id: str,
    body: Mapping[str, Any],
    viewer: Viewer,
    expected: int | None,
    key: str | None,
    actor: str | None,
    autoplay: bool,
    unchecked: bool = False,
) -> Accepted:
    _authorize(viewer, body)
    request = None if key is None else Request(table_id, key, _request_hash(body, expected, viewer))
    with unit_of_work(publish=autoplay) as work:
        # one writer per table at a time, everywhere (or, unchecked, one append per version)
        work.lock_table(table_id, unchecked=unchecked and request is None)
        if request is not None and (first := work.answered(request)) is not None:
            return first  # a retry: the first answer, and nothing appended
        try:
            log = work.table(table_id)
            if expected is not None and expected != log.version:
                raise VersionConflict(table_id, expected, log.version)
            if actor is None and type(viewer) is int:  # the seat's person (a bot names itself)
                refuse_taken_over(log, viewer)
            rules = log.rules
            action = rules.parse(body)
            if body.get("type") == "deal":
                _authorize_deal(log, viewer)
            events = rules.decide(log.state, action)
            after = work.append_table(log, events, recorded(log.opened.game, events, viewer, actor))
        except StaleHead:
            raise
        except Exception as refused:  # refused on a cached log the database never confirmed?
            if not work.checked(table_id):
                raise StaleHead(table_id) from refused
            raise
        shown = {"version": after.version, "events": visible_rows(after, viewer, log.version)}
        return work.answer(request, Accepted(201, shown))


def recorded(
    game_id: str, events: list[Any], viewer: Viewer, actor: str | None = None
) -> list[NewEvent]:
    """Domain events as rows to append, each with its type's current schema version; the
    first records the caller's action (by ``actor`` when given), the rest are what the
    engine caused."""
    caller = actor or ("organiser" if viewer == ORGANISER else f"seat {viewer}")
    out = []
    for i, e in enumerate(events):
        kind = event_type(e)
        out.append(
            NewEvent(
                kind, to_data(e), current_schema(game_id, kind), caller if i == 0 else "engine"
            )
        )
    return out


def visible_rows(log: TableLog, viewer: Viewer, after: int = 0, limit: int | None = None) -> list:
    """Events after version ``after`` as ``viewer`` may see them, in API form."""
    shown = log.rules.visible_events(log.events, viewer)
    end = log.version if limit is None else min(log.version, after + limit)
    return [
        {
            "version": v,
            "type": log.rows[v - 1].type,
            "at": log.rows[v - 1].recorded_at,
            "data": to_data(shown[v - 1]),
        }
        for v in range(after + 1, end + 1)
    ]


__all__ = ["Accepted", "RuleViolation", "act", "create_table", "table_logs", "visible_rows"]
