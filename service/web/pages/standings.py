"""What the standings page (``standings.html``) shows besides the rows its route gives it:
the tournament's game, how far it has come ("after 2 of 3 rounds"), which columns say
something for this tournament, and which entries have no result to rank.

The page's route lives with the JSON API (``service/web/api/tournaments.py``): it passes
``standings_page(tournament, rows)`` to the template as ``page``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.tournament.standings import unranked
from service.application.tournaments import read_tournament
from service.web.pages import games
from service.web.pages.rules import rules_url


@dataclass(frozen=True, slots=True)
class StandingsPage:
    game_name: str
    rules_url: str
    variant: str
    progress: str  # "after 2 of 3 rounds · round 3 in play"
    rows: list[dict[str, Any]]  # the route's rows, each with ``unranked``
    show_byes: bool
    show_head_to_head: bool  # some entries are still level after Buchholz


def progress(played: int, planned: int | None, status: str) -> str:
    """How far the tournament has come, in rounds played of rounds planned."""
    rounds = "round" if (planned or played) == 1 else "rounds"
    text = f"after {played} of {planned} {rounds}" if planned else f"after {played} {rounds}"
    if status == "playing":
        text += f" · round {played + 1} in play"
    elif status == "finished":
        text += " · final"
    return text


def standings_page(tournament: Any, rows: Sequence[Mapping[str, Any]]) -> StandingsPage:
    """The page's facts for the projection row ``tournament`` and its standings rows."""
    config = read_tournament(tournament.id).state.config
    shown = [
        {**row, "unranked": unranked(row["withdrawn"], row["tables"], row["byes"])} for row in rows
    ]
    return StandingsPage(
        game_name=games.name(tournament.game),
        rules_url=rules_url(tournament.game),
        variant=config.variant,
        progress=progress(tournament.rounds_played, config.rounds, tournament.status),
        rows=shown,
        show_byes=any(row["byes"] for row in rows),
        show_head_to_head=any(row["tiebreaks"]["head_to_head"] is not None for row in rows),
    )
