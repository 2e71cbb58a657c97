"""The console's registered players: register one, and find them by name (routes on the
console's blueprint, ``service.web.pages.console_base``).

A player is known across tournaments and rated (``docs/api.md``, "Other routes":
``POST /players``, ``GET /players``): the form is checked by the API's schema of that
request (``PlayerCreateSchema``) and done by the same command
(``service.application.players.register_player``), once per form key.
"""

from __future__ import annotations

from typing import Any

from flask import Response, request
from flask_babel import gettext

from domain.errors import RuleViolation
from domain.names import MAX_PERSON
from service.application.listings import MAX_LIMIT, list_players
from service.application.players import register_player
from service.core.refusals import ApplicationError
from service.storage.db import get_database
from service.web.pages import formkeys
from service.web.pages.console_base import blueprint, go, note, refusal, render, target, validated
from service.web.schemas.tournaments import PlayerCreateSchema

PLAYER_SCHEMA = PlayerCreateSchema()


def _players_page(status: int = 200, **extra: Any) -> Response:
    wanted = (request.args.get("name") or "").strip()[:MAX_PERSON]
    with get_database().reading() as connection:
        found, more = list_players(connection, limit=MAX_LIMIT, named=wanted or None)
    return render(
        "players.html", status, players=found, more=more, wanted=wanted, note=note(), **extra
    )


@blueprint.get("/players")
def players() -> Response:
    """Registered players, newest first, or those whose name holds ``?name=``."""
    return _players_page()


@blueprint.post("/players")
def register() -> Response:
    """Register a player by name: ``POST /players``'s body, schema and command."""
    typed = request.form.get("name", "")
    checked, errors, refused = validated(PLAYER_SCHEMA, {"name": typed})
    if checked is None:
        return _players_page(422, errors=errors, refused=refused, typed=typed)

    def run() -> formkeys.Outcome:
        player = register_player(checked["name"])
        said = gettext(
            "%(name)s registered: enter them in a tournament by name.", name=player["name"]
        )
        return formkeys.Outcome(target("console.players", said))

    try:
        done = formkeys.claimed(run)
    except (RuleViolation, ApplicationError) as refused_by_rules:
        return _players_page(422, refused=refusal(refused_by_rules), typed=typed)
    return go(done.redirect or "/console/players")


def player_named(text: str) -> str | None:
    """The id of the registered player called ``text`` (however cased or spaced), so the
    console enters a registered player by name; ``None`` when nobody is."""
    wanted = " ".join(text.split()).casefold()
    with get_database().reading() as connection:
        found, _ = list_players(connection, limit=MAX_LIMIT, named=" ".join(text.split()))
    same = [p["id"] for p in found if p["name"].casefold() == wanted]
    return same[0] if len(same) == 1 else None


def seats_by_player_id(seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The new-table form's registered players, typed by name (or id), seated by id (the
    table then takes the player's name: ``check_seat_players``). A name nobody is
    registered under is left to the schema."""
    return [
        {**seat, "player_id": player_named(seat["player_id"]) or seat["player_id"]}
        if "player_id" in seat
        else seat
        for seat in seats
    ]
