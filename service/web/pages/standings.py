"""What the standings page (``standings.html``) shows besides the rows its route gives it:
the tournament's game, how far it has come ("after 2 of 3 rounds"), which columns say
something for this tournament, which entries have no result to rank, whether bots sat
in, and the crosstable: who met whom, round by round, with each table's result.

The page's route lives with the JSON API (``service/web/api/tournaments.py``): it passes
``standings_page(tournament, rows)`` to the template as ``page``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flask_babel import gettext, ngettext

from domain.tournament.standings import Result, shown, table_units, unranked
from domain.tournament.state import Tournament
from service.application.tournaments import read_tournament
from service.web.pages import games
from service.web.pages.rules import rules_url
from service.web.pages.words import ordinal


@dataclass(frozen=True, slots=True)
class Meeting:
    """One entry's round in the crosstable: where it sat and how it finished there
    (``result`` empty while the table plays), or a bye, or nothing (``table`` 0)."""

    table: int
    result: str
    met: str  # "with Bo, Cy and a bot"
    bye: bool = False


@dataclass(frozen=True, slots=True)
class CrossLine:
    entry: int
    name: str
    rounds: list[Meeting]


@dataclass(frozen=True, slots=True)
class StandingsPage:
    game_name: str
    rules_url: str
    variant: str
    progress: str  # "after 2 of 3 rounds · round 3 in play"
    rows: list[dict[str, Any]]  # the route's rows, each with ``unranked``
    show_byes: bool
    show_head_to_head: bool  # some entries are still level after Buchholz
    bots: bool  # bots sat in some round: the page says how they score
    rounds: list[int]  # the crosstable's columns
    crosstable: list[CrossLine]


def progress(played: int, planned: int | None, status: str) -> str:
    """How far the tournament has come, in rounds played of rounds planned."""
    if planned:
        text = ngettext(
            "after %(played)s of %(num)s round", "after %(played)s of %(num)s rounds", planned,
            played=played,
        )  # fmt: skip
    else:
        text = ngettext("after %(num)s round", "after %(num)s rounds", played)
    if status == "playing":
        text += gettext(" · round %(num)s in play", num=played + 1)
    elif status == "finished":
        text += gettext(" · final")
    return text


def standings_page(tournament: Any, rows: Sequence[Mapping[str, Any]]) -> StandingsPage:
    """The page's facts for the projection row ``tournament`` and its standings rows."""
    state = read_tournament(tournament.id).state
    config = state.config
    listed = [
        {**row, "unranked": unranked(row["withdrawn"], row["tables"], row["byes"])} for row in rows
    ]
    return StandingsPage(
        game_name=games.name(tournament.game),
        rules_url=rules_url(tournament.game),
        variant=config.variant,
        progress=progress(tournament.rounds_played, config.rounds, tournament.status),
        rows=listed,
        show_byes=any(row["byes"] for row in rows),
        show_head_to_head=any(row["tiebreaks"]["head_to_head"] is not None for row in rows),
        bots=any(None in t.seats for r in state.rounds for t in r.tables),
        rounds=[r.number for r in state.rounds],
        crosstable=[
            CrossLine(row["entry"], row["player"], meetings(state, row["entry"])) for row in rows
        ],
    )


def meetings(state: Tournament, entry: int) -> list[Meeting]:
    """Round by round, the table ``entry`` sat at, whom it met there and its result: its
    place at the table and the match points it took (``docs/rules/common.md``,
    "Tournaments": bots take none and push nobody down)."""
    names = {e.entry: e.name for e in state.entries.values()}
    out = []
    for played in state.rounds:
        seated = next((t for t in played.tables if entry in t.seats), None)
        if seated is None:
            bye = entry in played.byes
            out.append(Meeting(0, gettext("bye") if bye else "", "", bye))
            continue
        others = [names[e] for e in seated.seats if e is not None and e != entry]
        bots = sum(1 for e in seated.seats if e is None)
        if bots:
            others.append(ngettext("a bot", "%(num)s bots", bots))
        if len(others) > 1:
            listed = gettext("%(some)s and %(last)s", some=", ".join(others[:-1]), last=others[-1])
        else:
            listed = "".join(others)
        met = gettext("with %(names)s", names=listed) if listed else ""
        ended = played.results.get(seated.table)
        result = ""
        if ended is not None:
            place = ended.ranking[seated.seats.index(entry)]
            result_of = Result(seated.seats, ended.totals, ended.ranking)
            earned = table_units(result_of, state.config.match_points).get(entry, 0)
            points = shown(earned)
            whole = points if isinstance(points, int) else 2  # a half point is said as many
            said = ngettext("%(points)s point", "%(points)s points", whole, points=points)
            result = f"{ordinal(place)}, {said}" if place else said
        out.append(Meeting(seated.number, result or gettext("playing"), met))
    return out
