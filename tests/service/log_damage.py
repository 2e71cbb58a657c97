"""Damaging a table's stored log behind the service's back (tests may write SQL; the code
never does), and what every route must then answer: shared by the SQLite tests
(``test_damaged_log.py``) and the PostgreSQL ones (``tests/integration``)."""

from __future__ import annotations

import json
import random
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import delete, func, insert, select, update

from service.db import get_database
from service.eventstore import canonical_event, chain_hash
from service.models import events
from tests.helpers import ADMIN_TOKEN

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
PROBLEM = "application/problem+json"


def open_and_play(client: FlaskClient, actions: int = 14, seed: str = "damage") -> str:
    """A Bottle Imp table with ``actions`` legal actions recorded (several cards played)."""
    created = client.post(
        "/tables",
        json={"game": "bottle-imp", "seats": [{"name": n} for n in "ABC"], "seed": seed},
        headers=ORGANISER,
    )
    assert created.status_code == 201, created.get_json()
    table_id: str = created.get_json()["id"]
    play(client, table_id, actions)
    return table_id


def play(client: FlaskClient, table_id: str, actions: int, rng_seed: int = 3) -> None:
    rng = random.Random(rng_seed)
    for _ in range(actions):
        state = client.get(f"/tables/{table_id}/state", headers=ORGANISER).get_json()
        action = rng.choice(state["legal_actions"])
        response = client.post(f"/tables/{table_id}/actions", json=action, headers=ORGANISER)
        assert response.status_code == 201, response.get_json()


def stored(app: Flask, table_id: str) -> list[Any]:
    query = select(events).where(events.c.stream == table_id).order_by(events.c.version)
    with get_database(app).engine.connect() as connection:
        return list(connection.execute(query))


def row_count(app: Flask) -> int:
    with get_database(app).engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(events)).scalar_one())


def _where(table_id: str, version: int) -> Any:
    return (events.c.stream == table_id) & (events.c.version == version)


def set_data(app: Flask, table_id: str, version: int, data: str) -> None:
    with get_database(app).engine.begin() as connection:
        changed = connection.execute(
            update(events).where(_where(table_id, version)).values(data=data)
        )
        assert changed.rowcount == 1


def play_a_card_twice(app: Flask, table_id: str) -> tuple[int, str]:
    """Issue 12's edit: the second card played becomes the first one again (an
    ``UPDATE events SET data = …``). Returns the version changed and its original data."""
    first, second = [r for r in stored(app, table_id) if r.type == "CardPlayed"][:2]
    card = json.loads(first.data)["card"]
    set_data(app, table_id, second.version, json.dumps({**json.loads(second.data), "card": card}))
    return second.version, second.data


def make_unreadable(app: Flask, table_id: str) -> int:
    row = next(r for r in stored(app, table_id) if r.type == "CardPlayed")
    set_data(app, table_id, row.version, '{"seat": 0, "card": ')
    return int(row.version)


def delete_last(app: Flask, table_id: str) -> int:
    last = stored(app, table_id)[-1].version
    with get_database(app).engine.begin() as connection:
        assert connection.execute(delete(events).where(_where(table_id, last))).rowcount == 1
    return int(last)


def add_beyond_head(app: Flask, table_id: str) -> int:
    """The last row again as the next version, correctly chained, the stream's head left
    alone (as if written by something other than the event store)."""
    last = stored(app, table_id)[-1]
    values = {c.name: getattr(last, c.name) for c in events.c if c.name != "id"}
    version = last.version + 1
    canonical = canonical_event(
        table_id, version, last.type, last.schema, json.loads(last.data), last.recorded_at,
        last.actor,
    )  # fmt: skip
    values |= {"version": version, "hash": chain_hash(last.hash, canonical)}
    with get_database(app).engine.begin() as connection:
        connection.execute(insert(events).values(values))
    return int(version)


def assert_damaged_problem(response: Any, table_id: str, version: int) -> dict[str, Any]:
    """409 ``log_damaged`` naming the first bad version and telling the organiser what to do."""
    assert response.status_code == 409, response.get_json()
    assert response.mimetype == PROBLEM
    problem: dict[str, Any] = response.get_json()
    assert (problem["code"], problem["version"]) == ("log_damaged", version), problem
    assert problem["damaged"]["version"] == version
    assert f"/tables/{table_id}/verify" in problem["detail"]
    assert "backup" in problem["detail"] and "export" in problem["detail"]
    return problem


def assert_writes_refused(client: FlaskClient, table_id: str, version: int) -> None:
    """Every kind of write: an action the shown state offers (none, when the damage cut
    an action's events short), a deal, a ruling, one at the shown version, autoplay."""
    state = client.get(f"/tables/{table_id}/state", headers=ORGANISER).get_json()
    ruling = {"type": "adjust", "seat": 0, "points": 5, "reason": "probe"}
    for body in [*state["legal_actions"][:1], {"type": "deal"}, ruling]:
        response = client.post(f"/tables/{table_id}/actions", json=body, headers=ORGANISER)
        assert_damaged_problem(response, table_id, version)
    expected = {"If-Match": f'"{state["version"]}"', **ORGANISER}
    response = client.post(f"/tables/{table_id}/actions", json=ruling, headers=expected)
    assert_damaged_problem(response, table_id, version)
    response = client.post(f"/tables/{table_id}/autoplay", headers=ORGANISER)
    assert_damaged_problem(response, table_id, version)


def assert_reads_say_damaged(client: FlaskClient, table_id: str, version: int, code: str) -> None:
    """Reads answer 200 with ``damaged`` set, showing only the versions before it."""
    summary = client.get(f"/tables/{table_id}", headers=ORGANISER)
    assert summary.status_code == 200, summary.get_json()
    damaged = summary.get_json()["damaged"]
    assert (damaged["version"], damaged["code"]) == (version, code), damaged
    assert damaged["detail"]
    assert summary.get_json()["version"] == version - 1
    for viewer in (ORGANISER, {}):
        state = client.get(f"/tables/{table_id}/state", headers=viewer)
        assert state.status_code == 200, state.get_json()
        assert state.get_json()["damaged"] == damaged
        assert state.get_json()["version"] == version - 1
    shown = client.get(f"/tables/{table_id}/events?limit=1000", headers=ORGANISER)
    assert shown.status_code == 200
    assert [e["version"] for e in shown.get_json()["events"]] == list(range(1, version))
    assert client.get(f"/tables/{table_id}/deals/1", headers=ORGANISER).status_code == 200
    page = client.get(f"/tables/{table_id}/view")
    assert page.status_code == 200
    assert f"damaged at version {version}" in page.get_data(as_text=True)
    report = client.get(f"/tables/{table_id}/verify", headers=ORGANISER).get_json()
    assert report["ok"] is False and report["problems"][0]["version"] == version, report


def assert_reads_undamaged(client: FlaskClient, table_id: str) -> dict[str, Any]:
    summary = client.get(f"/tables/{table_id}", headers=ORGANISER)
    assert summary.status_code == 200 and summary.get_json()["damaged"] is None
    state = client.get(f"/tables/{table_id}/state", headers=ORGANISER).get_json()
    assert state["damaged"] is None
    shown: dict[str, Any] = summary.get_json()
    return shown
