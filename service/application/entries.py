"""Personal links: each tournament entry's own token, for the whole tournament
(``docs/api.md``, "Personal links (tournaments)").

The token says who someone is; where they are is the tournament's state: the seat their
entry holds in the current round (the token then acts as that seat's token), or why they
sit no table now (the round has not begun, a bye, the tournament is over, they withdrew).
Tokens are kept by ``service.storage.entry_tokens``; a new entry gets its token in the
transaction that enters it (``service.application.tournaments.add_entry``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Connection

from domain.tournament.state import Tournament
from service.core.refusals import NotFound, Unauthorized
from service.storage.db import get_database
from service.storage.entry_tokens import (
    entry_links,
    entry_of_token,
    has_token,
    issue_entry_token,
)
from service.storage.projections.tournaments import tournament_of
from service.storage.tournamentlog import TournamentLog, tournament_logs
from service.storage.transactions import writing

WAITING, PLAYING, FINISHED, WITHDRAWN = "waiting", "playing", "finished", "withdrawn"


@dataclass(frozen=True, slots=True)
class Whereabouts:
    """Where an entry is now: ``GET /tournaments/{id}/me``'s fields, and what its page
    says besides (the table's number in its round, a bye, a table already over)."""

    entry: int
    name: str
    status: str  # waiting | playing | finished | withdrawn
    round: int | None  # playing: the round played; waiting: the next; else the last seated
    table: str | None = None
    seat: int | None = None
    number: int | None = None  # the table's number in its round
    bye: bool = False  # sits out the current round
    done: bool = False  # their table of the current round is over, others still play

    def json(self) -> dict[str, object]:
        return {"entry": self.entry, "name": self.name, "status": self.status,
                "round": self.round, "table": self.table, "seat": self.seat}  # fmt: skip


def whereabouts(state: Tournament, entry: int) -> Whereabouts:
    """Where ``entry`` is in ``state``. Someone at a table still playing is ``playing``
    even if they have withdrawn since (that table still needs their moves)."""
    person = state.entries[entry]
    current = state.current
    last = current.number if current is not None else None
    if current is not None:
        for seated in current.tables:
            if entry in seated.seats and seated.table not in current.results:
                seat = seated.seats.index(entry)
                return Whereabouts(entry, person.name, PLAYING, last, seated.table, seat,
                                   seated.number)  # fmt: skip
    if person.withdrawn:
        return Whereabouts(entry, person.name, WITHDRAWN, last)
    if state.finished:
        return Whereabouts(entry, person.name, FINISHED, last)
    if current is None or current.finished:
        return Whereabouts(entry, person.name, WAITING, len(state.rounds) + 1)
    bye = entry in current.byes
    done = any(entry in seated.seats for seated in current.tables)
    return Whereabouts(entry, person.name, WAITING, last + 1 if last else 1, bye=bye, done=done)


def _tournament(connection: Connection, tournament_id: str) -> TournamentLog:
    return tournament_logs().load(connection, tournament_id)


def entry_of(connection: Connection, tournament_id: str, token: str) -> int:
    """The entry of ``tournament_id`` whose token ``token`` is; 401 ``unauthorized`` for any
    other token (another tournament's, a re-issued one, a seat's)."""
    found = entry_of_token(connection, token)
    if found is None or found[0] != tournament_id:
        raise Unauthorized("this is not a personal link of this tournament")
    return found[1]


def find_me(tournament_id: str, token: str) -> tuple[TournamentLog, Whereabouts]:
    """The tournament (404 if there is none) and where the token's entry is in it."""
    with get_database().reading() as connection:
        log = _tournament(connection, tournament_id)
        entry = entry_of(connection, tournament_id, token)
    return log, whereabouts(log.state, entry)


def seat_of_entry_token(connection: Connection, table_id: str, token: str) -> int | None:
    """The seat of ``table_id`` that the token's entry holds in its tournament's current
    round, or None (not an entry token, or not that entry's table now)."""
    found = entry_of_token(connection, token)
    if found is None:
        return None
    tournament_id, entry = found
    if tournament_of(connection, table_id) != tournament_id:
        return None
    current = _tournament(connection, tournament_id).state.current
    if current is None:
        return None
    for seated in current.tables:
        if seated.table == table_id and entry in seated.seats:
            return seated.seats.index(entry)
    return None


def _known_entry(log: TournamentLog, entry: int) -> None:
    if entry not in log.state.entries:
        raise NotFound(f"tournament {log.id} has no entry {entry}")


def reissue_entry_token(
    tournament_id: str, entry: int, connection: Connection | None = None
) -> str:
    """A new token for one entry: their earlier link stops at once, nobody else's changes.
    ``connection``: in the caller's write transaction (a console form records its key
    in it)."""
    if connection is None:
        with writing() as connection:
            return reissue_entry_token(tournament_id, entry, connection)
    log = tournament_logs().load(connection, tournament_id, lock=True)
    _known_entry(log, entry)
    return issue_entry_token(connection, tournament_id, entry)


def personal_links(tournament_id: str, entries: Iterable[int]) -> dict[int, str | None]:
    """Each entry's current token, the same every time it is asked for (a reprint shows the
    same links); an entry entered before tokens existed is given its first one now (under
    the tournament's lock, so two printers give it one). ``None``: the server's key has
    changed since it was issued, and only a re-issue gives that person a link again."""
    wanted = list(entries)
    with get_database().reading() as connection:
        links = entry_links(connection, tournament_id, wanted)
    missing = [entry for entry, token in links.items() if token is None]
    if not missing:
        return links
    with writing() as connection:
        log = tournament_logs().load(connection, tournament_id, lock=True)
        given = has_token(connection, tournament_id)
        for entry in missing:
            _known_entry(log, entry)
            if entry not in given:
                issue_entry_token(connection, tournament_id, entry)
        return entry_links(connection, tournament_id, wanted)
