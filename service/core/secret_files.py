"""Secrets kept under ``var/`` unless the environment gives them (the organiser token,
the signing key): one way to read them, so both follow the same precedence."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def read_secret(env: Mapping[str, str], variable: str, path: Path) -> str | None:
    """``env[variable]``, else the contents of ``path``, else None (empty counts as unset)."""
    value = env.get(variable, "").strip()
    if value:
        return value
    if path.is_file():
        return path.read_text(encoding="utf-8").strip() or None
    return None
