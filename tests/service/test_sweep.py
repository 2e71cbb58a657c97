"""The tables waiting on a bot (``bot_turns``) and the sweep's choice among them.

A table enters ``bot_turns`` in the transaction that makes it a bot's turn and leaves it
in the one that hands it back to a person or ends the match; the sweep picks those rows
whose last event is older than its cutoff, longest idle first. The broker here is a port
nothing listens on, so no task runs and the tables stay where the actions left them.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from alembic import command
from alembic.script import ScriptDirectory
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import delete, select, update

from service.application.tables import create_table
from service.jobs import autoplays, botplay, sweep
from service.jobs.heartbeats import ago
from service.storage.db import alembic_config, get_database
from service.storage.eventstore import now
from service.storage.models import bot_turns, pending_autoplays
from tests.helpers import ADMIN_TOKEN, make_test_app, open_table
from tests.service.queued import tasks

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
FAR_FUTURE = sweep.stamp(datetime.now(UTC) + timedelta(days=1))
#: Who sits where: Ann deals to two bots; a bot deals to Bo and Cy; three people.
ANN_AND_BOTS = [{"name": "Ann"}, {"bot": "random"}, {"bot": "random"}]
A_BOT_DEALS = [{"bot": "random"}, {"name": "Bo"}, {"name": "Cy"}]
PEOPLE = [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]


def deal(client: FlaskClient, created: dict[str, Any]) -> str:
    """Seat 0 deals (201 although the bots' task is lost); when that was recorded."""
    ann = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    dealt = client.post(f"/tables/{created['id']}/actions", json={"type": "deal"}, headers=ann)
    assert dealt.status_code == 201, dealt.json
    return str(dealt.json["events"][-1]["at"])


def waiting(app: Flask) -> set[str]:
    with get_database(app).reading() as connection:
        return set(connection.scalars(select(bot_turns.c.table_id)))


def picked(app: Flask, before: str) -> list[str]:
    with get_database(app).reading() as connection:
        return sweep.idle_bot_tables(connection, before)


def test_the_sweep_picks_the_tables_waiting_on_a_bot_and_no_other(
    brokerless: Flask, sqlite_url: str
) -> None:
    client = brokerless.test_client()
    ann_to_deal = open_table(client, seats=ANN_AND_BOTS).created
    bot_deals = open_table(client, seats=A_BOT_DEALS).created
    bots_prepare = open_table(client, seats=ANN_AND_BOTS).created
    dealt_at = deal(client, bots_prepare)
    persons = open_table(client, seats=PEOPLE).created
    deal(client, persons)  # every seat prepares, and every seat is a person's
    eager = make_test_app(sqlite_url)  # the same database, bots moving inside the request
    try:
        two_bots = [{"bot": "random"}, {"bot": "heuristic"}]
        finished = open_table(
            eager.test_client(), "oh-quay", seats=two_bots, rules={"max_turns": 10}
        ).created
        assert eager.test_client().get(f"/tables/{finished['id']}").json["status"] == "finished"
    finally:
        get_database(eager).engine.dispose()

    # a bot to deal, bots to prepare: picked, longest idle first; persons to act, or a
    # match over: never
    assert picked(brokerless, FAR_FUTURE) == [bot_deals["id"], bots_prepare["id"]]
    assert waiting(brokerless) == {bot_deals["id"], bots_prepare["id"]}
    assert ann_to_deal["id"] not in waiting(brokerless)
    # a table whose last event is not older than the cutoff is left to whoever moves it
    assert picked(brokerless, dealt_at) == [bot_deals["id"]]
    assert picked(brokerless, sweep.stamp(datetime.now(UTC) - timedelta(days=1))) == []


def test_a_table_leaves_the_list_when_its_bots_hand_it_back(brokerless: Flask) -> None:
    client = brokerless.test_client()
    created = open_table(
        client, seats=[{"name": "Ann"}, {"bot": "heuristic"}, {"bot": "random"}]
    ).created
    assert waiting(brokerless) == set()  # Ann deals first
    deal(client, created)
    assert waiting(brokerless) == {created["id"]}
    with brokerless.app_context():
        outcome = botplay.play_bots(created["id"])  # the loop a worker would run
    assert (outcome["stopped"], outcome["to_act"]) == ("waiting_for_person", [0])
    assert outcome["moves"] >= 2  # each bot prepared
    assert waiting(brokerless) == set()
    assert picked(brokerless, FAR_FUTURE) == []


def test_the_list_is_rebuilt_from_the_streams(brokerless: Flask) -> None:
    """``bot_turns`` is a projection: deleted and rebuilt, it is the same rows."""
    client = brokerless.test_client()
    deal(
        client,
        open_table(client, seats=ANN_AND_BOTS).created,
    )
    open_table(client, seats=A_BOT_DEALS)
    open_table(client, seats=ANN_AND_BOTS)
    kept = waiting(brokerless)
    assert len(kept) == 2
    with get_database(brokerless).writing() as connection:
        connection.execute(delete(bot_turns))
    result = brokerless.test_cli_runner().invoke(args=["cardledger", "rebuild-projections"])
    assert result.exit_code == 0, result.output
    assert "bot_turns: 2" in result.output
    assert waiting(brokerless) == kept


def test_the_migration_lists_the_tables_already_waiting(brokerless: Flask, sqlite_url: str) -> None:
    """Upgrading a database whose tables were recorded before ``bot_turns`` existed
    lists those already waiting on a bot, so a table stalled before the upgrade resumes."""
    client = brokerless.test_client()
    deal(
        client,
        open_table(client, seats=ANN_AND_BOTS).created,
    )
    open_table(client, seats=A_BOT_DEALS)
    open_table(client, seats=ANN_AND_BOTS)
    kept = waiting(brokerless)
    assert len(kept) == 2
    get_database(brokerless).engine.dispose()
    config = alembic_config(sqlite_url)
    before = ScriptDirectory.from_config(config).get_revision("0006_bot_turns").down_revision
    command.downgrade(config, str(before))
    command.upgrade(config, "head")
    assert waiting(brokerless) == kept


def test_without_a_broker_there_is_nothing_to_sweep(app: Flask) -> None:
    """Eager mode: the bots move in the request; a table opened without waking its bots
    (as a caller that plays them itself opens one) is listed, and the sweep leaves it."""
    spec = {"game": "oh-quay", "seats": [{"bot": "random"}, {"name": "Bo"}], "seed": "eager"}
    with app.app_context():
        table_id = create_table(spec, autoplay=False).id
    assert waiting(app) == {table_id}
    with app.app_context():
        assert sweep.resume_bots(idle=0) == []
    assert app.test_client().get(f"/tables/{table_id}").json["version"] == 1


def test_stamps_sort_like_the_event_store_s() -> None:
    assert len(sweep.stamp(datetime.now(UTC))) == len(now())
    assert sweep.stamp(datetime.now(UTC) - timedelta(seconds=1)) < now()


def test_a_table_whose_autoplay_is_pending_is_not_queued_again(
    sqlite_url: str, tmp_path: Path
) -> None:
    """`make run`'s default broker, no worker: the table's opening queued its bots, and
    the sweep finds that autoplay pending and sends nothing, sweep after sweep, until it
    has waited ``LOST_SECONDS`` (its task lost): then once more. The same rule holds on
    Redis: the pending autoplay is a database row (``service.jobs.autoplays``)."""
    broker = tmp_path / "broker.sqlite"
    app = make_test_app(sqlite_url, jobs="sqlite", broker_url=f"sqla+sqlite:///{broker}")
    try:
        created = open_table(app.test_client(), seats=A_BOT_DEALS).created
        with app.app_context():
            assert sweep.resume_bots(idle=0) == []
            assert sweep.resume_bots(idle=0) == []
        assert tasks(broker, "cardledger.autoplay") == [[created["id"], None, None]]
        with get_database(app).writing() as connection:
            lost = ago(autoplays.LOST_SECONDS + 1)
            connection.execute(update(pending_autoplays).values(queued_at=lost))
        with app.app_context():
            assert sweep.resume_bots(idle=0) == [created["id"]]
            assert sweep.resume_bots(idle=0) == []
        assert len(tasks(broker, "cardledger.autoplay")) == 2
        with sqlite3.connect(broker) as db:  # nothing else in the broker
            assert db.execute("SELECT count(*) FROM kombu_message").fetchone() == (2,)
        assert app.test_client().get(f"/tables/{created['id']}").json["version"] == 1
    finally:
        get_database(app).engine.dispose()
