"""The organiser's console (``/console``): the club evening in plain HTML forms.

Opened once with the organiser's link (``/console?token=…``), which becomes an HttpOnly
cookie (``service.pages.session``); every page then checks that cookie, and every form
posts its CSRF token and redirects (POST, then GET), so a phone's back button never
repeats an action. The console calls the same commands as the JSON API (never the API
over HTTP): ``service.commands``, ``service.tournaments``, ``service.listings``.

What is shown only once (a round's seat slips, a re-issued seat link) is the answer of
its POST itself, never stored and never at an address.
"""

from __future__ import annotations

import io
import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlencode, urlsplit

import segno
from flask import Blueprint, Response, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from markupsafe import Markup
from marshmallow import ValidationError

from domain.errors import RuleViolation
from domain.games import SPECS, game
from domain.table import ORGANISER
from domain.tournament.standings import shown as shown_points
from service.audit import export_lines, stored_rows
from service.commands import act, create_table, table_logs
from service.db import get_database
from service.errors import ApiError, status_of
from service.failures import ApplicationError
from service.listings import MAX_LIMIT, list_players, list_tables, list_tournaments
from service.pages import console_forms as forms
from service.pages import deal_sheet, games
from service.pages.answers import answer_errors_with_pages, html
from service.pages.listing import seating_of
from service.pages.scenes import seat_names
from service.pages.session import (
    CSRF_FIELD,
    check_csrf,
    cookie_token,
    csrf_token,
    exchange_for_organiser,
    require_organiser_page,
)
from service.schemas.tables import TableCreateSchema
from service.schemas.tournaments import TournamentCreateSchema
from service.seats import reissue_seat_token
from service.signing import keyring
from service.tablelog import TableLog
from service.tournaments import (
    add_entry,
    create_tournament,
    finish_tournament,
    read_standings,
    read_tournament,
    round_seating,
    seat_round,
    withdraw_entry,
)

blueprint = Blueprint("console", __name__, url_prefix="/console")

TABLE_SCHEMA = TableCreateSchema()
TOURNAMENT_SCHEMA = TournamentCreateSchema()
PAIRINGS = ("swiss", "round_robin", "random")
#: How many tables and tournaments the console's lists show a page.
PAGE = 25


def _organiser_token() -> str:
    token = cookie_token()
    if token is None:  # require_organiser_page ran first
        raise ApiError(401, "unauthorized", "open the organiser's link once in this browser")
    return token


@blueprint.before_request
def _organiser_only() -> ResponseReturnValue | None:
    """The organiser's link becomes a cookie; every page needs it, every POST its CSRF."""
    if request.method == "GET":
        exchanged = exchange_for_organiser()
        if exchanged is not None:
            return exchanged
    require_organiser_page()
    if request.method == "POST":
        check_csrf(_organiser_token())
    return None


def registered_players() -> list[dict[str, Any]]:
    """The latest registered players, offered where a form takes a player's id."""
    with get_database().reading() as connection:
        found, _ = list_players(connection, limit=MAX_LIMIT)
    return found


def _render(template: str, status: int = 200, **context: Any) -> Response:
    page = render_template(
        f"console/{template}",
        csrf=csrf_token(_organiser_token()),
        csrf_field=CSRF_FIELD,
        game_names={g: s.name for g, s in SPECS.items()},
        **context,
    )
    return html(page, status)


def _back(endpoint: str, note: str | None = None, **values: Any) -> Response:
    """After a POST: see the result at its own address (303), with a short note."""
    target = url_for(endpoint, **values)
    if note:
        target += "?" + urlencode({"note": note})
    return redirect(target, code=303)  # type: ignore[return-value]


def _refusal(error: Exception) -> tuple[str, str]:
    """(code, message) of a refusal the console shows beside its form."""
    if isinstance(error, RuleViolation):
        return error.code, error.message
    if isinstance(error, ApplicationError):
        return error.code, error.detail
    if isinstance(error, ApiError):
        return error.code, error.detail
    raise error


def qr_svg(link: str) -> Markup:
    """A QR code of ``link`` as inline SVG (drawn here: no image request, no third party)."""
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", scale=3, border=2, xmldecl=False,
                                     svgns=True, omitsize=False)  # fmt: skip
    return Markup(out.getvalue().decode("utf-8"))


def seat_link(table_id: str, token: str) -> str:
    return f"{request.host_url}tables/{table_id}/view?token={token}"


def loopback() -> bool:
    """Was the console opened at this computer's own address? Then a seat link names it too,
    and a player's phone, opening it, reaches itself instead of this server."""
    host = urlsplit(request.host_url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name
        return False


# --- home: the lists -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableLine:
    id: str
    game: str
    variant: str
    status: str
    deal: int
    names: list[str]
    to_act: list[str]
    tournament: str | None = None


def _table_line(log: TableLog, shown: Mapping[str, Any]) -> TableLine:
    """The table at a glance, from its public view ``shown``."""
    names = seat_names(log.opened)
    acting = [] if shown["status"] == "finished" else list(log.rules.to_act(log.state))
    return TableLine(
        log.id,
        log.opened.game,
        log.opened.variant,
        shown["status"],
        shown["deal"],
        names,
        [names[s] for s in acting if 0 <= s < len(names)],
    )


@blueprint.get("")
def index() -> Response:
    """The evening at a glance: tournaments and tables, newest first, with their links."""
    status = request.args.get("status") or None
    with get_database().reading() as connection:
        tournaments, more_tournaments = list_tournaments(
            connection, limit=PAGE, after=request.args.get("tournaments_after") or None
        )
        tables, more_tables = list_tables(
            connection,
            limit=PAGE,
            after=request.args.get("tables_after") or None,
            status=status,
            tournament=None,
        )
        # a tournament's table is named as the club calls it: "Spring cup · round 2 · table 3"
        seatings = {t["id"]: seating_of(connection, t["id"]) for t in tables}
    return _render(
        "index.html",
        tournaments=tournaments,
        tables=tables,
        seatings=seatings,
        more_tables=more_tables,
        more_tournaments=more_tournaments,
        shown_status=status,
        note=request.args.get("note"),
    )


# --- a new table -----------------------------------------------------------------------------


def _game_or_none() -> str | None:
    chosen = request.values.get("game")
    return chosen if chosen in SPECS else None


@blueprint.get("/tables/new")
def new_table() -> Response:
    """Step 1 chooses the game (a link each); step 2 is that game's form."""
    return _table_form(_game_or_none(), {}, {}, None)


T = TypeVar("T")
Refused = tuple[str, str] | None
#: A creation form shown again: (game, typed values, errors by field, refusal, status).
FormPage = Callable[[str | None, Mapping[str, str], Mapping[str, str], Refused, int], Response]


def _new_form(
    template: str,
    game_id: str | None,
    values: Mapping[str, str],
    errors: Mapping[str, str],
    refused: Refused,
    status: int,
    **extra: Any,
) -> Response:
    """A new table's or tournament's form: the game's options with their defaults, the
    default match lengths, and what was typed and refused."""
    spec = SPECS[game_id] if game_id else None
    if errors and refused is None:
        refused = _marked(errors)
    return _render(
        template,
        status,
        spec=spec,
        specs=SPECS,
        options=forms.option_fields(spec) if spec else [],
        defaults=forms.default_matches(spec) if spec else [],
        values=values,
        errors=errors,
        refused=refused,
        **extra,
    )


def _create(
    form_page: FormPage, game_id: str, errors: Mapping[str, str], create: Callable[[], T]
) -> T | Response:
    """What ``create`` made, or the form again with why not: fields the form could not
    read, the schema's refusals by field, or the rules' refusal."""
    form = request.form
    if errors:
        return form_page(game_id, form, errors, None, 422)
    try:
        return create()
    except ValidationError as invalid:
        found = _flat(invalid.messages)
        summary = "; ".join(f"{k}: {v}" for k, v in found.items())
        return form_page(game_id, form, found, ("validation_error", summary), 422)
    except (RuleViolation, ApplicationError) as refusal:
        return form_page(game_id, form, {}, _refusal(refusal), 422)


def _table_form(
    game_id: str | None,
    values: Mapping[str, str],
    errors: Mapping[str, str],
    refused: Refused,
    status: int = 200,
) -> Response:
    spec = SPECS[game_id] if game_id else None
    return _new_form(
        "new_table.html",
        game_id,
        values,
        errors,
        refused,
        status,
        seats=forms.max_seats(spec) if spec else 0,
        seat_kinds=forms.SEAT_KINDS,
        seat_kind_label=forms.seat_kind_label,
        players=registered_players() if spec else [],
    )


@blueprint.post("/tables/new")
def post_table() -> Response:
    game_id = _game_or_none()
    if game_id is None:
        return _table_form(None, {}, {}, ("unknown_game", "choose a game"), 422)
    spec = SPECS[game_id]
    form = request.form
    options, errors = forms.read_options(spec, form)
    seats, seat_errors = forms.read_seats(form, forms.max_seats(spec))
    errors.update(seat_errors)
    target = forms.whole(form, "target_score", errors)
    deals = forms.whole(form, "max_deals", errors)
    dealer = forms.whole(form, "first_dealer", errors)
    body: dict[str, Any] = {
        "game": game_id,
        "variant": form.get("variant") or spec.default_variant,
        "seats": seats,
        "rules": {**options, **({"first_dealer": dealer} if dealer is not None else {})},
    }
    if target is not None:
        body["target_score"] = target
    if deals is not None:
        body["max_deals"] = deals
    if form.get("seed", "").strip():
        body["seed"] = form["seed"].strip()
    created = _create(_table_form, game_id, errors, lambda: create_table(TABLE_SCHEMA.load(body)))
    if isinstance(created, Response):
        return created
    return _back("console.table", "Table opened.", table_id=created.id)


def _marked(errors: Mapping[str, str]) -> tuple[str, str]:
    """The refusal above a form whose fields are marked one by one."""
    fields = ", ".join(name.replace("opt-", "").replace("_", " ") for name in errors)
    return "validation_error", f"check what is marked below ({fields})"


def _flat(messages: Any, prefix: str = "") -> dict[str, str]:
    """marshmallow's nested messages as ``{"seats.1.name": "…"}``."""
    if isinstance(messages, Mapping):
        out: dict[str, str] = {}
        for key, value in messages.items():
            out.update(_flat(value, f"{prefix}{key}."))
        return out
    if isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        return {prefix.rstrip("."): " ".join(messages)}
    return {prefix.rstrip("."): str(messages)}


# --- a table ---------------------------------------------------------------------------------


def _load_table(table_id: str) -> TableLog:
    with get_database().reading() as connection:
        return table_logs().load(connection, table_id)


def _table_page(table_id: str, status: int = 200, **extra: Any) -> Response:
    with get_database().reading() as connection:
        log = table_logs().load(connection, table_id)
        seating = seating_of(connection, table_id)
    shown = log.rules.view(log.state, None)
    humans = [s for s, seat in enumerate(log.opened.seats) if not seat.get("bot")]
    return _render(
        "table.html",
        status,
        table=_table_line(log, shown),
        opened=log.opened,
        totals=shown["totals"],
        seats=[(s, seat) for s, seat in enumerate(log.opened.seats)],
        humans=humans,
        seating=seating,
        game_name=games.name(log.opened.game),
        note=request.args.get("note"),
        **extra,
    )


@blueprint.get("/tables/<id:table_id>")
def table(table_id: str) -> Response:
    """One table: status, who is to act, its links, a ruling, a seat's new link."""
    return _table_page(table_id)


@blueprint.post("/tables/<id:table_id>/adjust")
def adjust(table_id: str) -> Response:
    """A director's ruling: points to a seat, with the reason (shown in totals and audit)."""
    errors: dict[str, str] = {}
    seat = forms.whole(request.form, "seat", errors)
    points = forms.whole(request.form, "points", errors)
    reason = request.form.get("reason", "").strip()
    if not reason:
        errors["reason"] = "say why"
    if errors or seat is None or points is None:
        return _table_page(table_id, 422, adjust_errors=errors, adjust_values=request.form)
    body = {"type": "adjust", "seat": seat, "points": points, "reason": reason}
    try:
        act(table_id, body, ORGANISER, actor="organiser (console)")
    except (RuleViolation, ApplicationError) as refusal:
        return _table_page(table_id, 422, adjust_refused=_refusal(refusal),
                           adjust_values=request.form)  # fmt: skip
    names = seat_names(_load_table(table_id).opened)
    who = f"{names[seat]} (seat {seat})" if 0 <= seat < len(names) else f"seat {seat}"
    return _back("console.table", f"{points:+d} to {who} recorded.", table_id=table_id)


@blueprint.post("/tables/<id:table_id>/seats/<int:seat>/token")
def reissue(table_id: str, seat: int) -> Response:
    """A fresh link for one seat (a lost phone): the old one stops working; the new one is
    shown on this answer only."""
    try:
        with get_database().writing() as connection:
            token = reissue_seat_token(connection, table_id, seat)
    except (RuleViolation, ApplicationError) as refusal:
        return _table_page(table_id, 422, reissue_refused=_refusal(refusal))
    link = seat_link(table_id, token)
    return _table_page(table_id, reissued={"seat": seat, "link": link, "qr": qr_svg(link)},
                       loopback=loopback())  # fmt: skip


@blueprint.get("/tables/<id:table_id>/export")
def export(table_id: str) -> Response:
    """The table's log as ``GET /tables/{id}/export`` gives it to the organiser (that
    route reads the Bearer header, which a browser's link cannot send before the match
    ends): JSON Lines, the head signed."""
    with get_database().reading() as connection:
        rows, (version, head) = stored_rows(connection, table_id)
        opened = table_logs().load(connection, table_id).opened
    signed = keyring().signer.sign_head(table_id, version, head)
    try:
        text = "".join(export_lines(table_id, opened.game, opened.variant, rows, signed))
    except ValueError as error:
        raise ApiError(503, "unreadable_log", f"a stored row is not JSON: {error}") from None
    return Response(
        text,
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="table-{table_id}.jsonl"',
                 "Cache-Control": "no-store"},
    )  # fmt: skip


# --- recording a physical deal ---------------------------------------------------------------


def _deal_page(table_id: str, values: Mapping[str, str], refused: Any, status: int) -> Response:
    log = _load_table(table_id)
    names = seat_names(log.opened)
    waiting = log.rules.view(log.state, None)["status"] == "waiting_for_deal"
    face = games.face
    return _render(
        "deal.html",
        status,
        table_id=table_id,
        opened=log.opened,
        game_name=games.name(log.opened.game),
        waiting=waiting,
        deal_number=log.rules.view(log.state, None)["deal"] + 1,
        deck=games.sheet(log.opened.game).deck(log) if waiting else [],
        piles=games.sheet(log.opened.game).piles(log, names) if waiting else [],
        face=lambda card: face(log.opened.game, _face_card(log.opened.game, card)),
        values=values,
        refused=refused,
    )


def _face_card(game_id: str, card: str) -> Any:
    return int(card) if game_id == "bottle-imp" else card


@blueprint.get("/tables/<id:table_id>/deal")
def deal_form(table_id: str) -> Response:
    """Tap a physical deal into hands: pick a seat, tap its cards, confirm."""
    return _deal_page(table_id, {}, None, 200)


@blueprint.post("/tables/<id:table_id>/deal")
def record_deal(table_id: str) -> Response:
    log = _load_table(table_id)
    chosen = games.sheet(log.opened.game).piles(log, seat_names(log.opened))
    try:
        act(table_id, deal_sheet.body(log, chosen, request.form), ORGANISER,
            actor="organiser (console)")  # fmt: skip
    except (RuleViolation, ApplicationError) as refusal:
        return _deal_page(table_id, request.form, _refusal(refusal), 422)
    return _back("console.table", "Deal recorded.", table_id=table_id)


# --- a new tournament ------------------------------------------------------------------------


@blueprint.get("/tournaments/new")
def new_tournament() -> Response:
    return _tournament_form(_game_or_none(), {}, {}, None)


def _tournament_form(
    game_id: str | None,
    values: Mapping[str, str],
    errors: Mapping[str, str],
    refused: Refused,
    status: int = 200,
) -> Response:
    spec = SPECS[game_id] if game_id else None
    return _new_form(
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
    game_id = _game_or_none()
    if game_id is None:
        return _tournament_form(None, {}, {}, ("unknown_game", "choose a game"), 422)
    spec = SPECS[game_id]
    form = request.form
    options, errors = forms.read_options(spec, form)
    body: dict[str, Any] = {
        "name": form.get("name", "").strip(),
        "game": game_id,
        "variant": form.get("variant") or spec.default_variant,
        "rules": options,
        "table_size": forms.whole(form, "table_size", errors),
        "pairing": form.get("pairing") or "swiss",
        "fill_with_bots": "random" if form.get("fill_with_bots") else None,
        "rounds": forms.whole(form, "rounds", errors),
    }
    for name in ("target_score", "max_deals"):
        value = forms.whole(form, name, errors)
        if value is not None:
            body[name] = value
    if form.get("seed", "").strip():
        body["seed"] = form["seed"].strip()
    log = _create(
        _tournament_form, game_id, errors, lambda: create_tournament(TOURNAMENT_SCHEMA.load(body))
    )
    if isinstance(log, Response):
        return log
    return _back("console.tournament", "Tournament created.", tournament_id=log.id)


# --- a tournament ----------------------------------------------------------------------------


def round_tables(tournament_id: str, number: int) -> dict[str, Any]:
    """A round's tables, each with its status and the names still to act
    (``service.tournaments.round_seating``, what ``GET /tournaments/{id}/rounds/{r}`` gives)."""
    with get_database().reading() as connection:
        seating = round_seating(connection, tournament_id, number)
        for t in seating["tables"]:
            names = {s["seat"]: s["name"] or f"{s['bot']} bot" for s in t["seats"]}
            t["to_act_names"] = [names.get(s, f"seat {s}") for s in t["to_act"]]
    return seating


def _tournament_page(tournament_id: str, status: int = 200, **extra: Any) -> Response:
    log = read_tournament(tournament_id)
    state = log.state
    shown = request.args.get("round", default=0, type=int) or len(state.rounds)
    shown = min(max(shown, 0), len(state.rounds))
    _, standings = read_standings(tournament_id)
    return _render(
        "tournament.html",
        status,
        log=log,
        state=state,
        config=state.config,
        status_word="finished" if state.finished else "playing" if state.in_progress else "open",
        round_shown=shown,
        seating=round_tables(tournament_id, shown) if shown else None,
        standings=standings,
        points=shown_points,
        players=registered_players(),
        note=request.args.get("note"),
        **extra,
    )


@blueprint.get("/tournaments/<id:tournament_id>")
def tournament(tournament_id: str) -> Response:
    """A tournament: entries, the round's tables and who is to act, rounds, standings."""
    return _tournament_page(tournament_id)


def _tournament_action(tournament_id: str, run: Callable[[], str]) -> Response:
    """Run a tournament command; a refusal is shown on the tournament page (409/422)."""
    try:
        note = run()
    except (RuleViolation, ApplicationError) as refusal:
        code, message = _refusal(refusal)
        status = status_of(refusal) if isinstance(refusal, ApplicationError) else 422
        return _tournament_page(tournament_id, status, refused=(code, message))
    return _back("console.tournament", note, tournament_id=tournament_id)


@blueprint.post("/tournaments/<id:tournament_id>/entries")
def enter(tournament_id: str) -> Response:
    """Enter a guest by name, or a registered player by id (also once rounds have begun)."""
    name = request.form.get("name", "").strip()
    player_id = request.form.get("player_id", "").strip()
    if bool(name) == bool(player_id):
        return _tournament_page(tournament_id, 422, refused=(
            "validation_error", "give a name or a registered player's id (not both)"))  # fmt: skip

    def run() -> str:
        entry = add_entry(tournament_id, name or None, player_id or None)
        return f"{entry.name} entered."

    return _tournament_action(tournament_id, run)


@blueprint.post("/tournaments/<id:tournament_id>/entries/<int:entry>/withdraw")
def withdraw(tournament_id: str, entry: int) -> Response:
    def run() -> str:
        return f"{withdraw_entry(tournament_id, entry).name} withdrawn."

    return _tournament_action(tournament_id, run)


@blueprint.post("/tournaments/<id:tournament_id>/rounds")
def open_round(tournament_id: str) -> Response:
    """Seat the next round (tokens are handed out by printing its slips)."""

    def run() -> str:
        seated = seat_round(tournament_id)
        return f"Round {seated.log.state.rounds[-1].number} seated."

    return _tournament_action(tournament_id, run)


@blueprint.post("/tournaments/<id:tournament_id>/finish")
def finish(tournament_id: str) -> Response:
    """No more rounds or entries: asked to be sure (a tap cannot take it back)."""
    if request.form.get("sure") != "yes":
        return _tournament_page(tournament_id, 422, refused=(
            "validation_error", "tick \"yes, finish it\" to finish the tournament"))  # fmt: skip

    def run() -> str:
        finish_tournament(tournament_id)
        return "Tournament finished: seed and salt are public now."

    return _tournament_action(tournament_id, run)


@blueprint.post("/tournaments/<id:tournament_id>/rounds/<int:number>/slips")
def slips(tournament_id: str, number: int) -> Response:
    """Print a round's seat slips: every human seat gets a fresh token (the old links stop
    working), shown on this answer only, each with its QR code."""
    log = read_tournament(tournament_id)
    state = log.state
    if not 1 <= number <= len(state.rounds):
        raise ApiError(404, "not_found", f"this tournament has no round {number}")
    played = state.rounds[number - 1]
    printed = []
    with get_database().writing() as connection:
        for t in played.tables:
            for seat, entry in enumerate(t.seats):
                if entry is None:
                    continue
                token = reissue_seat_token(connection, t.table, seat)
                link = seat_link(t.table, token)
                printed.append(
                    {
                        "name": state.entries[entry].name,
                        "table": t.number,
                        "seat": seat,
                        "link": link,
                        "qr": qr_svg(link),
                    }
                )
    return _render("slips.html", tournament=state.config, tournament_id=tournament_id,
                   round=number, slips=printed, loopback=loopback())  # fmt: skip


answer_errors_with_pages(blueprint, rules=True)


__all__ = ["blueprint", "game", "qr_svg", "round_tables"]
