"""The per-process table-log cache only ever speeds replay up: two apps on one database
(like two gunicorn workers) stay equal to a fresh replay of the stored log."""

from __future__ import annotations

import random
from pathlib import Path

from domain.games import bottle_imp as g
from service.application.tables import table_logs
from service.core.signing import new_private_key
from service.storage.db import get_database
from service.storage.eventstore import EventStore
from service.storage.tablelog import fresh
from tests.helpers import ADMIN_TOKEN, make_test_app

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def test_two_processes_sharing_a_database_agree_with_a_fresh_replay(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    key = new_private_key()  # one server: its processes share its signing key
    one, two = make_test_app(url, signing_key=key), make_test_app(url, signing_key=key)
    clients = [one.test_client(), two.test_client()]
    created = (
        clients[0]
        .post(
            "/tables",
            json={"game": "bottle-imp", "seats": [{"name": n} for n in "ABC"], "seed": "cache"},
            headers=ORGANISER,
        )
        .get_json()
    )
    table_id = created["id"]
    rng = random.Random(7)
    version, compared = 1, 0
    for step in range(60):
        client = clients[rng.randrange(2)]
        state = client.get(f"/tables/{table_id}/state", headers=ORGANISER).get_json()
        assert state["version"] == version  # each process sees the other's appends
        action = rng.choice(state["legal_actions"])
        response = client.post(f"/tables/{table_id}/actions", json=action, headers=ORGANISER)
        assert response.status_code == 201, response.get_json()
        version = response.get_json()["version"]
        if step % 10 == 9:
            compared += 1
            for app in (one, two):
                with app.app_context(), get_database().reading() as connection:
                    cached = table_logs().load(connection, table_id)
                    replayed = fresh(table_id, EventStore(connection).read(table_id))
                assert cached.state == replayed.state
                assert cached.rows == replayed.rows
                assert g.view(cached.state, "organiser") == g.view(replayed.state, "organiser")
                assert cached.version == version
    assert compared == 6 and version > 60  # sixty actions, each one event or more


def test_an_earlier_version_is_replayed_from_the_start(tmp_path: Path) -> None:
    app = make_test_app(f"sqlite:///{tmp_path / 'v.db'}")
    client = app.test_client()
    created = client.post(
        "/tables",
        json={"game": "bottle-imp", "seats": [{"name": n} for n in "ABC"], "seed": "v"},
        headers=ORGANISER,
    ).get_json()
    table_id = created["id"]
    seen = {}
    for _ in range(12):
        state = client.get(f"/tables/{table_id}/state", headers=ORGANISER).get_json()
        seen[state["version"]] = state
        acted = client.post(
            f"/tables/{table_id}/actions", json=state["legal_actions"][0], headers=ORGANISER
        )
        assert acted.status_code == 201, acted.get_json()
    assert len(seen) == 12 and min(seen) == 1  # twelve versions, from the first
    for version, state in seen.items():
        again = client.get(f"/tables/{table_id}/state?version={version}", headers=ORGANISER)
        assert again.get_json() == state
