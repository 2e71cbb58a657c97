"""The `cardledger` command: small chores that `make` calls (the Flask CLI group for
chores on the app's database is ``service.chores``)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from service import serve, simulation_cli
from service.config import VAR_DIR, ensure_admin_token
from service.openapi import SPEC_PATH


def _token(_args: argparse.Namespace) -> int:
    """Print the organiser token, generating `var/admin-token` when none is configured."""
    token, created = ensure_admin_token(os.environ, VAR_DIR)
    if created:
        print(f"generated a new organiser token in {VAR_DIR / 'admin-token'}", file=sys.stderr)
    print(token)
    return 0


def _openapi(args: argparse.Namespace) -> int:
    """Regenerate the OpenAPI document from the routes (the app is built on a throwaway DB)."""
    from service.app import create_app
    from service.config import Config
    from service.openapi import render_spec, write_spec

    app = create_app(Config(database_url="sqlite://"))
    if args.check:
        if args.output.is_file() and args.output.read_text(encoding="utf-8") == render_spec(app):
            return 0
        print(f"{args.output} is out of date: run `make openapi`", file=sys.stderr)
        return 1
    changed = write_spec(app, args.output)
    print(f"{args.output}: {'updated' if changed else 'unchanged'}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    """Check an export offline: readable, hash-chained, accepted by the rules engine and,
    with ``--key``, signed by that key (the exporting server's, from its /signing-key)."""
    from domain.audit import Problem
    from service.audit import Report, verify_file
    from service.signing import key_id, parse_public_key

    try:
        key = None if args.key is None else parse_public_key(args.key)
    except ValueError as error:
        print(f"--key: {error} (give the public_key of GET /signing-key)", file=sys.stderr)
        return 2
    try:
        header, report = verify_file(args.file.read_text(encoding="utf-8"), key)
    except UnicodeDecodeError as error:
        problem = Problem(0, "unreadable_export", f"the file is not UTF-8 text ({error.reason})")
        header, report = None, Report(problems=[problem])
    name = f"table {header['id']} ({header['game']})" if header else str(args.file)
    if report.ok:
        signed = (
            f"signed by key {key_id(key)}"
            if key is not None
            else "signature NOT checked (give --key PUBLIC_KEY to check it)"
        )
        print(f"{name}: OK, {report.events} events, head {report.head}, {signed}")
        return 0
    print(f"{name}: {len(report.problems)} problem(s)")
    for problem in report.problems:
        print(f"  line {problem.version + 1} (version {problem.version}): "
              f"{problem.code}: {problem.detail}")  # fmt: skip
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardledger", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("token", help="print the organiser token").set_defaults(run=_token)
    openapi = commands.add_parser("openapi", help="regenerate openapi.yaml")
    openapi.add_argument("-o", "--output", type=Path, default=SPEC_PATH)
    openapi.add_argument("--check", action="store_true", help="fail if the file is out of date")
    openapi.set_defaults(run=_openapi)
    simulation_cli.add_parser(commands)
    serve.add_parser(commands)
    verify = commands.add_parser("verify", help="check an exported table (JSON Lines) offline")
    verify.add_argument("file", type=Path)
    verify.add_argument(
        "--key",
        metavar="PUB",
        help="the exporting server's public key (base64, as GET /signing-key serves it): "
        "the file must be signed by it",
    )
    verify.set_defaults(run=_verify)
    args = parser.parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
