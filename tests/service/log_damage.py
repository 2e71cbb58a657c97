"""Damaging a stream's stored log behind the service's back, as an insider holding the
database would (the code never does), and what every route must then answer: shared by
the in-process tests (``test_damaged_log.py``, SQLite and PostgreSQL) and the ones against
a real server (``tests/integration/test_damaged_log_served.py``).

The database refuses to change or delete an event row (``service.storage.guard``), so each
damage first takes the guard away and puts it back afterwards, in one transaction, as
someone covering their tracks would. The answers are read through a ``Caller``: the Flask
test client, or a real server over HTTP.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from flask.testing import FlaskClient
from sqlalchemy import Connection, Engine, delete, func, insert, select, text, update

from service.storage import guard
from service.storage.eventstore import canonical_event, chain_hash
from service.storage.models import events, streams
from tests.helpers import ADMIN_TOKEN

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
PROBLEM = "application/problem+json"


class Caller(Protocol):
    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]: ...


class FlaskCaller:
    """The Flask test client as a ``Caller``: (status, JSON or text)."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        response = self.client.open(path, method=method, json=body, headers=headers or {})
        if response.mimetype in ("application/json", PROBLEM):
            return response.status_code, response.get_json()
        return response.status_code, response.get_data(as_text=True)


def open_and_play(
    caller: Caller, actions: int = 14, seed: str = "damage", headers: dict[str, str] = ORGANISER
) -> str:
    """A Bottle Imp table with ``actions`` legal actions recorded (several cards played)."""
    body = {"game": "bottle-imp", "seats": [{"name": n} for n in "ABC"], "seed": seed}
    status, created = caller.request("POST", "/tables", body, headers)
    assert status == 201, created
    table_id: str = created["id"]
    play(caller, table_id, actions, headers=headers)
    return table_id


def play(
    caller: Caller,
    table_id: str,
    actions: int,
    rng_seed: int = 3,
    headers: dict[str, str] = ORGANISER,
) -> None:
    rng = random.Random(rng_seed)
    for _ in range(actions):
        status, state = caller.request("GET", f"/tables/{table_id}/state", None, headers)
        assert status == 200, state
        action = rng.choice(state["legal_actions"])
        status, answer = caller.request("POST", f"/tables/{table_id}/actions", action, headers)
        assert status == 201, answer


def stored(engine: Engine, stream: str) -> list[Any]:
    query = select(events).where(events.c.stream == stream).order_by(events.c.version)
    with engine.connect() as connection:
        return list(connection.execute(query))


def row_count(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(events)).scalar_one())


@contextmanager
def tampering(engine: Engine) -> Iterator[Connection]:
    """One transaction in which the append-only guard is taken away, rows are changed,
    and the guard is put back."""
    with engine.begin() as connection:
        guard.remove(connection)
        yield connection
        guard.install(connection)


def _where(stream: str, version: int) -> Any:
    return (events.c.stream == stream) & (events.c.version == version)


def set_data(engine: Engine, stream: str, version: int, data: str) -> None:
    with tampering(engine) as connection:
        changed = connection.execute(
            update(events).where(_where(stream, version)).values(data=data)
        )
        assert changed.rowcount == 1


def play_a_card_twice(engine: Engine, table_id: str) -> tuple[int, str]:
    """The second card played becomes the first one again (``UPDATE events SET data``).
    Returns the version changed and its original data."""
    first, second = [r for r in stored(engine, table_id) if r.type == "CardPlayed"][:2]
    card = json.loads(first.data)["card"]
    set_data(
        engine, table_id, second.version, json.dumps({**json.loads(second.data), "card": card})
    )
    return second.version, second.data


def make_unreadable(engine: Engine, table_id: str) -> int:
    row = next(r for r in stored(engine, table_id) if r.type == "CardPlayed")
    set_data(engine, table_id, row.version, '{"seat": 0, "card": ')
    return int(row.version)


def delete_row(engine: Engine, stream: str, version: int | None = None) -> int:
    """Delete a row (the last one by default); the version deleted."""
    version = version or stored(engine, stream)[-1].version
    with tampering(engine) as connection:
        assert connection.execute(delete(events).where(_where(stream, version))).rowcount == 1
    return int(version)


def reorder(engine: Engine, table_id: str) -> int:
    """Swap two played cards' rows (their versions): the first version out of place."""
    first, second = [r for r in stored(engine, table_id) if r.type == "CardPlayed"][:2]
    with tampering(engine) as connection:
        for old, new in ((first.version, -1), (second.version, first.version),
                         (-1, second.version)):  # fmt: skip
            connection.execute(update(events).where(_where(table_id, old)).values(version=new))
    return int(first.version)


def add_beyond_head(engine: Engine, table_id: str) -> int:
    """The last row again as the next version, correctly chained, the stream's head left
    alone (as if written by something other than the event store)."""
    last = stored(engine, table_id)[-1]
    values = {c.name: getattr(last, c.name) for c in events.c if c.name != "id"}
    version = last.version + 1
    canonical = canonical_event(
        table_id, version, last.type, last.schema, json.loads(last.data), last.recorded_at,
        last.actor,
    )  # fmt: skip
    values |= {"version": version, "hash": chain_hash(last.hash, canonical)}
    values |= {"signature": None, "key_id": None}
    with engine.begin() as connection:  # an INSERT: the guard lets appends through
        connection.execute(insert(events).values(values))
    return int(version)


def rewrite_from(engine: Engine, stream: str, version: int, data: dict[str, Any]) -> None:
    """Change the row at ``version`` to ``data`` and recompute every hash after it and the
    stream's head, as someone without the server's key would: the chain checks again,
    only the stored signatures can tell."""
    rows = stored(engine, stream)
    with tampering(engine) as connection:
        previous = rows[version - 2].hash if version > 1 else ""
        for row in rows[version - 1 :]:
            content = data if row.version == version else json.loads(row.data)
            digest = chain_hash(
                previous,
                canonical_event(stream, row.version, row.type, row.schema, content,
                                row.recorded_at, row.actor),
            )  # fmt: skip
            changes: dict[str, Any] = {"hash": digest}
            if row.version == version:
                changes["data"] = json.dumps(content)
            connection.execute(update(events).where(_where(stream, row.version)).values(changes))
            previous = digest
        connection.execute(update(streams).where(streams.c.id == stream).values(head=previous))


def append_forged(engine: Engine, table_id: str, body: dict[str, Any]) -> int:
    """A row appended by hand, chained correctly and the head moved on (INSERT and a
    forward UPDATE: what the guard allows), but signed by nobody."""
    last = stored(engine, table_id)[-1]
    version = last.version + 1
    canonical = canonical_event(
        table_id, version, "Adjusted", 1, body, last.recorded_at, "organiser"
    )
    digest = chain_hash(last.hash, canonical)
    with engine.begin() as connection:
        connection.execute(
            insert(events).values(
                stream=table_id, version=version, type="Adjusted", schema=1,
                data=json.dumps(body), recorded_at=last.recorded_at, hash=digest,
                actor="organiser",
            )
        )  # fmt: skip
        connection.execute(
            text("UPDATE streams SET version = :v, head = :h WHERE id = :id"),
            {"v": version, "h": digest, "id": table_id},
        )
    return version


# --- what the routes answer -----------------------------------------------------------------


def assert_damaged_problem(status: int, problem: Any, table_id: str, version: int) -> None:
    """409 ``log_damaged`` naming the first bad version and telling the organiser what to do."""
    assert status == 409, problem
    assert (problem["code"], problem["version"]) == ("log_damaged", version), problem
    assert problem["damaged"]["version"] == version
    assert f"/tables/{table_id}/verify" in problem["detail"]
    assert "backup" in problem["detail"] and "export" in problem["detail"]


def assert_writes_refused(caller: Caller, table_id: str, version: int) -> None:
    """Every kind of write: an action the shown state offers (none, when the damage cut
    an action's events short), a deal, a ruling, one at the shown version, autoplay."""
    _, state = caller.request("GET", f"/tables/{table_id}/state", None, ORGANISER)
    ruling = {"type": "adjust", "seat": 0, "points": 5, "reason": "probe"}
    for body in [*state["legal_actions"][:1], {"type": "deal"}, ruling]:
        status, problem = caller.request("POST", f"/tables/{table_id}/actions", body, ORGANISER)
        assert_damaged_problem(status, problem, table_id, version)
    expected = {"If-Match": f'"{state["version"]}"', **ORGANISER}
    status, problem = caller.request("POST", f"/tables/{table_id}/actions", ruling, expected)
    assert_damaged_problem(status, problem, table_id, version)
    status, problem = caller.request("POST", f"/tables/{table_id}/autoplay", None, ORGANISER)
    assert_damaged_problem(status, problem, table_id, version)


def assert_reads_say_damaged(caller: Caller, table_id: str, version: int, code: str) -> None:
    """Reads answer 200 with ``damaged`` set, showing only the versions before it."""
    status, summary = caller.request("GET", f"/tables/{table_id}", None, ORGANISER)
    assert status == 200, summary
    damaged = summary["damaged"]
    assert (damaged["version"], damaged["code"]) == (version, code), damaged
    assert damaged["detail"]
    assert summary["version"] == version - 1
    for viewer in (ORGANISER, {}):
        status, state = caller.request("GET", f"/tables/{table_id}/state", None, viewer)
        assert status == 200, state
        assert state["damaged"] == damaged
        assert state["version"] == version - 1
    status, shown = caller.request("GET", f"/tables/{table_id}/events?limit=1000", None, ORGANISER)
    assert status == 200
    assert [e["version"] for e in shown["events"]] == list(range(1, version))
    assert caller.request("GET", f"/tables/{table_id}/deals/1", None, ORGANISER)[0] == 200
    status, page = caller.request("GET", f"/tables/{table_id}/view")
    assert status == 200
    assert f"damaged from move {version} on" in page
    _, report = caller.request("GET", f"/tables/{table_id}/verify", None, ORGANISER)
    assert report["ok"] is False and report["problems"][0]["version"] == version, report


def assert_reads_undamaged(caller: Caller, table_id: str) -> dict[str, Any]:
    status, summary = caller.request("GET", f"/tables/{table_id}", None, ORGANISER)
    assert status == 200 and summary["damaged"] is None, summary
    _, state = caller.request("GET", f"/tables/{table_id}/state", None, ORGANISER)
    assert state["damaged"] is None
    return dict(summary)
