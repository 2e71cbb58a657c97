"""Projections are a cache of the streams: ``flask --app service cardledger
rebuild-projections`` deletes every projection row and recomputes it, and the result is
identical to the rows the command path kept up to date, on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from flask import Flask
from sqlalchemy import delete, select, update

from service.storage.db import alembic_config, get_database
from service.storage.models import (
    players,
    standings,
    table_summaries,
    tournament_tables,
    tournaments,
)
from tests.factories import table_body
from tests.helpers import ADMIN_TOKEN, SIGNING_KEY
from tests.service.tournament_play import (
    ORGANISER,
    created,
    enter,
    enter_player,
    new_tournament,
    play_round,
    play_table,
    register,
    seat_round,
)

PROJECTIONS = (players, tournaments, tournament_tables, standings, table_summaries)
Snapshot = dict[str, list[tuple[Any, ...]]]


def snapshot(app: Flask) -> Snapshot:
    """Every projection row, in primary-key order."""
    with get_database(app).reading() as connection:
        return {
            table.name: [
                tuple(row)
                for row in connection.execute(select(table).order_by(*table.primary_key.columns))
            ]
            for table in PROJECTIONS
        }


def club_history(app: Flask) -> None:
    """A finished Swiss with players, guests, byes, a withdrawal and a late entry; a round
    robin left mid-round; a rated table outside any tournament; and a table in its first
    deal where the director took points off a seat."""
    client = app.test_client()
    rng = random.Random("rebuild")
    members = [register(client, f"Member {i}") for i in range(6)]
    swiss = new_tournament(client, rounds=3)
    for member in members:
        enter_player(client, swiss, member)
    enter(client, swiss, "Guest A", "Guest B", "Guest C")
    play_round(client, swiss, rng)
    created(client.delete(f"/tournaments/{swiss}/entries/2", headers=ORGANISER), 200)
    enter(client, swiss, "Late Guest")
    play_round(client, swiss, rng)
    play_round(client, swiss, rng)

    league = new_tournament(
        client, variant="lopaka", table_size=2, rounds=None, pairing="round_robin"
    )
    for member in members[:4]:
        enter_player(client, league, member)
    seated = seat_round(client, league)
    play_table(client, seated["tables"][0]["id"], rng)  # the other table still plays

    seats = [{"player_id": p} for p in members[3:]] + [{"bot": "random"}]
    table = created(client.post("/tables", json=table_body(seats=seats), headers=ORGANISER))
    play_table(client, table["id"], rng)

    ruled = created(client.post("/tables", json=table_body(), headers=ORGANISER))["id"]
    for action in ({"type": "deal"}, {"type": "adjust", "seat": 1, "points": -5, "reason": "late"}):
        created(client.post(f"/tables/{ruled}/actions", json=action, headers=ORGANISER))


def rebuild(app: Flask) -> str:
    result = app.test_cli_runner().invoke(args=["cardledger", "rebuild-projections"])
    assert result.exit_code == 0, result.output
    return str(result.output)


def test_rebuilt_projections_equal_the_incremental_ones(app: Flask) -> None:
    club_history(app)
    kept = snapshot(app)
    assert all(kept.values()), {name: len(rows) for name, rows in kept.items()}
    assert "tournaments: 2" in rebuild(app)
    assert snapshot(app) == kept


def test_a_rebuild_repairs_lost_or_damaged_projection_rows(app: Flask) -> None:
    club_history(app)
    kept = snapshot(app)
    with get_database(app).writing() as connection:
        connection.execute(delete(standings))
        connection.execute(delete(tournament_tables))
        connection.execute(update(players).values(mu=0.0, rated_tables=99))
    assert snapshot(app) != kept
    rebuild(app)
    assert snapshot(app) == kept


def test_the_lists_migration_fills_table_summaries_as_play_does(
    app: Flask, sqlite_url: str
) -> None:
    """Migration 0007 fills ``table_summaries`` from the tables already recorded: the rows
    an upgrade writes are those the command path keeps."""
    club_history(app)
    kept = snapshot(app)
    config = alembic_config(sqlite_url)
    command.downgrade(config, "0006_bot_turns")
    command.upgrade(config, "head")
    assert snapshot(app) == kept


def test_the_flask_command_line_rebuilds(app: Flask, sqlite_url: str, tmp_path: Path) -> None:
    """The documented command, in a process of its own, on the same database."""
    club_history(app)
    kept = snapshot(app)
    with get_database(app).writing() as connection:
        connection.execute(delete(standings))
    env = {
        **os.environ,
        "DATABASE_URL": sqlite_url,
        "CARDLEDGER_ADMIN_TOKEN": ADMIN_TOKEN,
        "CARDLEDGER_SIGNING_KEY": SIGNING_KEY,
    }  # the same server: its key
    flask = Path(sys.executable).with_name("flask")
    done = subprocess.run(
        [str(flask), "--app", "service", "cardledger", "rebuild-projections"],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "players: 6" in done.stdout
    assert snapshot(app) == kept


@pytest.mark.integration
def test_rebuilt_projections_equal_the_incremental_ones_on_postgresql(pg_app: Flask) -> None:
    club_history(pg_app)
    kept = snapshot(pg_app)
    rebuild(pg_app)
    assert snapshot(pg_app) == kept
