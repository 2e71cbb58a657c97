"""``cardledger simulate``: a simulation in this process, chunk by chunk, with a
progress bar and the result table (``rich``).

It runs the very chunks a Celery worker runs for ``POST /simulations``
(``domain.bots.simulate.run_chunk``) and merges them with the same ``result``, so the
numbers are those the service would store for the same request.
"""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from domain.bots.simulate import Simulation, result, run_chunk
from domain.errors import RuleViolation


@click.command("simulate")
@click.option("--game", required=True)
@click.option("--variant")
@click.option("--seats", required=True, help="bot per seat, comma-separated")
@click.option("--matches", type=int, default=100, show_default=True)
@click.option("--seed", default="1", show_default=True)
@click.option("--target-score", type=int)
@click.option("--max-deals", type=int)
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
def simulate(
    game: str,
    variant: str | None,
    seats: str,
    matches: int,
    seed: str,
    target_score: int | None,
    max_deals: int | None,
    as_json: bool,
) -> int:
    """Simulate matches between bots.

    e.g. cardledger simulate --game bottle-imp --seats heuristic,random,random
    --matches 1000 --seed 1
    """
    sim = Simulation(
        game=game,
        seats=tuple(s.strip() for s in seats.split(",") if s.strip()),
        matches=matches,
        seed=str(seed),
        variant=variant,
        target_score=target_score,
        max_deals=max_deals,
    )
    console = Console(stderr=True)
    try:
        sim.check()
    except RuleViolation as error:
        console.print(f"[red]{error.code}[/red]: {error.message}")
        return 2
    played: list[list[Any]] = []
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(f"{sim.game} matches", total=sim.matches)
        for chunk in sim.chunks():
            played += run_chunk(sim, chunk)
            progress.update(task, advance=len(chunk))
    summary = result(sim, played)
    if as_json:
        print(json.dumps(summary))
    else:
        print_table(summary, Console())
    return 0


def print_table(summary: dict[str, Any], console: Console) -> None:
    title = (
        f"{summary['game']} ({summary['variant']}), {summary['matches']} matches, "
        f"seed {summary['seed']}"
    )
    table = Table(title=title)
    for name in ("seat", "bot", "wins", "win rate", "95% interval", "mean score", "sd"):
        table.add_column(name, justify="left" if name == "bot" else "right")
    for row in summary["seats"]:
        low, high = row["win_rate_ci95"]
        table.add_row(
            str(row["seat"]),
            row["bot"],
            f"{row['wins']:g}",
            f"{row['win_rate']:.3f}",
            f"[{low:.3f}, {high:.3f}]",
            f"{row['mean_score']:.1f}",
            f"{row['sd_score']:.1f}",
        )
    console.print(table)
