"""The organiser's console (``/console``): the club evening in plain HTML forms.

Opened once with the organiser's link (``/console?token=…``), which becomes a session
(``service.web.pages.session``) until the organiser logs out; every page checks it, every
form posts its CSRF token and a one-time form key, and answers with a redirect
(``service.web.pages.console_base``). The console calls the same schemas and commands as the
JSON API (never the API over HTTP): ``service.web.schemas``, ``service.application.tables``,
``service.application.tournaments``, ``service.application.listings``. This module has the
home page, logging out and the tables; ``service.web.pages.console_seats`` a seat handed to
a bot and back; ``service.web.pages.console_tournaments`` the tournaments. What a tap cannot
take back (a seat's new link, a seat handed to a bot) is asked first: a box the server checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import Response, request
from flask_babel import gettext

from domain.bots import BOT_NAMES
from domain.errors import RuleViolation
from domain.games import SPECS
from domain.table import ORGANISER
from service.application.listings import list_tables, list_tournaments
from service.application.records import export_table
from service.application.seats import reissue_seat_token
from service.application.tables import CreatedTable, act, create_table, table_logs
from service.core.refusals import ApplicationError
from service.storage.db import get_database
from service.storage.tablelog import TableLog, takeovers
from service.web.pages import console_forms as forms
from service.web.pages import console_players, console_tournaments, deal_sheet, formkeys, games
from service.web.pages.console_base import (
    Refused,
    blueprint,
    checked_query,
    game_or_none,
    go,
    loopback,
    new_form,
    note,
    qr_svg,
    refusal,
    registered_players,
    render,
    seat_link,
    shown_again,
    target,
    validated,
)
from service.web.pages.listing import seating_of
from service.web.pages.refusals import worded
from service.web.pages.scenes import seat_names
from service.web.pages.session import log_out
from service.web.pages.words import name_of
from service.web.schemas.actions import ActionSchema
from service.web.schemas.lists import ListQuerySchema, TableListQuerySchema
from service.web.schemas.tables import TableCreateSchema

TABLE_SCHEMA = TableCreateSchema()
ACTION_SCHEMA = ActionSchema()
LIST_QUERY = TableListQuerySchema()
TOURNAMENT_QUERY = ListQuerySchema()
#: How many tables and tournaments the console's lists show a page.
PAGE = 25


# --- home: the lists, and logging out --------------------------------------------------------


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
    asked = {"status": request.args.get("status"), "after": request.args.get("tables_after")}
    checked = checked_query(LIST_QUERY, {k: v for k, v in asked.items() if v})
    older = request.args.get("tournaments_after")
    tournaments_after = checked_query(TOURNAMENT_QUERY, {"after": older} if older else {})
    status = checked.get("status")
    with get_database().reading() as connection:
        tournaments, more_tournaments = list_tournaments(
            connection, limit=PAGE, after=tournaments_after.get("after")
        )
        tables, more_tables = list_tables(
            connection, limit=PAGE, after=checked.get("after"), status=status, tournament=None
        )
        # a tournament's table is named as the club calls it: "Spring cup · round 2 · table 3"
        seatings = {t["id"]: seating_of(connection, t["id"]) for t in tables}
    return render(
        "index.html",
        tournaments=tournaments,
        tables=tables,
        seatings=seatings,
        more_tables=more_tables,
        more_tournaments=more_tournaments,
        shown_status=status,
        note=note(),
    )


@blueprint.post("/logout")
def logout() -> Response:
    """End this browser's session, on the server: its cookie opens nothing any more."""
    return log_out(go("/"))


# --- a new table -----------------------------------------------------------------------------


@blueprint.get("/tables/new")
def new_table() -> Response:
    """Step 1 chooses the game (a link each); step 2 is that game's form."""
    return _table_form(game_or_none(), {}, {}, None)


def _table_form(
    game_id: str | None,
    values: Mapping[str, str],
    errors: Mapping[str, str],
    refused: Refused,
    status: int = 200,
) -> Response:
    spec = SPECS[game_id] if game_id else None
    return new_form(
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
    """Open a table: the form read into ``POST /tables``'s body, checked by its schema, and
    opened in the transaction that records the form's key (a second post: the same table)."""
    game_id = game_or_none()
    if game_id is None:
        return _table_form(None, {}, {}, ("unknown_game", gettext("choose a game")), 422)
    spec = SPECS[game_id]
    form = request.form
    body, errors = forms.table_body(spec, form)
    body["seats"] = console_players.seats_by_player_id(body["seats"])
    if errors:
        return _table_form(game_id, form, errors, None, 422)
    spec_body, errors, refused = validated(TABLE_SCHEMA, body)
    if spec_body is None:
        return _table_form(game_id, form, errors, refused, 422)

    def work(connection: Any) -> tuple[CreatedTable, formkeys.Outcome]:
        created = create_table(spec_body, connection)
        opened = target("console.table", gettext("Table opened."), table_id=created.id)
        return created, formkeys.Outcome(opened)

    try:
        made = formkeys.once(work)
    except (RuleViolation, ApplicationError) as refused_by_rules:
        return _table_form(game_id, form, {}, refusal(refused_by_rules), 422)
    if isinstance(made, formkeys.Outcome):
        return go(made.redirect or "/console")
    return go(target("console.table", gettext("Table opened."), table_id=made.id))


# --- a table ---------------------------------------------------------------------------------


def _load_table(table_id: str) -> TableLog:
    with get_database().reading() as connection:
        return table_logs().load(connection, table_id)


def table_page(table_id: str, status: int = 200, **extra: Any) -> Response:
    with get_database().reading() as connection:
        log = table_logs().load(connection, table_id)
        seating = seating_of(connection, table_id)
    shown = log.rules.view(log.state, None)
    humans = [s for s, seat in enumerate(log.opened.seats) if not seat.get("bot")]
    return render(
        "table.html",
        status,
        person_deals=person_deals(log, shown),
        table=_table_line(log, shown),
        opened=log.opened,
        totals=shown["totals"],
        seats=[(s, seat) for s, seat in enumerate(log.opened.seats)],
        humans=humans,
        taken=takeovers(log),
        bots=BOT_NAMES,
        seating=seating,
        game_name=games.name(log.opened.game),
        note=note(),
        **extra,
    )


@blueprint.get("/tables/<id:table_id>")
def table(table_id: str) -> Response:
    """One table: status, who is to act, its links, a ruling, a seat's new link, a seat
    handed to a bot and back."""
    return table_page(table_id)


@blueprint.post("/tables/<id:table_id>/adjust")
def adjust(table_id: str) -> Response:
    """A director's ruling: points to a seat, with the reason (shown in totals and audit).
    The body is ``POST /tables/{id}/actions``'s, checked by its schema; the form's key is
    the action's Idempotency-Key, so a second post records nothing and lands where the
    first did."""
    form = request.form
    errors: dict[str, str] = {}
    seat = forms.whole(form, "seat", errors)
    points = forms.whole(form, "points", errors)
    reason = form.get("reason", "").strip()
    if not reason:
        errors["reason"] = gettext("say why")
    if seat is None and "seat" not in errors:
        errors["seat"] = gettext("choose a seat")
    if points is None and "points" not in errors:
        errors["points"] = gettext("how many points (e.g. -10)")
    body, found, _ = (None, {}, None) if errors else validated(ACTION_SCHEMA, {
        "type": "adjust", "seat": seat, "points": points, "reason": reason})  # fmt: skip
    errors.update(found)
    if errors or body is None:
        return table_page(table_id, 422, adjust_errors=errors, adjust_values=form)
    key = formkeys.idempotency_key(formkeys.posted())
    try:
        act(table_id, body, ORGANISER, key=key, actor="organiser (console)")
    except (RuleViolation, ApplicationError) as refused:
        return table_page(table_id, 422, adjust_refused=refusal(refused), adjust_values=form)
    who = name_of(body["seat"], seat_names(_load_table(table_id).opened))
    points = format(body["points"], "+d")
    said = gettext("%(points)s to %(name)s recorded.", points=points, name=who)
    return go(target("console.table", said, table_id=table_id))


@blueprint.post("/tables/<id:table_id>/seats/<int:seat>/token")
def reissue(table_id: str, seat: int) -> Response:
    """A fresh link for one seat (a lost phone), once the organiser has ticked that the old
    one stops: shown on this answer only. A second post of the same form issues nothing."""
    if request.form.get("sure") != "yes":
        asked = gettext('tick "yes, stop the old link" to give a new link')
        return table_page(table_id, 422, reissue_refused=("validation_error", asked))
    back = target("console.table", table_id=table_id)

    def work(connection: Any) -> tuple[str, formkeys.Outcome]:
        token = reissue_seat_token(connection, table_id, seat)
        return token, formkeys.Outcome(shown="seat's new link", back=back)

    try:
        made = formkeys.once(work)
    except (RuleViolation, ApplicationError) as refused:
        return table_page(table_id, 422, reissue_refused=refusal(refused))
    if isinstance(made, formkeys.Outcome):
        return shown_again(made)
    link = seat_link(table_id, made)
    return table_page(table_id, reissued={"seat": seat, "link": link, "qr": qr_svg(link)},
                       loopback=loopback())  # fmt: skip


@blueprint.get("/tables/<id:table_id>/export")
def export(table_id: str) -> Response:
    """The table's log as ``GET /tables/{id}/export`` gives it to the organiser (that
    route reads the Bearer header, which a browser's link cannot send before the match
    ends): JSON Lines, as stored (``service.application.records.export_table``)."""
    text = export_table(table_id, ORGANISER).text
    return Response(
        text,
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="table-{table_id}.jsonl"',
                 "Cache-Control": "no-store"},
    )  # fmt: skip


# --- recording a physical deal ---------------------------------------------------------------


def person_deals(log: TableLog, shown: Mapping[str, Any]) -> bool:
    """Whether the table waits for a person's deal: only then is there a physical deal to
    record (a bot deals a shuffled deck at once)."""
    if shown["status"] != "waiting_for_deal":
        return False
    seats = log.opened.seats
    return any(s < len(seats) and not seats[s].get("bot") for s in shown["to_act"])


def _deal_page(table_id: str, values: Mapping[str, str], refused: Any, status: int) -> Response:
    log = _load_table(table_id)
    names = seat_names(log.opened)
    shown = log.rules.view(log.state, None)
    waiting = shown["status"] == "waiting_for_deal"
    game = log.opened.game
    sheet = games.sheet(game)
    return render(
        "deal.html",
        status,
        table_id=table_id,
        opened=log.opened,
        game_name=games.name(log.opened.game),
        waiting=waiting,
        bot_deals=waiting and not person_deals(log, shown),
        deal_number=shown["deal"] + 1,
        deck=sheet.deck(log) if waiting else [],
        piles=sheet.piles(log, names) if waiting else [],
        face=lambda card: games.face(game, sheet.card(card)),
        values=values,
        refused=refused,
    )


@blueprint.get("/tables/<id:table_id>/deal")
def deal_form(table_id: str) -> Response:
    """Tap a physical deal into hands: pick a seat, tap its cards, confirm."""
    return _deal_page(table_id, {}, None, 200)


@blueprint.post("/tables/<id:table_id>/deal")
def record_deal(table_id: str) -> Response:
    """The piles read into a ``deal`` action, checked by the actions' schema and the rules;
    the form's key is the action's Idempotency-Key (a second post deals nothing)."""
    log = _load_table(table_id)
    sheet = games.sheet(log.opened.game)
    chosen = sheet.piles(log, seat_names(log.opened))
    body, _, refused = validated(ACTION_SCHEMA, deal_sheet.body(sheet, chosen, request.form))
    if body is None:
        return _deal_page(table_id, request.form, refused, 422)
    key = formkeys.idempotency_key(formkeys.posted())
    try:
        act(table_id, body, ORGANISER, key=key, actor="organiser (console)")
    except (RuleViolation, ApplicationError) as refused_by_rules:
        said = refused_by_rules
        if isinstance(said, RuleViolation):
            names = seat_names(log.opened)
            shown = (said.code, worded(said, names))
        else:
            shown = refusal(said)
        return _deal_page(table_id, request.form, shown, 422)
    return go(target("console.table", gettext("Deal recorded."), table_id=table_id))


#: ``console_tournaments`` and ``console_players`` register their routes on the same blueprint.
__all__ = ["blueprint", "console_players", "console_tournaments", "qr_svg"]
