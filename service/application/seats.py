"""A seat's token, issued again (a lost phone, a reprinted slip), and a seat handed to a bot
and back (an absent person: docs/api.md, "Seats taken over").

Only the token's hash is stored (``service.storage.seat_tokens``) and every request looks its
token up, so replacing the hash is all it takes for the earlier token to stop working at once.

A takeover is an event of the table's log (``domain.stand_ins``), recorded through the unit
of work like any action: its commit publishes the change, which wakes the bots
(``service.jobs.botplay``) now that a bot plays the seat; who plays each seat is folded from
the log (``service.storage.tablelog.playing``).
"""

from __future__ import annotations

import json

from sqlalchemy import Connection, select, update

from domain import stand_ins
from domain.bots import bot as known_bot
from domain.events import TableOpened, from_data
from domain.table import ORGANISER
from service.application.tables import recorded
from service.application.unit_of_work import unit_of_work
from service.core.refusals import NotFound, Unprocessable
from service.storage.models import events, seat_tokens, streams
from service.storage.seat_tokens import hash_token, issue_seat_tokens, new_token
from service.storage.tablelog import TableLog, takeovers


def reissue_seat_token(connection: Connection, table_id: str, seat: int) -> str:
    """A fresh token for a human seat of ``table_id``; its earlier token is void from now.

    Refuses a table that is not here (``not_found``), a seat the table does not have
    (``unknown_seat``) and a bot's seat (``bot_seat``): a bot needs no token.
    """
    opened_row = connection.execute(
        select(events.c.data)
        .join(streams, streams.c.id == events.c.stream)
        .where(events.c.stream == table_id, events.c.version == 1, streams.c.kind == "table")
    ).first()
    if opened_row is None:
        raise NotFound(f"there is no table {table_id}")
    seats = from_data(TableOpened, json.loads(opened_row.data)).seats
    if not 0 <= seat < len(seats):
        raise Unprocessable(
            f"table {table_id} has seats 0 to {len(seats) - 1}, not {seat}",
            "unknown_seat",
            extra={"seats": len(seats)},
        )
    if seats[seat].get("bot"):
        raise Unprocessable(
            f"seat {seat} is a bot's ({seats[seat]['bot']}): it takes no token", "bot_seat"
        )
    token = new_token()
    replaced = connection.execute(
        update(seat_tokens)
        .where(seat_tokens.c.table_id == table_id, seat_tokens.c.seat == seat)
        .values(token_hash=hash_token(token))
    )
    if replaced.rowcount == 0:  # a seat that never had one: its first
        return issue_seat_tokens(connection, table_id, [seat])[seat]
    return token


def take_over_seat(
    table_id: str,
    seat: int,
    bot: str,
    reason: str,
    connection: Connection | None = None,
    actor: str = ORGANISER,
) -> TableLog:
    """Hand ``seat`` to ``bot`` (the organiser's word, with the reason): recorded as
    ``SeatTakenOver``, after which that bot plays the seat and the person's own token only
    looks (``service.storage.tablelog.refuse_taken_over``). ``connection``: in the caller's
    write transaction (a console form recording its key), whose commit wakes the bot."""
    known_bot(bot)  # unknown_bot
    return _record(table_id, stand_ins.TakeOverSeat(seat, bot, reason), connection, actor)


def hand_back_seat(
    table_id: str, seat: int, connection: Connection | None = None, actor: str = ORGANISER
) -> TableLog:
    """Hand a seat taken over back to its person: recorded as ``SeatReturned``; the bot
    stops at once (the bots' loop reads who plays each seat from the log)."""
    return _record(table_id, stand_ins.ReturnSeat(seat), connection, actor)


def _record(
    table_id: str,
    action: stand_ins.TakeOverSeat | stand_ins.ReturnSeat,
    connection: Connection | None,
    actor: str,
) -> TableLog:
    with unit_of_work(connection) as work:
        work.lock_table(table_id)
        log = work.table(table_id)
        events = log.rules.decide(log.state, action)  # the match over, the seat, the reason
        stand_ins.check(takeovers(log), action)  # a seat a bot plays already, or not at all
        return work.append_table(log, events, recorded(log.opened.game, events, ORGANISER,
                                                        actor))  # fmt: skip
