"""``flask --app service cardledger ...``: chores on an app's database (registered by
``service.running.app.create_app``, so this imports nothing that builds an app)."""

from __future__ import annotations

import click
from flask.cli import AppGroup

cardledger = AppGroup("cardledger", help="Card Ledger chores on the app's database.")


@cardledger.command("rebuild-projections")
def rebuild_projections_command() -> None:
    """Delete every projection row (players, tournaments, standings, ratings, table
    summaries, bot turns) and recompute it from the event streams, in one transaction."""
    from service.storage.projections.rebuild import rebuild_projections
    from service.storage.transactions import writing

    with writing() as connection:
        counts = rebuild_projections(connection)
    click.echo(", ".join(f"{name}: {n}" for name, n in counts.items()))
