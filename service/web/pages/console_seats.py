"""The console's seats taken over (``docs/api.md``, "Seats taken over"): on a table's
console page the organiser hands an absent person's seat to a bot, once they have ticked
that the bot plays it from now on, and hands it back (routes on the console's blueprint,
``service.web.pages.console_base``; registered by ``service.running.routes``).

Each form is ``POST /tables/{id}/seats/{seat}/bot``'s body, checked by its schema, done by
the same command (``service.application.seats``) in the transaction that records the form's
one-time key (``formkeys.once``): a second post changes nothing and lands where the first
did. The table page then says what changed, in people's words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask import Response, request
from flask_babel import gettext

from domain.errors import WRONG_TIME_CODES, RuleViolation
from service.application.seats import hand_back_seat, take_over_seat
from service.core.refusals import ApplicationError
from service.storage.tablelog import takeovers
from service.web.pages import formkeys
from service.web.pages.console import table_page
from service.web.pages.console_base import blueprint, go, refusal, target, validated
from service.web.pages.scenes import seat_names
from service.web.pages.stand_ins import returned_words, taken_words
from service.web.problems import status_of
from service.web.schemas.stand_ins import SeatTakeOverSchema

TAKE_OVER_SCHEMA = SeatTakeOverSchema()
#: Who the log names for what the console records.
CONSOLE = "organiser (console)"


@blueprint.post("/tables/<id:table_id>/seats/<int:seat>/bot")
def hand_to_bot(table_id: str, seat: int) -> Response:
    """An absent person's seat handed to the chosen bot, with the reason, once the box
    "yes, a bot plays this seat" is ticked: a tap alone hands nothing."""
    form = request.form
    typed = {"seat": seat, "bot": form.get("bot", ""), "reason": form.get("reason", "")}
    body, _, refused = validated(TAKE_OVER_SCHEMA, {"bot": typed["bot"], "reason": typed["reason"]})
    if form.get("sure") != "yes":
        asked = gettext('tick "yes, a bot plays this seat" first')
        body, refused = None, ("validation_error", asked)
    if body is None:
        return table_page(table_id, 422, seat_refused=refused, bot_form=typed)

    def record(connection: Any) -> str:
        log = take_over_seat(table_id, seat, body["bot"], body["reason"], connection, CONSOLE)
        held = takeovers(log)[seat]
        return taken_words(seat_names(log.opened)[seat], held.bot, held.reason)

    return _changed(table_id, record, typed)


@blueprint.post("/tables/<id:table_id>/seats/<int:seat>/return")
def hand_back(table_id: str, seat: int) -> Response:
    """A seat handed back to its person: nothing is lost by it, so it is not asked first."""

    def record(connection: Any) -> str:
        log = hand_back_seat(table_id, seat, connection, CONSOLE)
        return returned_words(seat_names(log.opened)[seat])

    return _changed(table_id, record)


def _changed(
    table_id: str, record: Callable[[Any], str], typed: Mapping[str, Any] | None = None
) -> Response:
    """``record`` the change once per form key, then the table page saying what changed;
    a refusal is shown there (409 once the match is over, else 422)."""

    def work(connection: Any) -> tuple[formkeys.Outcome, formkeys.Outcome]:
        done = formkeys.Outcome(target("console.table", f"{record(connection)}.",
                                       table_id=table_id))  # fmt: skip
        return done, done

    try:
        made = formkeys.once(work)
    except (RuleViolation, ApplicationError) as refused:
        status = status_of(refused) if isinstance(refused, ApplicationError) else (
            409 if refused.code in WRONG_TIME_CODES else 422)  # fmt: skip
        return table_page(table_id, status, seat_refused=refusal(refused), bot_form=typed)
    return go(made.redirect or target("console.table", table_id=table_id))
