"""Personal links: an entry's token issued again, a withdrawal undone, and where an entry
is now (``docs/api.md``, "Personal links (tournaments)"). ``GET /tournaments/{id}/me`` is
the API's answer to a bearer token and the person's page (``service.web.pages.me``) to a
browser: its link's ``?token=`` becomes a cookie, and the cookie opens their seat.
"""

from __future__ import annotations

from typing import Any

from flask import request
from werkzeug.wrappers import Response

from service.application.entries import find_me, reissue_entry_token
from service.application.tournaments import read_tournament, return_entry
from service.core.refusals import Unauthorized
from service.web.api.base import TOKEN_OPTIONAL, Blueprint, organiser_only
from service.web.auth import bearer, is_organiser
from service.web.pages import me, session
from service.web.pages.answers import error_page
from service.web.problems import ApiError
from service.web.schemas.entries import EntryTokenSchema, WhereaboutsSchema
from service.web.schemas.tournaments import EntrySchema

blp = Blueprint(
    "entries",
    __name__,
    description="Personal links: each entry's own token for the whole tournament.",
)
blp.record_once(lambda setup: me.install(setup.app))  # the table page's way on
TEXT = {"type": "string"}
#: What a browser is told when it has no personal link of this tournament.
NO_LINK = (
    "This page opens with your personal link: scan the QR code on your seat slip (or type "
    "its link) on this phone. If your link was replaced, ask the organiser for your new one."
)


@blp.post(
    "/tournaments/<id:tournament_id>/entries/<int:entry>/token", operation_id="reissueEntryToken"
)
@organiser_only
@blp.response(201, EntryTokenSchema, description="The entry's new token (shown only now).")
@blp.problems(401, 403, 404)
def post_entry_token(tournament_id: str, entry: int) -> tuple[dict[str, Any], int]:
    """Reissue an entry token (organiser)

    A new personal link for one person (a lost phone or slip): their earlier token stops
    working at once; nobody else's changes.
    """
    return {"entry": entry, "token": reissue_entry_token(tournament_id, entry)}, 201


@blp.post("/tournaments/<id:tournament_id>/entries/<int:entry>/return", operation_id="returnEntry")
@organiser_only
@blp.response(200, EntrySchema, description="The entry, no longer withdrawn.")
@blp.problems(401, 403, 404, 409)
def post_return(tournament_id: str, entry: int) -> tuple[dict[str, Any], int]:
    """Undo a withdrawal (organiser)

    The entry is seated again from the next round. An entry that has not withdrawn is 409
    ``entry_not_withdrawn``; a finished tournament, ``tournament_finished``.
    """
    back = return_entry(tournament_id, entry)
    return {"entry": back.entry, "name": back.name, "player_id": back.player_id,
            "withdrawn": back.withdrawn}, 200  # fmt: skip


@blp.get("/tournaments/<id:tournament_id>/me", operation_id="getMe", security=TOKEN_OPTIONAL)
@blp.response(
    200,
    WhereaboutsSchema,
    description="Where the entry is now; to a browser (no bearer token, `Accept: text/html`), "
    "the person's page, which opens their seat (303 to its table page) or says where and "
    "when they play next.",
)
@blp.alt_response(200, schema=TEXT, content_type="text/html", success=True)
@blp.alt_response(303, description="A link's `?token=` kept in a cookie; or the person's seat.")
@blp.problems(401, 403, 404)
def get_me(tournament_id: str) -> Response | tuple[dict[str, Any], int]:
    """Where am I

    With an entry token (`Authorization: Bearer`, or the cookie its link's page sets):
    waiting, playing (at which table and seat), finished or withdrawn. The organiser has
    no entry (403).
    """
    token = bearer()
    page = token is None and _wants_page()
    read_tournament(tournament_id)  # 404 first: the tournament itself is public
    try:
        if token is None and (moved := session.exchange_for_entry(tournament_id)) is not None:
            return moved
        token = token or session.entry_cookie(tournament_id)
        if token is None:
            raise Unauthorized("this needs an entry's token (its personal link)")
        if is_organiser(token):
            raise ApiError(403, "forbidden", "the organiser has no entry: GET /tournaments/{id}")
        log, where = find_me(tournament_id, token)
    except Unauthorized:
        if page:
            return error_page(401, "unauthorized", NO_LINK)
        raise
    if page:
        return me.page(log, where)
    return where.json(), 200


def _wants_page() -> bool:
    """A browser's navigation (HTML preferred to JSON), not an API client."""
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "text/html"
