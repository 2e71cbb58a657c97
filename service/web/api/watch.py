"""Live updates as Server-Sent Events (``docs/api.md``, "Live updates").

- ``GET /tables/{id}/watch``: ``version`` ``{"version": n}`` now and each time the table
  moves, ``finished`` once its match is over (then the stream ends).
- ``GET /tournaments/{id}/watch``: the same for the tournament's own stream (rounds
  opened, tables finished, standings changed), and ``table`` ``{"table", "version"}``
  each time a table of its current round moves (who is still to act changed).

Each event carries its version as its ``id``. A comment every ``HEARTBEAT`` seconds keeps
the connection (and its proxies) awake and finds a phone that left; a stream ends after
``LIFETIME`` seconds, and the browser's ``EventSource`` connects again by itself (after
``retry``). What the connection waits on is the process's one watcher
(``service.application.live``), so an open stream costs a thread and no database work.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, current_app, stream_with_context

from service.application.live import Head, TooMany, Watchers, read_heads, watchers
from service.application.tables import table_logs
from service.core.config import Config
from service.storage.db import get_database
from service.storage.tournamentlog import tournament_logs
from service.web.api.base import TOKEN_OPTIONAL, Blueprint
from service.web.auth import viewer_of
from service.web.problems import ApiError

blp = Blueprint("watch", __name__, description="Live updates: Server-Sent Events.")

#: Seconds between heartbeat comments, and a connection's lifetime (the app's
#: ``LIVE_HEARTBEAT_SECONDS`` and ``LIVE_LIFETIME_SECONDS`` override them).
HEARTBEAT = 15.0
LIFETIME = 300.0
#: How long the browser waits before it connects again, in milliseconds.
RETRY_MS = 1000


def events(*names: str) -> dict[str, Any]:
    """The spec of one event of a stream (each event is checked against it)."""
    return {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": {"type": "string", "enum": list(names)},
            "data": {"type": "string", "description": 'JSON, e.g. {"version": 12}'},
            "id": {"type": "string", "pattern": "^[0-9]+$", "description": "the version"},
        },
    }


def _hub() -> Watchers:
    config: Config = current_app.config["CARDLEDGER"]
    serving: Callable[[], bool] = current_app.config.get("LIVE_SERVING", lambda: True)
    return watchers(config.watchers, serving)


def _timing() -> tuple[float, float]:
    settings = current_app.config
    return (
        float(settings.get("LIVE_HEARTBEAT_SECONDS", HEARTBEAT)),
        float(settings.get("LIVE_LIFETIME_SECONDS", LIFETIME)),
    )


def sse(event: str, data: dict[str, Any], ident: int | None = None) -> str:
    """One Server-Sent Event."""
    lines = [f"id: {ident}"] if ident is not None else []
    lines += [f"event: {event}", f"data: {json.dumps(data)}"]
    return "\n".join(lines) + "\n\n"


def _stream(hub: Watchers, body: Iterator[str]) -> Response:
    """``body`` as an event stream holding one of the process's connections until the
    server closes the response (503 ``too_many_watchers`` when it holds its ``limit``)."""
    try:
        release = hub.hold()
    except TooMany as refused:
        raise ApiError(503, refused.code, refused.detail) from None

    def with_retry() -> Iterator[str]:
        yield f"retry: {RETRY_MS}\n\n"
        yield from body

    response = Response(stream_with_context(with_retry()), mimetype="text/event-stream")
    response.call_on_close(release)  # also when the body was never started
    response.headers["X-Accel-Buffering"] = "no"  # a proxy in front passes each event on
    return response


def _follow(
    hub: Watchers, known: dict[str, Head], on_move: Callable[[dict[str, Head]], Iterator[str]]
) -> Iterator[str]:
    """Wait on ``known``'s streams and let ``on_move`` say what each move sends (it
    updates ``known``, and empties it to end the stream), with heartbeats between, until
    the stream's lifetime is over or the server stops."""
    heartbeat, lifetime = _timing()
    now = time.monotonic()
    end, beat = now + lifetime, now + heartbeat
    while known:
        now = time.monotonic()
        if now >= end:
            return
        if now >= beat:
            yield ": heartbeat\n\n"
            beat = now + heartbeat
        found = hub.wait(dict(known), min(end, beat) - now)
        if found is None:
            return  # the server is stopping
        if found:
            yield from on_move(found)


@blp.get("/tables/<id:table_id>/watch", operation_id="watchTable", security=TOKEN_OPTIONAL)
@blp.alt_response(
    200,
    schema=events("version", "finished"),
    content_type="text/event-stream",
    description='`version` `{"version": n}` now and each time the table moves; '
    "`finished` once the match is over (the stream then ends).",
    success=True,
)
@blp.problems(401, 404, 503)
def watch_table(table_id: str) -> Response:
    """Follow a table

    Server-Sent Events, with the access of `GET /tables/{id}/state`.
    """
    with get_database().reading() as connection:
        viewer_of(connection, table_id)  # a token that is present must be valid (401)
        table_logs().head(connection, table_id)  # 404
    hub = _hub()
    first = read_heads(hub.database, [table_id])[table_id]

    def body() -> Iterator[str]:
        yield sse("version", {"version": first.version}, first.version)
        if first.finished:
            yield sse("finished", {"version": first.version}, first.version)
            return
        known = {table_id: first}

        def on_move(found: dict[str, Head]) -> Iterator[str]:
            head = found.get(table_id, known[table_id])
            if head.version != known[table_id].version:
                yield sse("version", {"version": head.version}, head.version)
            known[table_id] = head
            if head.finished:
                yield sse("finished", {"version": head.version}, head.version)
                known.clear()

        hub.watch([table_id])
        try:
            yield from _follow(hub, known, on_move)
        finally:
            hub.unwatch([table_id])

    return _stream(hub, body())


def _round_tables(tournament_id: str) -> list[str]:
    """The tables of the tournament's current round."""
    with get_database().reading() as connection:
        current = tournament_logs().load(connection, tournament_id).state.current
    return [t.table for t in current.tables] if current is not None else []


@blp.get(
    "/tournaments/<id:tournament_id>/watch", operation_id="watchTournament", security=TOKEN_OPTIONAL
)
@blp.alt_response(
    200,
    schema=events("version", "table", "finished"),
    content_type="text/event-stream",
    description='`version` `{"version": n}` now and each time the tournament changes '
    '(a round opened, a table finished, the standings); `table` `{"table", "version"}` '
    "each time a table of its current round moves; `finished` once it is over.",
    success=True,
)
@blp.problems(401, 404, 503)
def watch_tournament(tournament_id: str) -> Response:
    """Follow a tournament

    Server-Sent Events (anyone).
    """
    with get_database().reading() as connection:
        tournament_logs().head(connection, tournament_id)  # 404
    hub = _hub()
    tables = _round_tables(tournament_id)
    first = read_heads(hub.database, [tournament_id, *tables])

    def body() -> Iterator[str]:
        head = first[tournament_id]
        yield sse("version", {"version": head.version}, head.version)
        if head.finished:
            yield sse("finished", {"version": head.version}, head.version)
            return
        known = dict(first)
        watched = [tournament_id, *tables]

        def on_move(found: dict[str, Head]) -> Iterator[str]:
            nonlocal watched
            for table in watched[1:]:
                now = found.get(table)
                if now is not None and table in known and now.version != known[table].version:
                    yield sse("table", {"table": table, "version": now.version})
                if now is not None:
                    known[table] = now
            now = found.get(tournament_id, known[tournament_id])
            if now.version == known[tournament_id].version:
                return
            yield sse("version", {"version": now.version}, now.version)
            if now.finished:
                yield sse("finished", {"version": now.version}, now.version)
                known.clear()
                return
            known[tournament_id] = now
            fresh = _round_tables(tournament_id)
            if fresh != watched[1:]:  # a round opened: follow its tables instead
                hub.watch(fresh)
                hub.unwatch(watched[1:])
                for table in watched[1:]:
                    known.pop(table, None)
                known.update(read_heads(hub.database, fresh))
                watched = [tournament_id, *fresh]

        hub.watch(watched)
        try:
            yield from _follow(hub, known, on_move)
        finally:
            hub.unwatch(watched)

    return _stream(hub, body())
