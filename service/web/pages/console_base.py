"""What every page of the organiser's console shares: the blueprint and its lock, how a
page is drawn, how a form's post answers, and how a refusal is shown.

The lock: every console page needs the organiser's live session (``service.web.pages.session``:
the console link's token is exchanged for it once), and every post its CSRF token and
its one-time form key (``service.web.pages.formkeys``). A post answers with a redirect
(POST, then GET: a phone's back button never repeats an action) to an address of
bounded length, whatever was typed; what must be shown only once (a round's seat slips,
a seat's new link) is the answer of its post itself, never stored and never at an
address.

One validation: a form's text is read into the JSON body the API takes (numbers from
ASCII digits, the rest as typed) and checked by the API's own schemas and commands; each
refusal is a page with a 4xx status, the form again with what was typed.
"""

from __future__ import annotations

import io
import ipaddress
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

import segno
from flask import Blueprint, Response, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext, lazy_gettext, pgettext
from markupsafe import Markup
from marshmallow import ValidationError

from domain.errors import RuleViolation
from domain.games import SPECS
from domain.names import MAX_PERSON, MAX_TOURNAMENT
from domain.rulings import MAX_REASON
from service.application.listings import MAX_LIMIT, list_players
from service.core.refusals import ApplicationError
from service.storage.db import get_database
from service.web.pages import console_forms as forms
from service.web.pages import formkeys, games, words
from service.web.pages.answers import answer_errors_with_pages, error_page, html
from service.web.pages.refusals import said_by_code, worded
from service.web.pages.session import (
    CSRF_FIELD,
    check_csrf,
    csrf_token,
    exchange_for_organiser,
    require_organiser_page,
)
from service.web.problems import ApiError

blueprint = Blueprint("console", __name__, url_prefix="/console")

#: The longest note a redirect carries to the page it lands on (``?note=``).
MAX_NOTE = 300


@blueprint.before_request
def _organiser_only() -> ResponseReturnValue | None:
    """The organiser's link becomes a session; every page needs it, every POST its CSRF
    token (logging out included: no other site may end the organiser's session) and,
    but for logging out, its one-time form key."""
    if request.method == "GET":
        exchanged = exchange_for_organiser()
        if exchanged is not None:
            return exchanged
    session_id = require_organiser_page()
    if request.method == "POST":
        check_csrf(session_id)
        if request.endpoint != "console.logout":
            formkeys.posted()  # every form is sent once: refused at once without its key
    return None


Refused = tuple[str, str] | None


def game_or_none() -> str | None:
    """The game a new table's or tournament's form is for (``?game=``), if we know it."""
    chosen = request.values.get("game")
    return chosen if chosen in SPECS else None


def checked_query(schema: Any, query: Mapping[str, Any]) -> dict[str, Any]:
    """A page's query, checked by the API's schema of the same list (422 if refused)."""
    try:
        checked: dict[str, Any] = schema.load(query)
    except ValidationError as invalid:
        found = said_by_field(flat(invalid.messages))
        raise ApiError(422, "validation_error", found) from None
    return checked


def new_form(
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
        refused = marked(errors)
    return render(
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


def validated(schema: Any, body: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict, Refused]:
    """``body`` loaded by the API's ``schema``: (data, {}, None), or (None, errors by field,
    the refusal) with the schema's messages, or a name rule's refusal (``invalid_name``)."""
    try:
        return schema.load(body), {}, None
    except ValidationError as invalid:
        found = {k: in_words(v) for k, v in flat(invalid.messages).items()}
        summary = said_by_field(found)
        return None, found, ("validation_error", summary)
    except RuleViolation as broken:
        return None, {}, refusal(broken)


def registered_players() -> list[dict[str, Any]]:
    """The latest registered players, offered where a form takes a player's id."""
    with get_database().reading() as connection:
        found, _ = list_players(connection, limit=MAX_LIMIT)
    return found


def render(template: str, status: int = 200, **context: Any) -> Response:
    """A console page; each form on it gets its own one-time key (``form_key()``)."""
    page = render_template(
        f"console/{template}",
        csrf=csrf_token(require_organiser_page()),
        csrf_field=CSRF_FIELD,
        form_key_field=formkeys.FIELD,
        form_key=formkeys.new_key,
        game_names=games.names(),
        max_person=MAX_PERSON,
        max_tournament=MAX_TOURNAMENT,
        max_reason=MAX_REASON,
        status_words=words.status_words,
        ordinal=words.ordinal,
        bot_word=words.bot_word,
        **context,
    )
    return html(page, status)


def target(endpoint: str, note: str | None = None, **values: Any) -> str:
    """The address a post sends its browser to: ``endpoint``, with a short note."""
    address = url_for(endpoint, **values)
    if note:
        address += "?" + urlencode({"note": note[:MAX_NOTE]})
    return address


def go(address: str) -> Response:
    """After a POST: see the result at its own address (303)."""
    return redirect(address, code=303)  # type: ignore[return-value]


def note() -> str | None:
    """The note a redirect brought (bounded: it is only ever our own words)."""
    return (request.args.get("note") or "")[:MAX_NOTE] or None


def refusal(error: Exception) -> tuple[str, str]:
    """(code, message) of a refusal the console shows beside its form."""
    if isinstance(error, RuleViolation):
        return error.code, worded(error)
    if isinstance(error, ApplicationError):
        return error.code, said_by_code(error.code, error.detail)
    if isinstance(error, ApiError):
        return error.code, error.detail
    raise error


#: What a one-time form showed (``formkeys.Outcome.shown``, stored in English), as said now.
SHOWN_WORDS = {
    "seat's new link": lazy_gettext("seat's new link"),
    "person's new link": lazy_gettext("person's new link"),
    "round's seat slips": lazy_gettext("round's seat slips"),
}


def shown_again(outcome: formkeys.Outcome) -> Response:
    """A repeated post of a form that showed a one-time secret: it is not issued again;
    a page says so and where to issue a new one (409 ``form_already_sent``)."""
    return error_page(
        409,
        "form_already_sent",
        gettext(
            "This form was sent already (a second tap, or a reload), and its %(shown)s was "
            "shown then: nothing new was issued. To show it again, go back and issue it anew: "
            "what was shown before then stops working.",
            shown=str(SHOWN_WORDS.get(outcome.shown or "", outcome.shown)),
        ),
        back=outcome.back,
    )


def flat(messages: Any, prefix: str = "") -> dict[str, str]:
    """marshmallow's nested messages as ``{"seats.1.name": "…"}``."""
    if isinstance(messages, Mapping):
        out: dict[str, str] = {}
        for key, value in messages.items():
            out.update(flat(value, f"{prefix}{key}."))
        return out
    if isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        return {prefix.rstrip("."): " ".join(messages)}
    return {prefix.rstrip("."): str(messages)}


def marked(errors: Mapping[str, str]) -> tuple[str, str]:
    """The refusal above a form whose fields are marked one by one."""
    fields = ", ".join(field_words(name.replace("opt-", "")) for name in errors)
    return "validation_error", gettext("check what is marked below (%(fields)s)", fields=fields)


#: The forms' fields as people say them (a rule option: its label, ``forms.OPTION_LABELS``).
FIELD_WORDS = {
    "name": lazy_gettext("name"),
    "seats": lazy_gettext("seats"),
    "seat": lazy_gettext("seat"),
    "player_id": lazy_gettext("player id"),
    "bot": lazy_gettext("bot"),
    "target_score": lazy_gettext("target score"),
    "max_deals": lazy_gettext("max deals"),
    "rounds": lazy_gettext("rounds"),
    "table_size": lazy_gettext("table size"),
    "pairing": lazy_gettext("pairing"),
    "variant": lazy_gettext("variant"),
    "language": lazy_gettext("language"),
    "seed": lazy_gettext("seed"),
    "points": lazy_gettext("points"),
    "reason": lazy_gettext("reason"),
    "rules": lazy_gettext("rules"),
}


def said_by_field(problems: Mapping[str, str]) -> str:
    """A form's refusals, each after its field as people say it, in one line: each
    language words the pair and the list whole (French puts a space before its colon)."""
    said = [
        gettext("%(field)s: %(problem)s", field=field_words(field), problem=problem)
        if field_words(field)
        else problem
        for field, problem in problems.items()
    ]
    return pgettext("between the refusals of a form's fields", "; ").join(said)


def field_words(path: str) -> str:
    """A field's path as people say it: ``seats.1.name`` → "seats 2 name"."""
    parts = [str(int(p) + 1) if p.isdigit() else p for p in path.split(".") if p != "_schema"]
    said = [str(FIELD_WORDS.get(p) or forms.OPTION_LABELS.get(p) or p) for p in parts]
    return " ".join(said).replace("_", " ").replace("-", " ")


#: marshmallow's words, and what they ask a person to do.
_SCHEMA_WORDS = {
    "Missing data for required field.": lazy_gettext("fill it in"),
    "Field may not be null.": lazy_gettext("fill it in"),
    "Not a valid integer.": lazy_gettext("a whole number, please"),
    "Not a valid string.": lazy_gettext("type it as text"),
    "Unknown field.": lazy_gettext("this form has no such field"),
}


def in_words(message: str) -> str:
    """A schema's message as the console says it (lower case first: it follows a label)."""
    said = str(_SCHEMA_WORDS.get(message, message))
    length = re.fullmatch(r"Length must be between 1 and (\d+)\.", said)
    if length:
        said = gettext("type 1 to %(most)s characters", most=length[1])
    one_of = re.fullmatch(r"Must be one of: (.*)\.", said)
    if one_of:
        said = gettext("Must be one of: %(choices)s.", choices=one_of[1])
    between = re.fullmatch(
        r"Must be greater than or equal to (-?\d+) and less than or equal to (-?\d+)\.", said
    )
    if between:
        said = gettext(
            "Must be greater than or equal to %(low)s and less than or equal to %(high)s.",
            low=between[1],
            high=between[2],
        )
    at_least = re.fullmatch(r"Must be greater than or equal to (-?\d+)\.", said)
    if at_least:
        said = gettext("Must be greater than or equal to %(low)s.", low=at_least[1])
    return said[:1].lower() + said[1:]


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


answer_errors_with_pages(blueprint, rules=True)
