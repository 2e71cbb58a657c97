"""The house is one-way: the import contracts hold (``[tool.importlinter]`` in
pyproject.toml) and no module of domain/, service/ or workers/ sits in an import cycle,
counting imports made inside functions (``tests/import_cycles.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.import_cycles import cycles

ROOT = Path(__file__).resolve().parent.parent


def test_the_import_contracts_are_kept() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_no_module_is_in_an_import_cycle() -> None:
    assert cycles() == []
