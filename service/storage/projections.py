"""Read models kept beside the event streams: players and their ratings, tournaments,
their tables and their standings, each table's changing summary (``table_summaries``)
and the tables waiting on a bot (``bot_turns``).

Every writer updates them in the transaction that appends the events they follow from,
and ``rebuild_projections`` recomputes them all from the streams alone (the command
``flask --app service cardledger rebuild-projections``): a projection is a cache of a
fold, never a source of truth. The standings rows are always recomputed whole from the
tournament's state and only the rows that changed are written, so the incremental and
the rebuilt rows cannot differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from domain.events import MatchEnded, event_type, from_data, to_data
from domain.tournament.decide import FinishTable, decide, standings_of
from domain.tournament.ratings import INITIAL, PlayerRegistered, Rating, TableRated, rate
from domain.tournament.ratings import rated_places as _rated_places
from domain.tournament.state import Tournament
from service.core.refusals import ApplicationError
from service.storage.damage import refuse_if_damaged
from service.storage.eventstore import EventStore, NewEvent, StreamNotFound
from service.storage.guard import Guard
from service.storage.models import (
    bot_turns,
    players,
    standings,
    streams,
    table_summaries,
    tournament_tables,
    tournaments,
)
from service.storage.streams import store as signing_store
from service.storage.tablelog import TableLog, TableLogs, bot_to_move
from service.storage.tournamentlog import KIND as TOURNAMENT
from service.storage.tournamentlog import TournamentLog, append, fresh, tournament_logs

RATINGS = "ratings"  # the ledger stream: one TableRated per rated table, in rating order
PROJECTIONS = (standings, tournament_tables, tournaments, players, bot_turns, table_summaries)


# --- tournaments -----------------------------------------------------------------------------


def status(state: Tournament) -> str:
    """``finished``, ``playing`` (a round has tables still playing) or ``open``."""
    return "finished" if state.finished else "playing" if state.in_progress else "open"


def _standing_values(state: Tournament) -> dict[int, dict[str, Any]]:
    return {
        row.entry: {
            "position": position,
            "rank": row.rank,
            "name": row.name,
            "player_id": row.player_id,
            "withdrawn": row.withdrawn,
            "match_points": row.match_points,
            "score": row.score,
            "tables": row.tables,
            "byes": row.byes,
            "buchholz": row.buchholz,
            "head_to_head": row.head_to_head,
        }
        for position, row in enumerate(standings_of(state), start=1)
    }


_FIELDS = (
    "position",
    "rank",
    "name",
    "player_id",
    "withdrawn",
    "match_points",
    "score",
    "tables",
    "byes",
    "buchholz",
    "head_to_head",
)
_UPDATE_ROW = (
    update(standings)
    .where(
        standings.c.tournament_id == bindparam("b_tournament"),
        standings.c.entry == bindparam("b_entry"),
    )
    .values({name: bindparam(f"b_{name}") for name in _FIELDS})
)


def project_tournament(connection: Connection, log: TournamentLog) -> None:
    """Bring the tournament's row and its standings up to date with ``log``."""
    state = log.state
    summary = {
        "name": state.config.name,
        "game": state.config.game,
        "status": status(state),
        "rounds_played": state.rounds_played,
        "version": log.version,
    }
    moved = connection.execute(
        update(tournaments).where(tournaments.c.id == log.id).values(summary)
    )
    if moved.rowcount == 0:
        connection.execute(
            insert(tournaments).values(id=log.id, created_at=log.created_at, **summary)
        )
    wanted = _standing_values(state)
    have = {
        row.entry: dict(row._mapping)
        for row in connection.execute(
            select(standings.c.entry, *(standings.c[n] for n in _FIELDS))
            .where(standings.c.tournament_id == log.id)
            .with_for_update()  # waits for a rebuild in progress, then reads its rows
        )
    }
    new = [
        {"tournament_id": log.id, "entry": entry, **values}
        for entry, values in wanted.items()
        if entry not in have
    ]
    changed = [
        {"b_tournament": log.id, "b_entry": entry, **{f"b_{k}": v for k, v in values.items()}}
        for entry, values in wanted.items()
        if entry in have and any(have[entry][k] != v for k, v in values.items())
    ]
    if new:
        connection.execute(insert(standings), new)
    if changed:
        connection.execute(_UPDATE_ROW, changed)


def project_tables(connection: Connection, log: TournamentLog, rounds: Iterable[int]) -> None:
    """Which tournament and round each table of ``rounds`` belongs to (the hook's lookup)."""
    rows = [
        {"table_id": t.table, "tournament_id": log.id, "round": t.round, "number": t.number}
        for number in rounds
        for t in log.state.rounds[number - 1].tables
    ]
    if rows:
        connection.execute(insert(tournament_tables), rows)


# --- players and ratings ---------------------------------------------------------------------


def project_player(connection: Connection, player_id: str, name: str, created_at: str) -> None:
    connection.execute(
        insert(players).values(
            id=player_id,
            name=name,
            created_at=created_at,
            mu=INITIAL.mu,
            sigma=INITIAL.sigma,
            rated_tables=0,
        )
    )


def rate_table(
    connection: Connection, table_id: str, seats: Sequence[Mapping[str, Any]], ended: MatchEnded
) -> None:
    """Record the table in the ratings ledger and update its players' ratings.

    Locks, in order: the ledger's stream row (rating updates are serialised, and the
    ledger's order is the order they were applied in), then the players' rows.
    """
    candidates = [None if seat.get("bot") else seat.get("player_id") for seat in seats]
    if len({c for c in candidates if c}) < 2:
        return
    store = signing_store(connection)
    try:
        head: tuple[int, str] | None = store.lock(RATINGS)
    except StreamNotFound:
        head = None
    known = {
        row.id: row
        for row in connection.execute(
            select(players).where(players.c.id.in_([c for c in candidates if c])).with_for_update()
        )
    }
    ids, places = rated_places([c if c in known else None for c in candidates], ended)
    if not ids:
        return
    rated = TableRated(table_id, ids, places)
    _ledger(connection, head, NewEvent(event_type(rated), to_data(rated)))
    after = rate([Rating(known[p].mu, known[p].sigma) for p in ids], places)
    connection.execute(
        _RATE,
        [
            {"b_id": p, "b_mu": r.mu, "b_sigma": r.sigma, "b_n": known[p].rated_tables + 1}
            for p, r in zip(ids, after, strict=True)
        ],
    )


def rated_places(
    seats: Sequence[str | None], ended: MatchEnded
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The table's rated players and their places among themselves (Lopaka, whose
    ranking is ``None``, never counts)."""
    return _rated_places(seats, ended.totals, ended.ranking)


_RATE = (
    update(players)
    .where(players.c.id == bindparam("b_id"))
    .values(mu=bindparam("b_mu"), sigma=bindparam("b_sigma"), rated_tables=bindparam("b_n"))
)


def _ledger(connection: Connection, head: tuple[int, str] | None, event: NewEvent) -> None:
    """Append to the ratings ledger, creating it on first use (a savepoint lets a
    concurrent first writer win: we then append after it)."""
    store = signing_store(connection)
    if head is None:
        try:
            with connection.begin_nested():
                store.create(RATINGS, "ratings", [event])
            return
        except IntegrityError:
            head = store.lock(RATINGS)
    store.append(RATINGS, head[0], [event], previous_hash=head[1])


# --- the hook on the table command path ------------------------------------------------------


def after_table_events(
    connection: Connection,
    log: TableLog,
    events: Sequence[Any],
    waited: bool = False,
    before: Any = None,
) -> None:
    """Called by ``service.application.tables`` right after a table's events are appended, in the
    same transaction: a ``MatchEnded`` tells the table's tournament (if any) and rates the
    table's players, so standings and ratings never lag behind the tables; the table's
    ``bot_turns`` row follows (``waited``: a bot was to move before the events), and its
    summary row (``before``: the state before the events)."""
    for event in events:
        if type(event) is MatchEnded:
            _match_ended(connection, log.id, log.opened.seats, event)
    project_bot_turn(connection, log, waited)
    project_table(connection, log, before)


def project_opened_table(connection: Connection, log: TableLog) -> None:
    """The read models of a table just opened or imported: its summary and, when a bot
    is the first to move, its ``bot_turns`` row."""
    project_table(connection, log)
    project_bot_turn(connection, log)


# --- table summaries -------------------------------------------------------------------------


def headline(log: TableLog, state: Any = None) -> dict[str, Any]:
    """What a table's public summary shows that play changes: ``status``, ``deal``,
    ``totals`` and ``ranking``, from the public view (no hidden card can be in it)."""
    shown = log.rules.view(log.state if state is None else state, None)
    return {key: shown[key] for key in ("status", "deal", "totals", "ranking")}


def project_table(connection: Connection, log: TableLog, before: Any = None) -> None:
    """Keep ``log``'s ``table_summaries`` row; ``before``: the state the row was written
    for (None: a table just opened, or one whose row may be missing). Only a change of the
    headline writes, so an ordinary move costs no statement."""
    now = headline(log)
    if before is not None and headline(log, before) == now:
        return
    values = {
        "status": now["status"],
        "deal": now["deal"],
        "totals": json.dumps(now["totals"]),
        "ranking": None if now["ranking"] is None else json.dumps(now["ranking"]),
    }
    moved = connection.execute(
        update(table_summaries).where(table_summaries.c.table_id == log.id).values(values)
    )
    if moved.rowcount == 0:
        row = {"table_id": log.id, "created_at": log.rows[0].recorded_at, **values}
        connection.execute(_insert_once(connection, table_summaries, row))


# --- tables waiting on a bot -----------------------------------------------------------------


def project_bot_turn(connection: Connection, log: TableLog, waited: bool = False) -> None:
    """Keep ``log``'s ``bot_turns`` row: there while a bot must move. ``waited``: the row
    was there before (False for a table just opened or imported). Only a change writes,
    so a person's move among persons, or a bot's among bots, costs no statement."""
    waits = bot_to_move(log) is not None
    if waits == waited:
        return
    if waits:
        connection.execute(_insert_once(connection, bot_turns, {"table_id": log.id}))
    else:
        connection.execute(delete(bot_turns).where(bot_turns.c.table_id == log.id))


def _insert_once(connection: Connection, table: Any, values: dict[str, Any]) -> Any:
    """An INSERT that leaves an existing row be: a projection row a rebuild or an older
    deployment left must not turn a person's action into a conflict."""
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    return dialect.insert(table).values(values).on_conflict_do_nothing()


def _match_ended(
    connection: Connection, table_id: str, seats: Sequence[Mapping[str, Any]], ended: MatchEnded
) -> None:
    owner = connection.scalar(
        select(tournament_tables.c.tournament_id).where(tournament_tables.c.table_id == table_id)
    )
    if owner is not None:
        log = tournament_logs().load(connection, owner, lock=True)
        refuse_if_damaged(TOURNAMENT, log)  # a table's end is built on its tournament too
        finished = decide(log.state, FinishTable(table_id, ended.totals, ended.ranking))
        if finished:
            project_tournament(connection, append(connection, log, finished))
    rate_table(connection, table_id, seats, ended)


# --- rebuild ---------------------------------------------------------------------------------


def rebuild_projections(connection: Connection) -> dict[str, int]:
    """Delete every projection row and recompute it from the streams; what was rebuilt.

    On PostgreSQL the projection tables are locked for the transaction, so writers wait
    and then continue from the rebuilt rows.
    """
    if connection.dialect.name == "postgresql":
        names = ", ".join(t.name for t in PROJECTIONS)
        connection.execute(text(f"LOCK TABLE {names} IN EXCLUSIVE MODE"))
    for table in PROJECTIONS:
        connection.execute(delete(table))
    store = EventStore(connection)
    kinds = connection.execute(select(streams.c.id, streams.c.kind).order_by(streams.c.id)).all()
    counts = {"players": 0, "tournaments": 0, "rated_tables": 0}
    for stream_id, kind in kinds:
        if kind == "player":
            first = store.read(stream_id, limit=1)[0]
            name = from_data(PlayerRegistered, first.data).name
            project_player(connection, stream_id, name, first.recorded_at)
            counts["players"] += 1
    for stream_id, kind in kinds:
        if kind == "tournament":
            log = fresh(stream_id, store.read(stream_id))
            project_tournament(connection, log)
            project_tables(connection, log, range(1, len(log.state.rounds) + 1))
            counts["tournaments"] += 1
    counts["rated_tables"] = _replay_ratings(connection, store)
    counts["bot_turns"], counts["tables"] = _replay_tables(connection, kinds)
    return counts


def _replay_tables(connection: Connection, kinds: Sequence[Any]) -> tuple[int, int]:
    """Fold every table: its summary row, and whether a bot must move at it (as far as
    its log can be read: a table whose opening cannot be is left out)."""
    logs = TableLogs(Guard())  # this rebuild's own: no other process's cache in the way
    waiting, summed = [], 0
    for stream_id, kind in kinds:
        if kind != "table":
            continue
        try:
            log = logs.load(connection, stream_id)
        except ApplicationError:
            continue
        project_table(connection, log)
        summed += 1
        if bot_to_move(log) is not None:
            waiting.append({"table_id": stream_id})
    if waiting:
        connection.execute(insert(bot_turns), waiting)
    return len(waiting), summed


def _replay_ratings(connection: Connection, store: EventStore) -> int:
    """Fold the ratings ledger in its recorded order and write the players' ratings."""
    ledger = store.read(RATINGS)  # [] before the first rated table
    ratings: dict[str, Rating] = {}
    played: dict[str, int] = {}
    for row in ledger:
        rated = from_data(TableRated, row.data)
        before = [ratings.get(p, INITIAL) for p in rated.players]
        for p, r in zip(rated.players, rate(before, rated.places), strict=True):
            ratings[p] = r
            played[p] = played.get(p, 0) + 1
    if ratings:
        connection.execute(
            _RATE,
            [
                {"b_id": p, "b_mu": r.mu, "b_sigma": r.sigma, "b_n": played[p]}
                for p, r in ratings.items()
            ],
        )
    return len(ledger)
