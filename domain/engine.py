"""Which build of the rules engine this process runs: pure Python (the reference and the
default) or the compiled one ``make engine`` leaves beside the sources (mypyc; see
``scripts/build_engine.py`` and README.md, "A compiled engine").

``python -m domain.engine`` prints it. ``CARDLEDGER_ENGINE=pure`` in the environment makes a
process import the ``.py`` sources even where compiled modules are present (``domain``'s
``__init__`` reads it before any rules module is imported), so the two builds can be run
side by side from one checkout.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from domain._pure import use_pure

__all__ = ["ENV", "Build", "build", "fingerprint", "sources", "use_pure"]

#: The environment variable that chooses the build: ``pure``, or unset/anything else for
#: whatever is present.
ENV = "CARDLEDGER_ENGINE"
_HERE = Path(__file__).resolve().parent
MANIFEST = _HERE / "_engine.json"
_EXTENSIONS = tuple(importlib.machinery.EXTENSION_SUFFIXES)


@dataclass(frozen=True)
class Build:
    """What ``build()`` finds: ``kind`` is ``pure``, ``compiled`` or ``stale`` (compiled
    from sources that have changed since: rebuild with ``make engine``, or ``make
    engine-clean``)."""

    kind: str
    compiler: str | None = None
    modules: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.kind == "pure":
            return "engine: pure Python"
        text = f"engine: compiled ({self.compiler}, {len(self.modules)} modules)"
        if self.changed:
            text += f", STALE: changed since the build: {', '.join(self.changed)}"
        return text


def _module_file(root: Path, name: str) -> Path | None:
    path = root / Path(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def sources(root: Path, modules: Sequence[str]) -> list[str]:
    """The ``domain`` modules a build of ``modules`` depends on: themselves and what they
    import, transitively (a compiled module bakes in what it imports: a named tuple's field
    order, a constant), as module names, sorted."""
    import ast

    seen: set[str] = set()
    todo = list(modules)
    while todo:
        name = todo.pop()
        if name in seen or (path := _module_file(root, name)) is None:
            continue
        seen.add(name)
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Import):
                todo += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:  # a submodule, or a name of the module itself
                    sub = f"{node.module}.{alias.name}"
                    todo.append(sub if _module_file(root, sub) else node.module)
    return sorted(n for n in seen if n == "domain" or n.startswith("domain."))


def fingerprint(root: Path, modules: Sequence[str]) -> dict[str, str]:
    """SHA-256 of the source of each module a build of ``modules`` depends on, by name."""
    found: dict[str, str] = {}
    for name in sources(root, modules):
        path = _module_file(root, name)
        assert path is not None
        found[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _loaded_from_extension(name: str) -> bool:
    module = sys.modules.get(name) or importlib.import_module(name)
    return (getattr(module, "__file__", None) or "").endswith(_EXTENSIONS)


def build() -> Build:
    """The build this process runs, from the modules it imports and the build's manifest."""
    if not MANIFEST.exists():
        return Build("pure")
    manifest = json.loads(MANIFEST.read_text())
    compiled = tuple(name for name in manifest["modules"] if _loaded_from_extension(name))
    if not compiled:
        return Build("pure")
    built: dict[str, str] = manifest["sources"]
    now = fingerprint(_HERE.parent, manifest["modules"])
    changed = tuple(sorted(p for p in built.keys() | now.keys() if built.get(p) != now.get(p)))
    return Build("stale" if changed else "compiled", manifest["compiler"], compiled, changed)


if __name__ == "__main__":
    print(build())
