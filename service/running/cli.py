"""The `cardledger` command: serve, workers, simulate, and small chores that `make` calls
(the Flask CLI group for chores on the app's database is ``service.running.maintenance``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from service.core.config import VAR_DIR, ensure_admin_token
from service.running.serve import serve_command, workers_command
from service.running.simulation_cli import simulate
from service.web.openapi import SPEC_PATH


@click.group(help=__doc__)
def cardledger() -> None:
    pass


cardledger.add_command(serve_command)
cardledger.add_command(workers_command)
cardledger.add_command(simulate)


@cardledger.command("token")
def token() -> int:
    """Print the organiser token, generating `var/admin-token` when none is configured."""
    token, created = ensure_admin_token(os.environ, VAR_DIR)
    if created:
        print(f"generated a new organiser token in {VAR_DIR / 'admin-token'}", file=sys.stderr)
    print(token)
    return 0


@cardledger.command("openapi")
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), default=SPEC_PATH, show_default=True
)
@click.option("--check", is_flag=True, help="fail if the file is out of date")
def openapi(output: Path, check: bool) -> int:
    """Regenerate openapi.yaml from the routes (the app is built on a throwaway DB)."""
    from service.core.config import Config
    from service.running.app import create_app
    from service.web.openapi import render_spec, write_spec

    app = create_app(Config(database_url="sqlite://"))
    if check:
        if output.is_file() and output.read_text(encoding="utf-8") == render_spec(app):
            return 0
        print(f"{output} is out of date: run `make openapi`", file=sys.stderr)
        return 1
    changed = write_spec(app, output)
    print(f"{output}: {'updated' if changed else 'unchanged'}")
    return 0


@cardledger.command("verify")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--key",
    metavar="PUB",
    help="the exporting server's public key (base64, as GET /signing-key serves it): "
    "the file must be signed by it",
)
def verify(file: Path, key: str | None) -> int:
    """Check an exported table (JSON Lines) offline.

    Readable, hash-chained, accepted by the rules engine and, with --key, signed by that
    key (the exporting server's, from its /signing-key).
    """
    from domain.audit import Problem
    from service.core.signing import key_id, parse_public_key
    from service.storage.chain import Report
    from service.storage.exports import verify_file

    try:
        public = None if key is None else parse_public_key(key)
    except ValueError as error:
        print(f"--key: {error} (give the public_key of GET /signing-key)", file=sys.stderr)
        return 2
    try:
        header, report = verify_file(file.read_text(encoding="utf-8"), public)
    except UnicodeDecodeError as error:
        problem = Problem(0, "unreadable_export", f"the file is not UTF-8 text ({error.reason})")
        header, report = None, Report(problems=[problem])
    name = f"table {header['id']} ({header['game']})" if header else str(file)
    if report.ok:
        signed = (
            f"signed by key {key_id(public)}"
            if public is not None
            else "signature NOT checked (give --key PUBLIC_KEY to check it)"
        )
        print(f"{name}: OK, {report.events} events, head {report.head}, {signed}")
        return 0
    print(f"{name}: {len(report.problems)} problem(s)")
    for problem in report.problems:
        print(f"  line {problem.version + 1} (version {problem.version}): "
              f"{problem.code}: {problem.detail}")  # fmt: skip
    return 1


@cardledger.command("verify-streams")
def verify_streams_command() -> int:
    """Re-check every stream's stored rows now (chain, head, every signature), as the
    background verifier does: mark the damaged ones, clear the mark of restored ones."""
    from service.jobs.verifier import verify_streams
    from service.running.app import create_app

    with create_app().app_context():
        found = verify_streams(limit=10**9)
    print(f"checked {found.checked} streams; damaged: {len(found.damaged)}; "
          f"cleared: {len(found.cleared)}")  # fmt: skip
    for stream_id, problem in found.damaged.items():
        print(f"  {stream_id}: version {problem['version']} {problem['code']}: "
              f"{problem['detail']}")  # fmt: skip
    return 1 if found.damaged else 0


@cardledger.command("restore")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def restore(file: Path) -> int:
    """Put a damaged table's rows back from an export taken before the damage.

    FILE is this server's signed export (with ?reveal=true while the match runs). The rows
    recorded after it are kept as far as they still chain on and are signed.
    """
    from service.application.records import restore_table
    from service.core.refusals import ApplicationError
    from service.running.app import create_app

    with create_app().app_context():
        try:
            done = restore_table(file.read_text(encoding="utf-8"))
        except ApplicationError as refused:
            print(f"{refused.code}: {refused.detail}", file=sys.stderr)
            return 1
    print(
        f"table {done.table_id} restored to version {done.version}: {done.from_export} rows "
        f"from the export, {done.kept} recorded after it kept, {done.dropped} dropped"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``cardledger``; the exit code is the command's (the console script exits with it)."""
    try:
        result = cardledger.main(list(argv) if argv is not None else None,
                                 prog_name="cardledger", standalone_mode=False)  # fmt: skip
    except click.ClickException as error:  # a usage error: click's message, exit 2
        error.show()
        return error.exit_code
    except click.Abort:
        print("Aborted!", file=sys.stderr)
        return 1
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())
