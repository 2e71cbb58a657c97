"""The command path: load the stream, fold, decide, append with the expected version,
all in one transaction. HTTP routes and Celery tasks both come through here.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import uuid
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, insert, select
from sqlalchemy.exc import IntegrityError

from domain.errors import RuleViolation
from domain.events import TableOpened, event_type, to_data
from domain.games import game
from domain.match import MatchRules
from domain.shuffle import seed_commitment
from domain.table import ORGANISER, SeatSpec, Table, Viewer
from domain.upcast import current_schema
from service.application import followups
from service.application.players import check_seat_players
from service.core.refusals import Conflict, Forbidden, Unauthorized, Unprocessable
from service.core.resources import resources
from service.storage.damage import refuse_if_damaged
from service.storage.db import get_database
from service.storage.eventstore import Head, NewEvent, VersionConflict, canonical_json
from service.storage.models import idempotency_keys
from service.storage.projections import after_table_events, project_opened_table
from service.storage.seat_tokens import issue_seat_tokens
from service.storage.streams import store
from service.storage.tablelog import KIND, TableLog, TableLogs, bot_to_move, table_logs_of
from service.storage.transactions import remember_when_committed, writing

if TYPE_CHECKING:
    from flask import Flask


def table_logs(app: Flask | None = None) -> TableLogs:
    """The cached table logs of ``app``, or of the house the caller runs in."""
    return table_logs_of(app.extensions if app is not None else resources())


@dataclass(frozen=True, slots=True)
class CreatedTable:
    id: str
    log: TableLog
    tokens: dict[int, str]


def create_table(spec: Mapping[str, Any], connection: Connection | None = None) -> CreatedTable:
    """Open a table: check the game, seats and rules with the engine, record ``TableOpened``.

    An omitted seed is drawn by the server; either way the server draws the table's
    secret 128-bit salt (never a client's: ``rules/common.md``, "Deterministic
    shuffling", rule 1), and both stay secret until the match ends.
    ``connection``: open it in the caller's transaction (a tournament seating a round).
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
    rules_module.initial_state(table)  # raises RuleViolation for a table the rules refuse
    table_id = uuid.uuid4().hex
    opened = TableOpened.of(table)
    own_transaction = connection is None
    transaction = writing() if connection is None else nullcontext(connection)
    with transaction as connection:
        check_seat_players(connection, table.seats)
        rows = store(connection).create(
            table_id, KIND, [NewEvent("TableOpened", to_data(opened), actor=ORGANISER)]
        )
        humans = (s for s, seat in enumerate(table.seats) if not seat.bot)
        tokens = issue_seat_tokens(connection, table_id, humans)
        log = TableLog(table_id, tuple(rows), (opened,), rules_module.initial_state(table))
        project_opened_table(connection, log)  # its summary; a bot that deals first: the sweep's
        remember_when_committed(table_logs(), log)
    if own_transaction:  # else the caller's transaction is still open: the caller schedules
        followups.after_commit(followups.TABLE_CHANGED, log)
    return CreatedTable(table_id, log, tokens)


def commitment(opened: TableOpened) -> str:
    """The published ``seed_commitment``: SHA-256 of ``"{salt}:{seed}"`` (of the bare seed
    for a table recorded before salts)."""
    return seed_commitment(opened.seed, opened.salt) if opened.seed is not None else ""


@dataclass(frozen=True, slots=True)
class Accepted:
    """What an accepted action returns: the status and body (also what a retry gets)."""

    status: int
    body: dict[str, Any]


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
    """Validate ``body`` with the engine and append what it causes, in one transaction.

    ``viewer`` is who asks, already resolved by the caller (a seat, the organiser, None).
    ``expected`` (If-Match) must be the current version, else ``VersionConflict``;
    without it, an action that lost a race to another writer is decided again on the new
    state (a few times). An ``Idempotency-Key`` seen before returns the first response
    and appends nothing. ``actor`` names who acted in the log when it is not the caller
    (``bot random seat 2``). Once committed, the action is followed by
    ``followups.TABLE_CHANGED`` (which wakes a bot left to move: ``service.jobs.botplay``),
    unless ``autoplay`` is off: the bots' own loop.
    """
    for attempt in range(1, ATTEMPTS + 1):
        try:
            accepted, after = _act_once(table_id, body, viewer, expected, key, actor)
            if autoplay and after is not None:
                followups.after_commit(followups.TABLE_CHANGED, after)
            return accepted
        except (VersionConflict, IntegrityError) as conflict:
            if expected is not None or attempt == ATTEMPTS:
                if isinstance(conflict, IntegrityError):
                    _refuse_if_damaged(table_id)
                with get_database().reading() as connection:
                    current = table_logs().head(connection, table_id).version
                raise VersionConflict(table_id, expected, current) from conflict
    raise AssertionError("unreachable")


ATTEMPTS = 3


def _refuse_if_damaged(table_id: str) -> None:
    """After a write the database refused: a row already stored beyond the head is damage
    the cached log (at that head, so unchecked) cannot show; replay and check it all."""
    logs = table_logs()
    logs.forget(table_id)
    with writing() as connection:
        refuse_if_damaged(KIND, logs.load(connection, table_id, lock=True))


def refuse_imported(log: TableLog) -> None:
    """An imported table is a record of play elsewhere, never a table to play on here: a
    truncated export taken mid-match must not be played on differently under its id."""
    if log.origin is not None:
        raise Conflict(
            f"table {log.id} was imported: it is a record of play on another server and "
            "is read-only here",
            "imported_read_only",
        )


def _act_once(
    table_id: str,
    body: Mapping[str, Any],
    viewer: Viewer,
    expected: int | None,
    key: str | None,
    actor: str | None = None,
) -> tuple[Accepted, TableLog | None]:
    logs = table_logs()
    with writing() as connection:
        _authorize(viewer, body)
        head = _lock(connection, table_id)  # one writer per table at a time, everywhere
        request_hash = _request_hash(body, expected, viewer)
        if key is not None and (seen := _seen(connection, table_id, key, request_hash)):
            return seen, None
        log = logs.load(connection, table_id, head)
        refuse_if_damaged(KIND, log)  # nothing may be built on a log that cannot be trusted
        refuse_imported(log)
        if expected is not None and expected != log.version:
            raise VersionConflict(table_id, expected, log.version)
        rules = log.rules
        action = rules.parse(body)
        if body.get("type") == "deal":
            _authorize_deal(log, viewer)
        events = rules.decide(log.state, action)
        rows = store(connection).append(
            table_id,
            log.version,
            recorded(log.opened.game, events, viewer, actor),
            previous_hash=log.rows[-1].hash,
        )
        after = replace(
            log,
            rows=log.rows + tuple(rows),
            events=log.events + tuple(events),
            state=_fold(rules, log.state, events),
        )
        waited = bot_to_move(log) is not None
        # standings, ratings, bot_turns, the table's summary
        after_table_events(connection, after, events, waited, log.state)
        accepted = Accepted(
            201, {"version": after.version, "events": visible_rows(after, viewer, log.version)}
        )
        if key is not None:
            connection.execute(
                insert(idempotency_keys).values(
                    stream=table_id,
                    key=key,
                    request_hash=request_hash,
                    status=accepted.status,
                    response=json.dumps(accepted.body),
                )
            )
    logs.remember(after)
    return accepted, after


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


def _lock(connection: Connection, table_id: str) -> Head:
    """Take the table's stream row for this transaction (PostgreSQL: ``FOR UPDATE``; SQLite
    already holds the database's write lock), so a retried request waits for the first
    and then finds its Idempotency-Key, instead of racing it."""
    return table_logs().head(connection, table_id, lock=True)


def _fold(rules: Any, state: Any, events: list[Any]) -> Any:
    for e in events:
        state = rules.evolve(state, e)
    return state


def _seen(connection: Connection, table_id: str, key: str, request_hash: str) -> Accepted | None:
    row = connection.execute(
        select(idempotency_keys).where(
            idempotency_keys.c.stream == table_id, idempotency_keys.c.key == key
        )
    ).first()
    if row is None:
        return None
    if row.request_hash != request_hash:
        raise Unprocessable(
            "this Idempotency-Key was used with a different request", "idempotency_key_reused"
        )
    return Accepted(row.status, json.loads(row.response))


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


__all__ = ["RuleViolation", "act", "create_table", "table_logs", "visible_rows"]
