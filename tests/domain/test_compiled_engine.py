"""The compiled engine (``make engine``, ``scripts/build_engine.py``) against the pure-Python
reference: the same seeded games, random and bots', give the same events, refusals and
views, byte for byte, each build in a process of its own.

The compiled build is this checkout's when ``make engine`` built it and it is fresh (as in
``make test``'s compiled run), else a copy of the checkout in a temporary folder with the
build of its sources (``scripts/build_engine.py --into``: compiled once per state of the
sources it depends on, in ``build/engine/``). The pure process runs from the same tree with
``CARDLEDGER_ENGINE=pure``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The first build of a state of the sources compiles for a minute or two of CPU time; on a
#: machine shared with other work that can take longer than the suite's 300 s per test.
pytestmark = pytest.mark.timeout(1200)


def run(tree: Path, *args: str, pure: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("CARDLEDGER_ENGINE", None)
    if pure:
        env["CARDLEDGER_ENGINE"] = "pure"
    return subprocess.run(
        [sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True, check=True
    )


def build_of(tree: Path, pure: bool = False) -> str:
    return run(tree, "-m", "domain.engine", pure=pure).stdout.strip()


@pytest.fixture(scope="module")
def compiled_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tree whose compiled build is fresh: this checkout's own, or a compiled copy."""
    here = build_of(ROOT)
    if here.startswith("engine: compiled") and "STALE" not in here:
        return ROOT
    copy = tmp_path_factory.mktemp("engine") / "tree"
    made = subprocess.run(
        [sys.executable, "scripts/build_engine.py", "--into", str(copy)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    return copy


def test_both_builds_are_found_where_they_are_asked_for(compiled_tree: Path) -> None:
    tree = compiled_tree
    compiled = build_of(tree)
    assert compiled.startswith("engine: compiled (mypyc"), compiled
    assert "STALE" not in compiled
    assert build_of(tree, pure=True) == "engine: pure Python"


def test_seeded_games_give_the_same_events_byte_for_byte(compiled_tree: Path) -> None:
    tree = compiled_tree
    pure = run(tree, "-m", "tests.domain.engine_games", pure=True).stdout
    compiled = run(tree, "-m", "tests.domain.engine_games").stdout
    pure_build, _, pure_lines = pure.partition("\n")
    compiled_build, _, compiled_lines = compiled.partition("\n")
    assert "pure Python" in pure_build and "compiled" in compiled_build
    assert pure_lines.count("\n") > 5_000  # every game, variant and size was played
    if pure_lines != compiled_lines:  # say where, not two whole logs
        for i, (a, b) in enumerate(
            zip(pure_lines.splitlines(), compiled_lines.splitlines(), strict=False)
        ):
            assert a == b, f"line {i + 2} differs"
    assert pure_lines.encode() == compiled_lines.encode()


def test_this_run_uses_the_build_it_was_started_for() -> None:
    """``make test-compiled`` says it wants the compiled build: a run that silently fell
    back to the sources (a missing or stale build) would prove nothing."""
    from domain.engine import build

    expected = os.environ.get("CARDLEDGER_ENGINE_EXPECTED")
    found = build()
    if expected == "compiled":
        assert found.kind == "compiled", str(found)
    else:
        assert found.kind in ("pure", "compiled"), str(found)  # never a stale build
