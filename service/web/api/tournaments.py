"""Tournaments: create, enter, withdraw, seat rounds, standings (``docs/api.md``, Tournaments).

Writes are the organiser's; reads are public (standings are meant to be published).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from flask import Response, render_template

from domain.tournament.standings import shown
from domain.tournament.state import Entry, Tournament
from service.application.entries import personal_links
from service.application.listings import tournament_settings
from service.application.tournaments import (
    SeatedRound,
    add_entry,
    create_tournament,
    finish_tournament,
    read_standings,
    read_tournament,
    seat_round,
    withdraw_entry,
)
from service.storage.projections.tournaments import status
from service.storage.tournamentlog import TournamentLog
from service.web.api.audit import stored_head
from service.web.api.base import TOKEN_OPTIONAL, Blueprint, organiser_only
from service.web.pages.standings import standings_page
from service.web.schemas.entries import EntryEnteredSchema
from service.web.schemas.tournaments import (
    EntryCreateSchema,
    EntrySchema,
    RoundSeatedSchema,
    StandingsQuerySchema,
    StandingsSchema,
    TournamentCreateSchema,
    TournamentSchema,
)

blp = Blueprint(
    "tournaments",
    __name__,
    description="Create, enter, withdraw, seat rounds, standings; writes are the organiser's.",
)
#: What a CSV or HTML answer is, to the spec.
TEXT = {"type": "string"}

#: ``?format=csv``: the first five columns are fixed by ``docs/api.md``.
CSV_HEADER = (
    "rank",
    "player",
    "match_points",
    "score",
    "tables",
    "entry",
    "player_id",
    "byes",
    "buchholz",
    "head_to_head",
    "withdrawn",
)


def _entry(entry: Entry) -> dict[str, Any]:
    return {
        "entry": entry.entry,
        "name": entry.name,
        "player_id": entry.player_id,
        "withdrawn": entry.withdrawn,
    }


def _seats(state: Tournament, seats: tuple[int | None, ...], bot: str | None) -> list[dict]:
    out = []
    for seat, entry in enumerate(seats):
        if entry is None:
            out.append({"seat": seat, "entry": None, "name": None, "bot": bot or "random"})
        else:
            person = state.entries[entry]
            out.append(
                {
                    "seat": seat,
                    "entry": entry,
                    "name": person.name,
                    "player_id": person.player_id,
                    "bot": None,
                }
            )
    return out


def summary(log: TournamentLog) -> dict[str, Any]:
    state = log.state
    config = state.config
    return {
        "id": log.id,
        **tournament_settings(config, status(state), state.rounds_played, state.finished),
        "version": log.version,
        "created_at": log.created_at,
        "damaged": log.damage.as_dict() if log.damage is not None else None,
        "entries": [_entry(e) for e in state.entries.values()],
        "seatings": [
            {
                "round": played.number,
                "finished": played.finished,
                "tables": [
                    {
                        "id": t.table,
                        "number": t.number,
                        "first_dealer": t.first_dealer,
                        "seats": _seats(state, t.seats, config.fill_with_bots),
                        "finished": t.table in played.results,
                        "totals": _result(played.results, t.table, "totals"),
                        "ranking": _result(played.results, t.table, "ranking"),
                    }
                    for t in played.tables
                ],
                "byes": [{"entry": e, "name": state.entries[e].name} for e in played.byes],
            }
            for played in state.rounds
        ],
    }


def _result(results: Any, table: str, field: str) -> list | None:
    done = results.get(table)
    return None if done is None else list(getattr(done, field))


@blp.post("/tournaments", operation_id="createTournament")
@organiser_only
@blp.arguments(TournamentCreateSchema())
@blp.response(
    201,
    TournamentSchema,
    description="The tournament (its seed stays secret until it is finished).",
)
@blp.problems(400, 401, 403, 422)
def post_tournament(spec: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Create a tournament (organiser)"""
    return summary(create_tournament(spec)), 201


@blp.get("/tournaments/<id:tournament_id>", operation_id="getTournament", security=TOKEN_OPTIONAL)
@blp.response(200, TournamentSchema, description="The tournament as its events tell it.")
@blp.problems(401, 404)
def get_tournament(tournament_id: str) -> tuple[dict[str, Any], int]:
    """Tournament

    Settings, entries, rounds and their tables (anyone).
    """
    return summary(read_tournament(tournament_id)), 200


@blp.post("/tournaments/<id:tournament_id>/entries", operation_id="addEntry")
@organiser_only
@blp.arguments(EntryCreateSchema())
@blp.response(201, EntryEnteredSchema, description="The entry, with its personal token.")
@blp.problems(400, 401, 403, 404, 409, 422)
def post_entry(body: dict[str, Any], tournament_id: str) -> tuple[dict[str, Any], int]:
    """Add an entry (organiser)

    A guest by name or a registered player; entries may join until the tournament is
    finished and are seated from the next round.
    """
    entry = add_entry(tournament_id, body.get("name"), body.get("player_id"))
    token = personal_links(tournament_id, [entry.entry])[entry.entry]
    return {**_entry(entry), "token": token}, 201


@blp.delete("/tournaments/<id:tournament_id>/entries/<int:entry>", operation_id="withdrawEntry")
@organiser_only
@blp.response(200, EntrySchema, description="The entry, withdrawn.")
@blp.problems(401, 403, 404, 409)
def delete_entry(tournament_id: str, entry: int) -> tuple[dict[str, Any], int]:
    """Withdraw an entry (organiser)

    Its results stay; it is never seated again.
    """
    return _entry(withdraw_entry(tournament_id, entry)), 200


def _round(seated: SeatedRound) -> dict[str, Any]:
    state = seated.log.state
    played = state.rounds[-1]
    tables = []
    for t, opened in zip(played.tables, seated.tables, strict=True):
        seats = _seats(state, t.seats, state.config.fill_with_bots)
        for seat in seats:
            seat["token"] = opened.tokens.get(seat["seat"])
        tables.append(
            {"id": t.table, "number": t.number, "first_dealer": t.first_dealer, "seats": seats}
        )
    return {
        "round": played.number,
        "tables": tables,
        "byes": [{"entry": e, "name": state.entries[e].name} for e in played.byes],
    }


@blp.post("/tournaments/<id:tournament_id>/rounds", operation_id="seatRound")
@organiser_only
@blp.response(
    201,
    RoundSeatedSchema,
    description="The round's tables, each seat with its entry and, for people, its seat token "
    "(shown only now: the organiser hands them out); and the entries given a bye.",
)
@blp.problems(401, 403, 404, 409)
def post_round(tournament_id: str) -> tuple[dict[str, Any], int]:
    """Seat the next round (organiser)

    Opens the round's tables.
    """
    return _round(seat_round(tournament_id)), 201


@blp.post("/tournaments/<id:tournament_id>/finish", operation_id="finishTournament")
@organiser_only
@blp.response(
    200, TournamentSchema, description="The finished tournament, its seed and salt revealed."
)
@blp.problems(401, 403, 404, 409)
def post_finish(tournament_id: str) -> tuple[dict[str, Any], int]:
    """Finish a tournament (organiser)

    Between rounds: no more rounds or entries. A tournament with a set number of rounds
    finishes by itself after the last.
    """
    return summary(finish_tournament(tournament_id)), 200


def standing_rows(rows: Sequence[Any]) -> list[dict[str, Any]]:
    return [
        {
            "rank": row.rank,
            "player": row.name,
            "entry": row.entry,
            "player_id": row.player_id,
            "match_points": shown(row.match_points),
            "score": row.score,
            "tables": row.tables,
            "byes": row.byes,
            "withdrawn": row.withdrawn,
            "tiebreaks": {"buchholz": shown(row.buchholz), "head_to_head": row.head_to_head},
        }
        for row in rows
    ]


def _csv(rows: list[dict[str, Any]]) -> str:
    """The standings as CSV. A text cell a spreadsheet would take for a formula (one that
    starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, as a player named
    ``=HYPERLINK(…)`` would) is written with a leading ``'`` (OWASP's advice for CSV
    injection); numbers stay numbers, so a score of -10 is still -10."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_HEADER)
    for row in rows:
        h2h = row["tiebreaks"]["head_to_head"]
        writer.writerow(
            _inert(cell)
            for cell in (
                row["rank"],
                row["player"],
                row["match_points"],
                row["score"],
                row["tables"],
                row["entry"],
                row["player_id"] or "",
                row["byes"],
                row["tiebreaks"]["buchholz"],
                "" if h2h is None else h2h,
                "true" if row["withdrawn"] else "false",
            )
        )
    return out.getvalue()


#: What makes a spreadsheet read a cell as a formula (or split it into one).
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def _inert(cell: Any) -> Any:
    if isinstance(cell, str) and cell.startswith(FORMULA_LEADS):
        return "'" + cell
    return cell


@blp.get(
    "/tournaments/<id:tournament_id>/standings",
    operation_id="getStandings",
    security=TOKEN_OPTIONAL,
)
@blp.arguments(StandingsQuerySchema(), location="query")
@blp.response(
    200,
    StandingsSchema,
    description="Sorted by match points, total score, Buchholz, head-to-head; entries still "
    "equal share a rank. CSV columns start rank,player,match_points,score,tables.",
)
@blp.alt_response(200, schema=TEXT, content_type="text/csv", success=True)
@blp.problems(401, 404, 422)
def get_standings(
    query: dict[str, str], tournament_id: str
) -> Response | tuple[dict[str, Any], int]:
    """Standings

    As JSON or, with ``?format=csv``, as CSV (anyone).
    """
    head, rows = read_standings(tournament_id)
    shown_rows = standing_rows(rows)
    if query["format"] == "csv":
        return Response(
            _csv(shown_rows),
            mimetype="text/csv",
            headers={"Content-Disposition": f'inline; filename="standings-{tournament_id}.csv"'},
        )
    body = {
        "tournament": head.id,
        "name": head.name,
        "status": head.status,
        "rounds_played": head.rounds_played,
        "rows": shown_rows,
        "head": stored_head(tournament_id, head.version).as_dict(),
    }
    return body, 200


@blp.get(
    "/tournaments/<id:tournament_id>/standings.html",
    operation_id="getStandingsPage",
    security=TOKEN_OPTIONAL,
    tags=["pages"],
)
@blp.response(
    200, TEXT, content_type="text/html", description="An HTML page with a print style sheet."
)
@blp.problems(401, 404)
def get_standings_page(tournament_id: str) -> Response:
    """Standings page

    The standings as a printable page (anyone): server-rendered, no external assets.
    """
    head, rows = read_standings(tournament_id)
    signed = stored_head(tournament_id, head.version)
    shown = standing_rows(rows)
    page = render_template(
        "standings.html",
        tournament=head,
        rows=shown,
        page=standings_page(head, shown),
        signed=signed,
    )
    return Response(page, mimetype="text/html")
