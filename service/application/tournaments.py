"""Tournament commands: each decides with the domain on the tournament its unit of work
locked and loaded, and appends there (``service.application.unit_of_work``). Seating a
round also opens the round's tables (``service.application.tables.create_table``) in
that same unit of work: the round is recorded with its tables, or neither exists.

A table reports its end to its tournament by a policy of the table's unit of work
(``service.application.policies.finished_table_tells_its_tournament``).
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from domain.errors import RuleViolation
from domain.tournament import decide as tournament
from domain.tournament.decide import AddEntry, FinishTournament, ReturnEntry, WithdrawEntry
from domain.tournament.state import Entry, Tournament
from service.application.players import player_names
from service.application.tables import CreatedTable, create_table, table_logs
from service.application.unit_of_work import unit_of_work
from service.core.refusals import Conflict, NotFound, Unprocessable
from service.storage.db import get_database
from service.storage.entry_tokens import issue_entry_token
from service.storage.models import standings, tournaments
from service.storage.projections.tables import headline
from service.storage.tournamentlog import TournamentLog, tournament_logs

#: Domain codes that mean "not now" (409) or "no such thing" (404 ``not_found``); the
#: rest are 422.
CONFLICT = frozenset(
    {
        "round_in_progress",
        "tournament_finished",
        "entry_withdrawn",
        "entry_not_withdrawn",
        "not_enough_entries",
    }
)
NOT_FOUND = frozenset({"unknown_entry"})


def still_playing(state: Tournament) -> list[dict[str, Any]]:
    """The current round's tables still playing, by number: ``[{"table", "id"}]``."""
    played = state.current
    if played is None:
        return []
    return [
        {"table": t.number, "id": t.table} for t in played.tables if t.table not in played.results
    ]


def _round_in_progress(state: Tournament, doing: str) -> None:
    """Refuse ``doing`` while the current round plays on, naming its tables still playing
    (the organiser's console shows where to go): 409 ``round_in_progress``."""
    if not state.in_progress:
        return
    tables = still_playing(state)
    numbers = ", ".join(str(t["table"]) for t in tables)
    raise Conflict(
        f"round {len(state.rounds)} has tables still playing ({numbers}): {doing} waits "
        "until they have finished",
        "round_in_progress",
        extra={"round": len(state.rounds), "tables": tables},
    )


@contextmanager
def _rules() -> Iterator[None]:
    """The tournament's rule violations as application errors with the same stable codes."""
    try:
        yield
    except RuleViolation as refused:
        if refused.code in NOT_FOUND:
            raise NotFound(refused.message) from None
        refusal = Conflict if refused.code in CONFLICT else Unprocessable
        raise refusal(refused.message, refused.code) from None


def create_tournament(spec: Mapping[str, Any]) -> TournamentLog:
    """Record a new tournament; an omitted seed is drawn, and a 128-bit salt always is
    (docs/rules/common.md, "Deterministic shuffling", rule 1); both stay secret until the
    end (each table's deal seed derives from ``"{salt}:{seed}"``)."""
    seeded = {**spec, "seed": spec.get("seed") or secrets.token_urlsafe(16)}
    with _rules():
        created = tournament.create(seeded, salt=secrets.token_hex(16))
    with unit_of_work() as work:
        log = work.start_tournament(uuid.uuid4().hex, created)
    return log


def read_tournament(tournament_id: str) -> TournamentLog:
    with get_database().reading() as connection:
        return tournament_logs().load(connection, tournament_id)


def add_entry(tournament_id: str, name: str | None, player_id: str | None) -> Entry:
    """Enter a guest by name, or a registered player (under the player's name), with their
    personal link's token (``service.application.entries``) in the same transaction."""
    with unit_of_work() as work:
        log = work.tournament(tournament_id)
        if player_id is not None:
            known = player_names(work.connection, [player_id])
            if player_id not in known:
                raise Unprocessable(f"there is no player {player_id}", "unknown_player")
            name = known[player_id]
        with _rules():
            events = tournament.decide(log.state, AddEntry(name or "", player_id))
        log = work.append_tournament(log, events)
        issue_entry_token(work.connection, tournament_id, events[0].entry)
    return log.state.entries[events[0].entry]


def withdraw_entry(tournament_id: str, entry: int) -> Entry:
    """Withdraw an entry: its results stay, it is never seated again."""
    with unit_of_work() as work:
        log = work.tournament(tournament_id)
        with _rules():
            events = tournament.decide(log.state, WithdrawEntry(entry))
        log = work.append_tournament(log, events)
    return log.state.entries[entry]


def return_entry(tournament_id: str, entry: int) -> Entry:
    """Undo a withdrawal: the entry is seated again from the next round."""
    with unit_of_work() as work:
        log = work.tournament(tournament_id)
        with _rules():
            events = tournament.decide(log.state, ReturnEntry(entry))
        log = work.append_tournament(log, events)
    return log.state.entries[entry]


def finish_tournament(tournament_id: str) -> TournamentLog:
    """End the tournament between rounds (an open-ended one, or one cut short)."""
    with unit_of_work() as work:
        log = work.tournament(tournament_id)
        if not log.state.finished:
            _round_in_progress(log.state, "finishing the tournament")
        with _rules():
            events = tournament.decide(log.state, FinishTournament())
        log = work.append_tournament(log, events)
    return log


@dataclass(frozen=True, slots=True)
class SeatedRound:
    """A round just seated: the tournament after it and each table as opened (with the
    seat tokens, shown only now)."""

    log: TournamentLog
    tables: tuple[CreatedTable, ...]


def seat_round(tournament_id: str) -> SeatedRound:
    """Seat the next round and open its tables, all in one unit of work: once it has
    committed, a bot that deals first at one of them is woken."""
    with unit_of_work() as work:
        log = work.tournament(tournament_id)
        if not log.state.finished:
            _round_in_progress(log.state, "seating the next round")
        with _rules():
            seating = tournament.plan_round(log.state)
        specs = tournament.table_specs(log.state, seating)
        opened = tuple(create_table(spec, work.connection) for spec in specs)
        seated = tournament.round_seated(log.state, seating, [t.id for t in opened])
        log = work.append_tournament(log, [seated])
    return SeatedRound(log, opened)


def read_standings(tournament_id: str) -> tuple[Any, Sequence[Any]]:
    """The tournament's projection row and its standings rows, in order."""
    with get_database().reading() as connection:
        summary = connection.execute(
            select(tournaments).where(tournaments.c.id == tournament_id)
        ).first()
        if summary is None:
            raise NotFound(f"there is no tournament {tournament_id}")
        rows = connection.execute(
            select(standings)
            .where(standings.c.tournament_id == tournament_id)
            .order_by(standings.c.position)
        ).all()
    return summary, rows


def round_seating(connection: Connection, tournament_id: str, round_number: int) -> dict[str, Any]:
    """Who sits where in round ``round_number`` and how each table stands: ``{"round",
    "finished", "tables": [{"table", "id", "status", "seats", "to_act"}], "byes"}``, where
    ``to_act`` lists the seats the table waits for (empty once finished). A table still
    playing is read through the per-process cache of table logs; a finished one not at all.
    """
    log = tournament_logs().load(connection, tournament_id)
    state = log.state
    if not 1 <= round_number <= len(state.rounds):
        raise NotFound(
            f"tournament {tournament_id} has {len(state.rounds)} rounds seated, "
            f"not round {round_number}"
        )
    played = state.rounds[round_number - 1]
    bot = state.config.fill_with_bots or "random"
    tables = []
    for seated in played.tables:
        if seated.table in played.results:
            shown, to_act = "finished", []
        else:
            table = table_logs().load(connection, seated.table)
            shown = headline(table)["status"]
            to_act = [] if shown == "finished" else list(table.rules.to_act(table.state))
        seats = []
        for seat, entry in enumerate(seated.seats):
            person = state.entries[entry] if entry is not None else None
            seats.append(
                {
                    "seat": seat,
                    "name": person.name if person else None,
                    "entry": entry,
                    "player_id": person.player_id if person else None,
                    "bot": None if person else bot,
                }
            )
        tables.append(
            {
                "table": seated.number,
                "id": seated.table,
                "status": shown,
                "seats": seats,
                "to_act": to_act,
            }
        )
    return {
        "round": played.number,
        "finished": played.finished,
        "tables": tables,
        "byes": [{"entry": e, "name": state.entries[e].name} for e in played.byes],
    }
