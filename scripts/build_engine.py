"""Build (or remove) the compiled engine: mypyc over the domain's hot path.

The pure-Python source is the reference and the default. ``make engine`` compiles the
modules listed under ``[tool.cardledger.engine]`` in ``pyproject.toml`` with mypyc and
leaves each extension module beside its ``.py`` file, where Python's import system
prefers it; ``make engine-clean`` removes them again. ``domain.engine.build()`` says
which build a process runs (``python -m domain.engine``).

    python scripts/build_engine.py            # build in place (this checkout)
    python scripts/build_engine.py --clean    # back to pure Python
    python scripts/build_engine.py --into DIR # a copy of the checkout in DIR, compiled

A build records what it compiled, and from which sources, in ``domain/_engine.json``:
``domain.engine`` reports a build whose sources changed since as stale, so an edited
``.py`` is never silently shadowed by an older compiled module.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain.engine import fingerprint  # noqa: E402  (this checkout's, not an installed one)

MANIFEST = Path("domain/_engine.json")
#: What a copy for ``--into`` leaves out: caches, the virtualenv, builds, local data.
_SKIP = {".git", ".venv", "var", "build", "dist", "node_modules", "__pycache__"}
_SKIP_SUFFIXES = (".so", ".pyd", ".egg-info")


def modules(root: Path = ROOT) -> list[str]:
    """The modules the engine compiles, as ``pyproject.toml`` lists them."""
    config = tomllib.loads((root / "pyproject.toml").read_text())
    return list(config["tool"]["cardledger"]["engine"]["modules"])


def source_of(module: str) -> Path:
    return Path(*module.split(".")).with_suffix(".py")


def compiled_files(root: Path) -> list[Path]:
    """Every extension module a build left in ``root`` (``domain/**`` and the shared
    mypyc runtime library at the top)."""
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


def build(root: Path = ROOT, *, verbose: bool = False) -> dict[str, object]:
    """Compile the listed modules of ``root`` in place; returns the manifest written.

    mypyc runs in a child process with ``root`` as its working directory and its C
    sources and objects in a temporary folder, so two builds (another checkout, a test's
    copy) never share files."""
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
            "                           target_dir=tmp + '/c'),\n"
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
    import mypy.version

    manifest: dict[str, object] = {
        "compiler": f"mypyc {mypy.version.__version__}",
        "python": sys.version.split()[0],
        "modules": names,
        "sources": fingerprint(root),
        "seconds": round(time.perf_counter() - started, 1),
    }
    (root / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def _reusable(dest: Path) -> bool:
    """Whether ``dest`` holds a build of exactly this checkout's domain sources."""
    try:
        manifest = json.loads((dest / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    import mypy.version

    return (
        manifest.get("sources") == fingerprint(ROOT)
        and manifest.get("modules") == modules(ROOT)
        and manifest.get("compiler") == f"mypyc {mypy.version.__version__}"
        and manifest.get("python") == sys.version.split()[0]
        and bool(compiled_files(dest))
    )


def copy_tree(source: Path, dest: Path) -> None:
    """A copy of the checkout's files (no caches, virtualenv, builds or compiled modules)."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in _SKIP or n.endswith(_SKIP_SUFFIXES)} | (
            {MANIFEST.name} if Path(folder).resolve() == (source / "domain").resolve() else set()
        )

    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, ignore=ignore, symlinks=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--into", type=Path, help="copy the checkout to DIR and build there")
    parser.add_argument("-v", "--verbose", action="store_true", help="show mypyc's output")
    args = parser.parse_args(argv)
    root = ROOT
    if args.into:
        root = args.into.resolve()
        if not args.clean and _reusable(root):
            # Same domain sources: keep the compiled modules, refresh every other file.
            with tempfile.TemporaryDirectory(prefix="cardledger-engine-keep-") as keep:
                kept = [(p, Path(keep) / str(i)) for i, p in enumerate(compiled_files(root))]
                kept.append((root / MANIFEST, Path(keep) / "manifest"))
                for path, stash in kept:
                    shutil.move(path, stash)
                copy_tree(ROOT, root)
                for path, stash in kept:
                    shutil.move(stash, path)
            print(f"engine: {root} is a copy of this checkout, its compiled build reused")
            return 0
        copy_tree(ROOT, root)
    if args.clean:
        removed = clean(root)
        print(f"engine: pure Python ({len(removed)} compiled files removed)")
        return 0
    manifest = build(root, verbose=args.verbose)
    compiled = manifest["modules"]
    assert isinstance(compiled, list)
    print(
        f"engine: {len(compiled)} modules compiled with {manifest['compiler']} in "
        f"{manifest['seconds']} s into {root}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
