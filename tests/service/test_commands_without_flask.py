"""The command layer runs with no Flask at all: plain arguments in, application errors
out, committed changes told to whoever subscribed in the house (``service.core.resources``).
Run in a fresh interpreter, so that nothing the test suite imported can hide a dependency
on Flask."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from service.core.config import PROJECT_ROOT

SCRIPT = textwrap.dedent(
    """
    import sys
    from service.storage import db
    from service.application import changes
    from service.core import resources
    from service.application.tables import act, create_table
    from domain.errors import RuleViolation
    from service.core.refusals import ApplicationError

    from service.core.config import Config
    from service.core.signing import new_private_key

    house = {resources.CONFIG_KEY: Config(database_url=sys.argv[1],
                                          signing_key=new_private_key())}
    database = db.install(house, sys.argv[1])
    db.metadata.create_all(database.engine)
    changed = []
    changes.subscribe(house, changes.TableChanged, changed.append)
    with resources.housed(house):
        created = create_table({
            "game": "bottle-imp", "variant": "standard", "seed": "no-flask",
            "seats": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}],
        })
        accepted = act(created.id, {"type": "deal"}, viewer=0)
        refused = []
        attempts = (
            (created.id, {"type": "deal"}, 0),
            (created.id, {"type": "discard", "seat": 0, "card": 5}, 1),
            ("0" * 32, {"type": "deal"}, 0),
        )
        for table_id, body, viewer in attempts:
            try:
                act(table_id, body, viewer=viewer)
            except (RuleViolation, ApplicationError) as error:
                refused.append(f"{type(error).__name__}:{error.code}")
    assert "flask" not in sys.modules and "werkzeug" not in sys.modules, "Flask was imported"
    assert accepted.status == 201 and accepted.body["version"] == 2
    assert [change.log.version for change in changed] == [1, 2], changed
    print(" ".join(refused))
    """
)


def test_a_table_is_opened_and_dealt_by_commands_with_no_flask(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'house.sqlite'}"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, url],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    # a second deal breaks a rule; seat 1 may not act for seat 0; a table that does not
    # exist is not found
    assert done.stdout.split() == [
        "RuleViolation:wrong_phase",
        "Forbidden:forbidden",
        "NotFound:not_found",
    ]
