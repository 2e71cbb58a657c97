"""Players and their ratings: the ``players`` rows, and the ratings ledger whose fold the
ratings in them are.

The order in which tables are rated changes the ratings (``domain.tournament.ratings``),
so each rated table is one ``TableRated`` in the ledger stream (``RATINGS``), appended in
the order the ratings were applied: replaying it (``replay_ratings``) gives the same
ladder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from domain.events import event_type, from_data, to_data
from domain.tournament.ratings import INITIAL, Rating, TableRated, rate
from service.storage.eventstore import EventStore, NewEvent, StreamNotFound
from service.storage.models import players
from service.storage.streams import store as signing_store

KIND = "player"  # a player's stream: one PlayerRegistered
RATINGS = "ratings"  # the ledger stream: one TableRated per rated table, in rating order

#: The ledger's head as ``(version, hash)``; None before the first rated table.
LedgerHead = tuple[int, str] | None


def project_player(connection: Connection, player_id: str, name: str, created_at: str) -> None:
    """A registered player's row, at OpenSkill's starting rating."""
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


def lock_ledger(connection: Connection) -> LedgerHead:
    """The ratings ledger's head, its row held for this transaction: rating updates are
    serialised, so the ledger's order is the order they were applied in. Take it before
    the players' rows (``rated_players``)."""
    try:
        return signing_store(connection).lock(RATINGS)
    except StreamNotFound:
        return None


def rated_players(connection: Connection, ids: Iterable[str]) -> dict[str, Any]:
    """The rows of those of ``ids`` that are registered players, held for this transaction."""
    wanted = sorted(set(ids))
    return {
        row.id: row
        for row in connection.execute(
            select(players).where(players.c.id.in_(wanted)).with_for_update()
        )
    }


def record_rating(
    connection: Connection, head: LedgerHead, rated: TableRated, known: Mapping[str, Any]
) -> None:
    """Append ``rated`` to the ledger (``head``: as ``lock_ledger`` found it) and fold it
    into its players' rows (``known``: as ``rated_players`` read them)."""
    _append(connection, head, NewEvent(event_type(rated), to_data(rated)))
    after = rate([Rating(known[p].mu, known[p].sigma) for p in rated.players], rated.places)
    connection.execute(
        _RATE,
        [
            {"b_id": p, "b_mu": r.mu, "b_sigma": r.sigma, "b_n": known[p].rated_tables + 1}
            for p, r in zip(rated.players, after, strict=True)
        ],
    )


_RATE = (
    update(players)
    .where(players.c.id == bindparam("b_id"))
    .values(mu=bindparam("b_mu"), sigma=bindparam("b_sigma"), rated_tables=bindparam("b_n"))
)


def _append(connection: Connection, head: LedgerHead, event: NewEvent) -> None:
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


def replay_ratings(connection: Connection, store: EventStore) -> int:
    """Fold the ratings ledger in its recorded order and write the players' ratings; how
    many tables it rated."""
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
