"""The console's tournaments: a new tournament, its page, entries, rounds, seat slips and
its end (routes on the console's blueprint, ``service.web.pages.console_base``).

Each form is checked by the API's schema of the same request (``TournamentCreateSchema``,
``EntryCreateSchema``) and done by the same command (``service.application.tournaments``). The
tournament commands keep their own transactions, so a form's key is claimed before and
completed after (``formkeys.claimed``); a person's new link records its key in the very
transaction that issues it (``formkeys.once``). A round's slips carry each person's own
link for the whole tournament (``service.application.entries``): printed again, they
show the same links.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask import Response, request
from flask_babel import gettext

from domain.errors import RuleViolation
from domain.games import SPECS
from domain.tournament.pairing import PAIRINGS
from domain.tournament.standings import shown as shown_points
from service.application.entries import personal_links, reissue_entry_token
from service.application.tables import table_logs
from service.application.tournaments import (
    add_entry,
    create_tournament,
    finish_tournament,
    read_standings,
    read_tournament,
    return_entry,
    round_seating,
    seat_round,
    withdraw_entry,
)
from service.core.refusals import ApplicationError
from service.storage.db import get_database
from service.web.languages import speak_club_language
from service.web.pages import console_forms as forms
from service.web.pages import formkeys
from service.web.pages.console_base import (
    Refused,
    blueprint,
    game_or_none,
    go,
    loopback,
    new_form,
    note,
    qr_svg,
    refusal,
    registered_players,
    render,
    said_by_field,
    shown_again,
    target,
    validated,
)
from service.web.pages.console_players import player_named
from service.web.pages.scenes import bot_name
from service.web.pages.words import name_of
from service.web.problems import ApiError, status_of
from service.web.schemas.tournaments import EntryCreateSchema, TournamentCreateSchema

TOURNAMENT_SCHEMA = TournamentCreateSchema()
ENTRY_SCHEMA = EntryCreateSchema()


# --- a new tournament ------------------------------------------------------------------------


@blueprint.get("/tournaments/new")
def new_tournament() -> Response:
    return _tournament_form(game_or_none(), {}, {}, None)


def _tournament_form(
    game_id: str | None,
    values: Mapping[str, str],
    errors: Mapping[str, str],
    refused: Refused,
    status: int = 200,
) -> Response:
    spec = SPECS[game_id] if game_id else None
    return new_form(
        "new_tournament.html",
        game_id,
        values,
        errors,
        refused,
        status,
        sizes=forms.table_sizes(spec) if spec else [],
        pairings=PAIRINGS,
    )


@blueprint.post("/tournaments/new")
def post_tournament() -> Response:
    """Create a tournament: the form as ``POST /tournaments``'s body, its schema, its
    command; a second post of the form lands on the tournament the first created."""
    game_id = game_or_none()
    if game_id is None:
        return _tournament_form(None, {}, {}, ("unknown_game", gettext("choose a game")), 422)
    form = request.form
    body, errors = forms.tournament_body(SPECS[game_id], form)
    if errors:
        return _tournament_form(game_id, form, errors, None, 422)
    checked, errors, refused = validated(TOURNAMENT_SCHEMA, body)
    if checked is None:
        return _tournament_form(game_id, form, errors, refused, 422)

    def run() -> formkeys.Outcome:
        log = create_tournament(checked)
        return formkeys.Outcome(
            target("console.tournament", gettext("Tournament created."), tournament_id=log.id)
        )

    try:
        done = formkeys.claimed(run)
    except (RuleViolation, ApplicationError) as refused_by_rules:
        return _tournament_form(game_id, form, {}, refusal(refused_by_rules), 422)
    return go(done.redirect or "/console")


# --- a tournament ----------------------------------------------------------------------------


def round_tables(tournament_id: str, number: int) -> dict[str, Any]:
    """A round's tables (``service.application.tournaments.round_seating``, what ``GET
    /tournaments/{id}/rounds/{r}`` gives), each also with its seats' names, totals and
    places (``results``), the names still to act, and whether a person deals next (only
    then is there a physical deal to record: a bot deals at once)."""
    with get_database().reading() as connection:
        seating = round_seating(connection, tournament_id, number)
        state = read_tournament(tournament_id).state
        finished = state.rounds[number - 1].results
        house = dict(SPECS[state.config.game].house_seats.get(state.config.variant, ()))
        for t in seating["tables"]:
            names = {**house, **{s["seat"]: s["name"] or bot_name(s["bot"]) for s in t["seats"]}}
            bots = {s["seat"] for s in t["seats"] if s["bot"]} | set(house)
            t["to_act_names"] = [names.get(s) or name_of(s, ()) for s in t["to_act"]]
            t["person_deals"] = t["status"] == "waiting_for_deal" and any(
                s not in bots for s in t["to_act"]
            )
            t["results"] = _results(connection, t["id"], names, bots, finished.get(t["id"]))
    return seating


def _results(
    connection: Any, table_id: str, names: Mapping[int, str], bots: set[int], ended: Any
) -> list[dict[str, Any]]:
    """Each seat's name, total and place (``None`` while the match runs), best first once
    the table has finished (its ``TableFinished``)."""
    if ended is not None:
        totals, places = list(ended.totals), list(ended.ranking)
    else:
        log = table_logs().load(connection, table_id)
        totals = list(log.rules.view(log.state, None)["totals"])
        places = [None] * len(totals)
    rows = [{"name": names.get(seat) or name_of(seat, ()), "total": total,
             "place": places[seat], "bot": seat in bots}
            for seat, total in enumerate(totals)]  # fmt: skip
    if ended is not None:
        rows.sort(key=lambda r: (r["place"] is None, r["place"] or 0))
    return rows


def _tournament_page(tournament_id: str, status: int = 200, **extra: Any) -> Response:
    log = read_tournament(tournament_id)
    state = log.state
    shown = request.args.get("round", default=0, type=int) or len(state.rounds)
    shown = min(max(shown, 0), len(state.rounds))
    _, standings = read_standings(tournament_id)
    return render(
        "tournament.html",
        status,
        log=log,
        state=state,
        config=state.config,
        tournament_status=_tournament_status(state),
        round_shown=shown,
        seating=round_tables(tournament_id, shown) if shown else None,
        standings=standings,
        points=shown_points,
        players=registered_players(),
        note=note(),
        **extra,
    )


def _tournament_status(state: Any) -> str:
    """The tournament's status as a word of its own (the page's class and ``data-status``;
    ``status_words`` says it in the page's language)."""
    if state.finished:
        return "finished"
    return "in_deal" if state.in_progress else "open"


@blueprint.get("/tournaments/<id:tournament_id>")
def tournament(tournament_id: str) -> Response:
    """A tournament: entries, the round's tables and who is to act, rounds, standings."""
    return _tournament_page(tournament_id)


def _tournament_action(tournament_id: str, run: Callable[[], str]) -> Response:
    """Run a tournament command once per form key; a refusal is shown on the tournament
    page (409/422), and a second post lands where the first did."""

    def done() -> formkeys.Outcome:
        return formkeys.Outcome(target("console.tournament", run(), tournament_id=tournament_id))

    try:
        outcome = formkeys.claimed(done)
    except (RuleViolation, ApplicationError) as refused:
        status = status_of(refused) if isinstance(refused, ApplicationError) else 422
        return _tournament_page(tournament_id, status, refused=refusal(refused))
    return go(outcome.redirect or "/console")


@blueprint.post("/tournaments/<id:tournament_id>/entries")
def enter(tournament_id: str) -> Response:
    """Enter a guest by name, or a registered player by id (also once rounds have begun):
    ``POST /tournaments/{id}/entries``'s body and schema."""
    form = request.form
    body = {k: v for k in ("name", "player_id") if (v := form.get(k, "").strip())}
    if body.get("player_id") and (named := player_named(body["player_id"])) is not None:
        body["player_id"] = named  # a registered player typed by name
    checked, errors, refused = validated(ENTRY_SCHEMA, body)
    if checked is None:
        if errors:
            refused = ("validation_error", said_by_field(errors))
        return _tournament_page(tournament_id, 422, refused=refused)
    back = _withdrawn_as(tournament_id, checked)
    if back is not None:  # someone coming back: their withdrawal is undone, not repeated
        return _tournament_page(tournament_id, returning={"entry": back.entry, "name": back.name})

    def run() -> str:
        entry = add_entry(tournament_id, checked.get("name"), checked.get("player_id"))
        return gettext("%(name)s entered.", name=entry.name)

    return _tournament_action(tournament_id, run)


def _withdrawn_as(tournament_id: str, wanted: Mapping[str, Any]) -> Any:
    """The withdrawn entry a new entry would repeat (the same name, however spaced or
    cased, or the same registered player), if any: the console offers its undo instead."""
    name = " ".join(str(wanted.get("name") or "").split()).casefold()
    player = wanted.get("player_id")
    for e in read_tournament(tournament_id).state.entries.values():
        same = bool(name) and " ".join(e.name.split()).casefold() == name
        if e.withdrawn and (same or (player is not None and e.player_id == player)):
            return e
    return None


@blueprint.post("/tournaments/<id:tournament_id>/entries/<int:entry>/withdraw")
def withdraw(tournament_id: str, entry: int) -> Response:
    """Withdraw an entry, once the organiser has ticked that they play no more (an undo
    is offered beside it afterwards)."""
    if request.form.get("sure") != "yes":
        asked = gettext('tick "yes, … plays no more" to withdraw them')
        return _tournament_page(tournament_id, 422, refused=("validation_error", asked))

    def run() -> str:
        return gettext("%(name)s withdrawn.", name=withdraw_entry(tournament_id, entry).name)

    return _tournament_action(tournament_id, run)


@blueprint.post("/tournaments/<id:tournament_id>/entries/<int:entry>/return")
def take_back(tournament_id: str, entry: int) -> Response:
    """Undo a withdrawal: the entry is seated again from the next round."""

    def run() -> str:
        name = return_entry(tournament_id, entry).name
        return gettext("%(name)s is back: seated from the next round.", name=name)

    return _tournament_action(tournament_id, run)


def personal_link(tournament_id: str, token: str) -> str:
    """A person's own link for the whole tournament (``/tournaments/{id}/me``)."""
    return f"{request.host_url}tournaments/{tournament_id}/me?token={token}"


@blueprint.post("/tournaments/<id:tournament_id>/entries/<int:entry>/token")
def new_link(tournament_id: str, entry: int) -> Response:
    """A new personal link for one person (a lost phone or slip), once the organiser has
    ticked that the old one stops: shown on this answer only; nobody else's changes. A
    second post of the same form issues nothing."""
    if request.form.get("sure") != "yes":
        asked = gettext('tick "yes, stop the old link" to give a new link')
        return _tournament_page(tournament_id, 422, refused=("validation_error", asked))
    back = target("console.tournament", tournament_id=tournament_id)

    def work(connection: Any) -> tuple[str, formkeys.Outcome]:
        token = reissue_entry_token(tournament_id, entry, connection)
        return token, formkeys.Outcome(shown="person's new link", back=back)

    try:
        made = formkeys.once(work)
    except ApplicationError as refused:
        return _tournament_page(tournament_id, status_of(refused), refused=refusal(refused))
    if isinstance(made, formkeys.Outcome):
        return shown_again(made)
    link = personal_link(tournament_id, made)
    name = read_tournament(tournament_id).state.entries[entry].name
    reissued = {"entry": entry, "name": name, "link": link, "qr": qr_svg(link)}
    return _tournament_page(tournament_id, reissued=reissued, loopback=loopback())


@blueprint.post("/tournaments/<id:tournament_id>/rounds")
def open_round(tournament_id: str) -> Response:
    """Seat the next round (tokens are handed out by printing its slips)."""

    def run() -> str:
        seated = seat_round(tournament_id)
        return gettext("Round %(num)s seated.", num=seated.log.state.rounds[-1].number)

    return _tournament_action(tournament_id, run)


@blueprint.post("/tournaments/<id:tournament_id>/finish")
def finish(tournament_id: str) -> Response:
    """No more rounds or entries: asked to be sure (a tap cannot take it back)."""
    if request.form.get("sure") != "yes":
        asked = gettext('tick "yes, finish it" to finish the tournament')
        return _tournament_page(tournament_id, 422, refused=("validation_error", asked))

    def run() -> str:
        finish_tournament(tournament_id)
        return gettext("Tournament finished: seed and salt are public now.")

    return _tournament_action(tournament_id, run)


@blueprint.get("/tournaments/<id:tournament_id>/rounds/<int:number>/slips")
def slips(tournament_id: str, number: int) -> Response:
    """A round's seat slips: each person's table and seat, and their own link for the
    whole tournament with its QR code. Printed again, they show the same links: nobody is
    logged out (a person's new link is given under Entries, one at a time)."""
    state = read_tournament(tournament_id).state
    speak_club_language(state.config.language)  # printed for the club's room
    if not 1 <= number <= len(state.rounds):
        raise ApiError(
            404, "not_found", gettext("this tournament has no round %(num)s", num=number)
        )
    played = state.rounds[number - 1]
    seated = [(t, seat, entry) for t in played.tables for seat, entry in enumerate(t.seats)
              if entry is not None]  # fmt: skip
    links = personal_links(tournament_id, [entry for _, _, entry in seated])
    printed = []
    for t, seat, entry in seated:
        token = links[entry]
        link = personal_link(tournament_id, token) if token else None
        qr = qr_svg(link) if link else None
        printed.append({"name": state.entries[entry].name, "entry": entry, "table": t.number,
                        "seat": seat, "link": link, "qr": qr})  # fmt: skip
    return render("slips.html", tournament=state.config, tournament_id=tournament_id,
                  round=number, slips=printed, loopback=loopback())  # fmt: skip


@blueprint.post("/tournaments/<id:tournament_id>/rounds/<int:number>/slips")
def print_slips(tournament_id: str, number: int) -> Response:
    """The slips' form of earlier pages: the same slips, the same links."""
    return slips(tournament_id, number)


__all__ = ["round_tables"]
