"""Tournaments: create, enter, withdraw, seat rounds, standings (``api.md``, Tournaments).

Writes are the organiser's; reads are public (standings are meant to be published).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from flask import Blueprint, Response, render_template, request

from domain.shuffle import seed_commitment
from domain.tournament.standings import bye_units, shown
from domain.tournament.state import Entry, Tournament
from service.api.audit import sign_stream_head
from service.api.tables import json_body
from service.auth import require_organiser
from service.projections import status
from service.schemas.tournaments import (
    EntryCreateSchema,
    EntrySchema,
    RoundSeatedSchema,
    StandingsQuerySchema,
    StandingsSchema,
    TournamentCreateSchema,
    TournamentSchema,
)
from service.tournamentlog import TournamentLog
from service.tournaments import (
    SeatedRound,
    add_entry,
    create_tournament,
    finish_tournament,
    read_standings,
    read_tournament,
    seat_round,
    withdraw_entry,
)

blueprint = Blueprint("tournaments", __name__)

#: ``?format=csv``: the first five columns are fixed by ``api.md``.
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


class SCHEMAS:
    """One instance each: building a marshmallow schema costs more than using it."""

    EntryCreateSchema = EntryCreateSchema()
    EntrySchema = EntrySchema()
    RoundSeatedSchema = RoundSeatedSchema()
    StandingsQuerySchema = StandingsQuerySchema()
    StandingsSchema = StandingsSchema()
    TournamentCreateSchema = TournamentCreateSchema()
    TournamentSchema = TournamentSchema()


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
        "name": config.name,
        "game": config.game,
        "variant": config.variant,
        "rules": dict(config.rules),
        "table_size": config.table_size,
        "target_score": config.target_score,
        "max_deals": config.max_deals,
        "rounds": config.rounds,
        "pairing": config.pairing,
        "fill_with_bots": config.fill_with_bots,
        "bye_points": shown(bye_units(config.table_size, config.match_points, config.bye_points)),
        "match_points": list(config.match_points) if config.match_points else None,
        "status": status(state),
        "rounds_played": state.rounds_played,
        "version": log.version,
        "seed_commitment": seed_commitment(config.seed, config.salt),
        "seed": config.seed if state.finished else None,
        "salt": config.salt if state.finished else None,
        "created_at": log.created_at,
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


@blueprint.post("/tournaments")
def post_tournament() -> tuple[dict[str, Any], int]:
    """Create a tournament (organiser).
    ---
    post:
      summary: Create a tournament
      operationId: createTournament
      tags: [tournaments]
      requestBody:
        required: true
        content:
          application/json:
            schema: TournamentCreate
      responses:
        "201":
          description: The tournament (its seed stays secret until it is finished).
          content:
            application/json:
              schema: Tournament
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    require_organiser()
    spec = SCHEMAS.TournamentCreateSchema.load(json_body())
    return SCHEMAS.TournamentSchema.dump(summary(create_tournament(spec))), 201


@blueprint.get("/tournaments/<id:tournament_id>")
def get_tournament(tournament_id: str) -> tuple[dict[str, Any], int]:
    """A tournament: settings, entries, rounds and their tables (anyone).
    ---
    get:
      summary: Tournament
      operationId: getTournament
      tags: [tournaments]
      security: [{}, {bearer: []}]
      parameters:
        - in: path
          name: tournament_id
          required: true
          schema: {type: string, pattern: "^[0-9a-f]{32}$"}
      responses:
        "200":
          description: The tournament as its events tell it.
          content:
            application/json:
              schema: Tournament
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
    """
    return SCHEMAS.TournamentSchema.dump(summary(read_tournament(tournament_id))), 200


@blueprint.post("/tournaments/<id:tournament_id>/entries")
def post_entry(tournament_id: str) -> tuple[dict[str, Any], int]:
    """Enter someone (organiser): a guest by name or a registered player; entries may join
    until the tournament is finished and are seated from the next round.
    ---
    post:
      summary: Add an entry
      operationId: addEntry
      tags: [tournaments]
      parameters:
        - in: path
          name: tournament_id
          required: true
          schema: {type: string, pattern: "^[0-9a-f]{32}$"}
      requestBody:
        required: true
        content:
          application/json:
            schema: EntryCreate
      responses:
        "201":
          description: The entry.
          content:
            application/json:
              schema: Entry
        "400": {$ref: "#/components/responses/BadRequest"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "409": {$ref: "#/components/responses/Conflict"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    require_organiser()
    body = SCHEMAS.EntryCreateSchema.load(json_body())
    entry = add_entry(tournament_id, body.get("name"), body.get("player_id"))
    return SCHEMAS.EntrySchema.dump(_entry(entry)), 201


@blueprint.delete("/tournaments/<id:tournament_id>/entries/<int:entry>")
def delete_entry(tournament_id: str, entry: int) -> tuple[dict[str, Any], int]:
    """Withdraw an entry (organiser): its results stay, it is never seated again.
    ---
    delete:
      summary: Withdraw an entry
      operationId: withdrawEntry
      tags: [tournaments]
      parameters:
        - in: path
          name: tournament_id
          required: true
          schema: {type: string, pattern: "^[0-9a-f]{32}$"}
        - {in: path, name: entry, required: true, schema: {type: integer, minimum: 0}}
      responses:
        "200":
          description: The entry, withdrawn.
          content:
            application/json:
              schema: Entry
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "409": {$ref: "#/components/responses/Conflict"}
    """
    require_organiser()
    return SCHEMAS.EntrySchema.dump(_entry(withdraw_entry(tournament_id, entry))), 200


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


@blueprint.post("/tournaments/<id:tournament_id>/rounds")
def post_round(tournament_id: str) -> tuple[dict[str, Any], int]:
    """Seat the next round and open its tables (organiser).
    ---
    post:
      summary: Seat the next round
      operationId: seatRound
      tags: [tournaments]
      parameters:
        - in: path
          name: tournament_id
          required: true
          schema: {type: string, pattern: "^[0-9a-f]{32}$"}
      responses:
        "201":
          description: >-
            The round's tables, each seat with its entry and, for people, its seat token
            (shown only now: the organiser hands them out); and the entries given a bye.
          content:
            application/json:
              schema: RoundSeated
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "409": {$ref: "#/components/responses/Conflict"}
    """
    require_organiser()
    return SCHEMAS.RoundSeatedSchema.dump(_round(seat_round(tournament_id))), 201


@blueprint.post("/tournaments/<id:tournament_id>/finish")
def post_finish(tournament_id: str) -> tuple[dict[str, Any], int]:
    """Finish the tournament between rounds (organiser): no more rounds or entries.
    A tournament with a set number of rounds finishes by itself after the last.
    ---
    post:
      summary: Finish a tournament
      operationId: finishTournament
      tags: [tournaments]
      parameters:
        - in: path
          name: tournament_id
          required: true
          schema: {type: string, pattern: "^[0-9a-f]{32}$"}
      responses:
        "200":
          description: The finished tournament, its seed and salt revealed.
          content:
            application/json:
              schema: Tournament
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotFound"}
        "409": {$ref: "#/components/responses/Conflict"}
    """
    require_organiser()
    return SCHEMAS.TournamentSchema.dump(summary(finish_tournament(tournament_id))), 200


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
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_HEADER)
    for row in rows:
        h2h = row["tiebreaks"]["head_to_head"]
        writer.writerow(
            [
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
            ]
        )
    return out.getvalue()


@blueprint.get("/tournaments/<id:tournament_id>/standings")
def get_standings(tournament_id: str) -> Response | tuple[dict[str, Any], int]:
    """The standings (anyone), as JSON or, with ``?format=csv``, as CSV.
    ---
    get:
      summary: Standings
      operationId: getStandings
      tags: [tournaments]
      security: [{}, {bearer: []}]
      parameters:
        - in: path
          name: tournament_id
          required: true
          schema: {type: string, pattern: "^[0-9a-f]{32}$"}
        - in: query
          name: format
          required: false
          schema: {type: string, enum: [json, csv], default: json}
      responses:
        "200":
          description: >-
            Sorted by match points, total score, Buchholz, head-to-head; entries still
            equal share a rank. CSV columns start rank,player,match_points,score,tables.
          content:
            application/json:
              schema: Standings
            text/csv:
              schema: {type: string}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
        "422": {$ref: "#/components/responses/Unprocessable"}
    """
    query = SCHEMAS.StandingsQuerySchema.load(request.args.to_dict())
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
        "head": sign_stream_head(tournament_id, head.version).as_dict(),
    }
    return SCHEMAS.StandingsSchema.dump(body), 200


@blueprint.get("/tournaments/<id:tournament_id>/standings.html")
def get_standings_page(tournament_id: str) -> Response:
    """The standings as a printable page (anyone): server-rendered, no external assets.
    ---
    get:
      summary: Standings page
      operationId: getStandingsPage
      tags: [pages]
      security: [{}, {bearer: []}]
      parameters:
        - in: path
          name: tournament_id
          required: true
          schema: {type: string, pattern: "^[0-9a-f]{32}$"}
      responses:
        "200":
          description: An HTML page with a print style sheet.
          content:
            text/html:
              schema: {type: string}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "404": {$ref: "#/components/responses/NotFound"}
    """
    head, rows = read_standings(tournament_id)
    signed = sign_stream_head(tournament_id, head.version)
    page = render_template(
        "standings.html", tournament=head, rows=standing_rows(rows), signed=signed
    )
    return Response(page, mimetype="text/html")
