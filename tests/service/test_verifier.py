"""What the guard cannot see, the verifier finds; and an organiser recovers the table.

An edit of the SQLite file itself (no SQL, so no trigger fires and the guard stamp does not
move) leaves a warm process trusting its cache: the background verifier re-checks every
stream from the database, marks the damaged one, and from that moment every process
refuses it. ``cardledger restore`` then puts the rows back from an export taken before the
damage, keeping what was recorded after it as far as it still chains on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from service.core.signing import new_private_key
from service.jobs.verifier import verify_streams
from service.running.cli import main as cardledger
from service.storage.db import get_database
from tests.helpers import make_test_app
from tests.service.log_damage import (
    ORGANISER,
    FlaskCaller,
    assert_reads_undamaged,
    assert_writes_refused,
    open_and_play,
    play,
    stored,
)

RULING = {"type": "adjust", "seat": 1, "points": -17, "reason": "slow play"}


@pytest.fixture
def key() -> str:
    return new_private_key()


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "ledger.db"


@pytest.fixture
def server(database: Path, key: str) -> Iterator[Flask]:
    """The web process, which has the table cached."""
    app = make_test_app(f"sqlite:///{database}", signing_key=key)
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def worker(database: Path, key: str, server: Flask) -> Iterator[Flask]:
    """The jobs process the beat's verifier runs in."""
    app = make_test_app(f"sqlite:///{database}", migrate=False, signing_key=key)
    yield app
    get_database(app).engine.dispose()


def edit_the_file(database: Path, old: bytes, new: bytes) -> None:
    """Change bytes of the database file itself, after moving the WAL's pages into it."""
    with sqlite3.connect(database) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw = database.read_bytes()
    assert raw.count(old) == 1 and len(old) == len(new)
    database.write_bytes(raw.replace(old, new))


def test_the_verifier_finds_a_file_edit_and_every_process_then_refuses_it(
    server: Flask, worker: Flask, database: Path
) -> None:
    caller = FlaskCaller(server.test_client())
    table_id = open_and_play(caller, actions=6, seed="file-edit")
    assert caller.request("POST", f"/tables/{table_id}/actions", RULING, ORGANISER)[0] == 201
    play(caller, table_id, 3)
    ruling = next(r.version for r in stored(get_database(server).engine, table_id)
                  if r.type == "Adjusted")  # fmt: skip
    with worker.app_context():
        assert verify_streams().damaged == {}

    edit_the_file(database, b'"points":-17', b'"points":-71')

    with worker.app_context():
        found = verify_streams()
    assert found.damaged[table_id]["version"] == ruling
    assert found.damaged[table_id]["code"] == "broken_chain"
    for app in (server, worker):  # the warm one too: the mark in the stream's row says so
        assert_writes_refused(FlaskCaller(app.test_client()), table_id, ruling)


def test_an_organiser_restores_a_damaged_table_from_an_earlier_export(
    server: Flask, worker: Flask, database: Path, tmp_path: Path, key: str,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    caller = FlaskCaller(server.test_client())
    table_id = open_and_play(caller, actions=6, seed="restore")
    status, export = caller.request("GET", f"/tables/{table_id}/export?reveal=true", None,
                                    ORGANISER)  # fmt: skip
    assert status == 200
    play(caller, table_id, 2, rng_seed=8)  # recorded after the export, before the damage
    kept = len(stored(get_database(server).engine, table_id))
    assert caller.request("POST", f"/tables/{table_id}/actions", RULING, ORGANISER)[0] == 201
    play(caller, table_id, 1, rng_seed=9)
    after = len(stored(get_database(server).engine, table_id))
    edit_the_file(database, b'"points":-17', b'"points":-71')
    with worker.app_context():
        ruling = verify_streams().damaged[table_id]["version"]
    assert ruling == kept + 1
    assert_writes_refused(caller, table_id, ruling)

    path = tmp_path / "before.jsonl"
    path.write_text(export, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{database}")
    monkeypatch.setenv("CARDLEDGER_SIGNING_KEY", key)
    assert cardledger(["restore", str(path)]) == 0
    said = capsys.readouterr().out
    exported = export.count("\n") - 1
    assert f"restored to version {kept}: {exported} rows from the export, " in said, said
    assert f"{kept - exported} recorded after it kept, {after - kept} dropped" in said, said

    for app in (server, worker):
        one = FlaskCaller(app.test_client())
        assert assert_reads_undamaged(one, table_id)["version"] == kept
    play(caller, table_id, 2, rng_seed=11)
    _, report = caller.request("GET", f"/tables/{table_id}/verify", None, ORGANISER)
    assert report["ok"] is True, report
    assert cardledger(["verify-streams"]) == 0
