"""A seat's token, issued again: a lost phone, a reprinted slip.

Only the token's hash is stored (``service.storage.seat_tokens``) and every request looks its
token up, so replacing the hash is all it takes for the earlier token to stop working at once.
"""

from __future__ import annotations

import json

from sqlalchemy import Connection, select, update

from domain.events import TableOpened, from_data
from service.core.refusals import NotFound, Unprocessable
from service.storage.models import events, seat_tokens, streams
from service.storage.seat_tokens import hash_token, issue_seat_tokens, new_token


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
