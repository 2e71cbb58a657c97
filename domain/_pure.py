"""Importing the rules engine's sources where compiled modules lie beside them
(``CARDLEDGER_ENGINE=pure``; ``domain.engine`` says which build a process runs)."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

_EXTENSIONS = tuple(importlib.machinery.EXTENSION_SUFFIXES)


class _PureFinder(importlib.abc.MetaPathFinder):
    """Finds each ``domain`` module's ``.py`` source where a compiled one lies beside it."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not name.startswith("domain."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        origin = spec.origin if spec is not None else None
        if origin is None or not origin.endswith(_EXTENSIONS):
            return spec
        source = Path(origin).with_name(name.rpartition(".")[2] + ".py")
        return importlib.util.spec_from_file_location(name, source)


def use_pure() -> None:
    """Import the pure-Python sources from now on (before any rules module is imported)."""
    if not any(isinstance(f, _PureFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _PureFinder())
