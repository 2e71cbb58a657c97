"""Build (or remove) the compiled engine: mypyc over the domain's hot path.

The pure-Python source is the reference and the default. ``make engine`` compiles the
modules listed under ``[tool.cardledger.engine]`` in ``pyproject.toml`` with mypyc and
leaves each extension module beside its ``.py`` file, where Python's import system
prefers it; ``make engine-clean`` removes them again. ``domain.engine.build()`` says
which build a process runs (``python -m domain.engine``).

    python scripts/build_engine.py            # build in place (this checkout)
    python scripts/build_engine.py --clean    # back to pure Python
    python scripts/build_engine.py --into DIR # a copy of the checkout in DIR, compiled

Each build is made once per state of the sources it depends on, in ``build/engine/<key>``
(a copy of ``domain/``, compiled; the three newest are kept), and its extension modules
are copied from there: so ``make engine``, ``make test``'s compiled run and
``tests/domain/test_compiled_engine.py`` compile only after a change that matters, and
never in a folder another process is using. A build records what it compiled, and from
which sources, in ``domain/_engine.json``: ``domain.engine`` reports a build whose sources
changed since as stale, so an edited ``.py`` is never silently shadowed by an older
compiled module.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain.engine import fingerprint  # noqa: E402  (this checkout's, not an installed one)

MANIFEST = Path("domain/_engine.json")
CACHE = ROOT / "build" / "engine"
#: The shared mypyc runtime library's module, inside ``domain/``: importable wherever the
#: package is (an editable install's finder maps packages, not the checkout's top folder).
GROUP = "domain._engine_runtime"
#: What a copy leaves out: caches, the virtualenv, builds, local data.
_SKIP = {
    ".git",
    ".venv",
    "var",
    "build",
    "dist",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".hypothesis",
    ".pytest_cache",
    ".ruff_cache",
    ".import_linter_cache",
    "artifacts",
}
_SKIP_SUFFIXES = (".so", ".pyd", ".egg-info")


def modules(root: Path = ROOT) -> list[str]:
    """The modules the engine compiles, as ``pyproject.toml`` lists them."""
    config = tomllib.loads((root / "pyproject.toml").read_text())
    return list(config["tool"]["cardledger"]["engine"]["modules"])


def source_of(module: str) -> Path:
    return Path(*module.split(".")).with_suffix(".py")


def compiled_files(root: Path) -> list[Path]:
    """Every extension module a build left in ``root``: ``domain/**``, the shared mypyc
    runtime library among them (``GROUP``), and one an older build left at the top."""
    found = [p for p in (root / "domain").rglob("*") if p.suffix in (".so", ".pyd")]
    found += [p for p in root.glob("*__mypyc*") if p.suffix in (".so", ".pyd")]
    return sorted(found)


def clean(root: Path = ROOT) -> list[Path]:
    """Remove the compiled engine from ``root``: pure Python again."""
    removed = compiled_files(root)
    for path in removed:
        path.unlink()
    manifest = root / MANIFEST
    if manifest.exists():
        manifest.unlink()
        removed.append(manifest)
    return removed


def build(root: Path, *, verbose: bool = False) -> dict[str, object]:
    """Compile the listed modules of ``root`` in place; returns the manifest written.

    mypyc runs in a child process with ``root`` as its working directory and its C
    sources and objects in a temporary folder."""
    names = modules(root)
    clean(root)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cardledger-engine-") as tmp:
        script = (
            "import sys\n"
            "from setuptools import setup\n"
            "from mypyc.build import mypycify\n"
            "paths, tmp = sys.argv[1:-1], sys.argv[-1]\n"
            "setup(name='cardledger-engine', py_modules=[],\n"
            "      ext_modules=mypycify(paths, opt_level='3', debug_level='0',\n"
            f"                           group_name={GROUP!r}, target_dir=tmp + '/c'),\n"
            "      script_args=['build_ext', '--inplace', '--build-temp', tmp + '/o'])\n"
        )
        paths = [str(source_of(name)) for name in names]
        result = subprocess.run(
            [sys.executable, "-c", script, *paths, tmp],
            cwd=root,
            capture_output=not verbose,
            text=True,
            env={**os.environ, "MYPY_CACHE_DIR": os.path.join(tmp, "mypy-cache")},
        )
        if result.returncode != 0:
            if not verbose:
                sys.stderr.write(result.stdout[-20000:] + result.stderr[-20000:])
            raise SystemExit(f"mypyc failed (exit {result.returncode}); nothing compiled is left")
    manifest: dict[str, object] = {
        "compiler": _compiler(),
        "python": sys.version.split()[0],
        "modules": names,
        "sources": fingerprint(root, names),
        "seconds": round(time.perf_counter() - started, 1),
    }
    (root / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def _compiler() -> str:
    import mypy.version

    return f"mypyc {mypy.version.__version__}"


def key(root: Path = ROOT) -> str:
    """What a build depends on: the modules, their sources, the compiler, the interpreter."""
    names = modules(root)
    text = json.dumps([names, fingerprint(root, names), _compiler(), sys.version, GROUP])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def cached(*, verbose: bool = False) -> Path:
    """``build/engine/<key>``: this checkout's ``domain/`` compiled, built if it is not there
    yet (in a folder of its own, then renamed into place)."""
    done = CACHE / key()
    if (done / MANIFEST).exists():
        return done
    started = time.time() - 3600
    CACHE.mkdir(parents=True, exist_ok=True)
    work = CACHE / f"{done.name}.{os.getpid()}.tmp"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(ROOT / "domain", work / "domain", ignore=_ignored(ROOT))
    shutil.copy2(ROOT / "pyproject.toml", work / "pyproject.toml")
    build(work, verbose=verbose)
    try:
        work.rename(done)
    except OSError:  # another process built the same meanwhile
        shutil.rmtree(work, ignore_errors=True)
    builds = sorted(
        (p for p in CACHE.iterdir() if not p.name.endswith(".tmp")),
        key=lambda p: p.stat().st_mtime,
    )
    abandoned = [  # a build stopped halfway, an hour ago or more
        p for p in CACHE.iterdir() if p.name.endswith(".tmp") and p.stat().st_mtime < started
    ]
    for old in builds[:-3] + abandoned:
        shutil.rmtree(old, ignore_errors=True)
    return done


def install(built: Path, root: Path) -> dict[str, object]:
    """Copy a build's extension modules and manifest into ``root``, each where Python's
    import system finds it before the ``.py`` beside it."""
    clean(root)
    for path in [*compiled_files(built), built / MANIFEST]:
        target = root / path.relative_to(built)
        shutil.copy2(path, target)
    manifest: dict[str, object] = json.loads((root / MANIFEST).read_text())
    return manifest


def _ignored(source: Path) -> Callable[[str, list[str]], set[str]]:
    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in _SKIP or n.endswith(_SKIP_SUFFIXES)} | (
            {MANIFEST.name} if Path(folder).resolve() == (source / "domain").resolve() else set()
        )

    return ignore


def copy_tree(source: Path, dest: Path) -> None:
    """A copy of the checkout's files (no caches, virtualenv, builds or compiled modules)."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, ignore=_ignored(source), symlinks=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--into", type=Path, help="copy the checkout to DIR and build there")
    parser.add_argument("-v", "--verbose", action="store_true", help="show mypyc's output")
    args = parser.parse_args(argv)
    root = ROOT
    if args.into:
        root = args.into.resolve()
        copy_tree(ROOT, root)
    if args.clean:
        removed = clean(root)
        print(f"engine: pure Python ({len(removed)} compiled files removed)")
        return 0
    started = time.perf_counter()
    built = cached(verbose=args.verbose)
    manifest = install(built, root)
    names = manifest["modules"]
    assert isinstance(names, list)
    print(
        f"engine: {len(names)} modules compiled with {manifest['compiler']} "
        f"({built.relative_to(ROOT)}), installed in {root} in "
        f"{time.perf_counter() - started:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
