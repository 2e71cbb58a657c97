"""Reading a client's JSON without letting it crash or cost us: the one place for the limits.

Python's ``json`` recurses once per nesting level, so 100,000 brackets end in a
``RecursionError`` (a 500), and it keeps the last of two equal keys, so a body could say one
thing to a reader and another to us. Every JSON a client sends goes through :func:`loads`,
which refuses both with a 400 before ``json`` sees the text: request bodies through
``service.running.app.ClientJsonProvider`` (the app's ``json``: ``request.get_json``), each
line of an import through ``service.storage.chain.parse_export``. Sizes are refused earlier
still, from ``Content-Length`` or while a chunked body streams in (werkzeug's
``max_content_length``, set by ``service.running.app`` and the import route), and only once
the caller's token is checked.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: Largest request body of any other route, in bytes: an action is under 1 KiB, a new table
#: or tournament a few KiB; this leaves room and still costs nothing to read.
MAX_JSON_BODY = 256 * 1024
#: Largest ``POST /tables/import`` body: an exported log of a long match, in bytes.
MAX_IMPORT_BODY = 16 * 1024 * 1024
#: Deepest nesting of arrays and objects in a client's JSON (ours needs fewer than 8).
MAX_DEPTH = 32
#: How much of a refused key a problem repeats back.
SHOWN_KEY = 100

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # brackets inside do not nest
_BRACKET = re.compile(r"[\[\]{}]")


class JsonRefused(ValueError):
    """Well-formed or not, JSON we will not parse: 400 with a stable ``code``.

    A ``ValueError`` so that whatever treats unreadable JSON as such (Flask's ``get_json``,
    the offline verifier) treats this so too; ``line``: the import line it was found on.
    """

    def __init__(self, code: str, detail: str, *, line: int | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.line = line
        self.extra = extra


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether ``text`` opens more than ``limit`` arrays or objects inside each other.

    A scan without recursion: strings are cut out first, then brackets are counted, and
    the count stops at the first level too deep.
    """
    if text.count("[") + text.count("{") <= limit:  # the usual body: nothing to scan
        return False
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub("", text)):
        if bracket.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _unique_keys(line: int | None) -> Any:
    def build(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = dict(pairs)
        if len(built) < len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    shown = key[:SHOWN_KEY]
                    raise JsonRefused(
                        "duplicate_key",
                        f"{_where(line)}the key {shown!r} appears twice in one object",
                        line=line,
                        key=shown,
                    )
                seen.add(key)
        return built

    return build


def _where(line: int | None) -> str:
    return f"line {line}: " if line is not None else ""


def loads(data: str | bytes, *, line: int | None = None) -> Any:
    """``json.loads`` for a client's text: too deep or a repeated key raises ``JsonRefused``,
    anything else unreadable the usual ``ValueError``. ``line`` (an import's line number)
    is named in the detail."""
    text = (
        data if isinstance(data, str) else data.decode(json.detect_encoding(data), "surrogatepass")
    )
    if too_deep(text):
        raise JsonRefused(
            "too_deeply_nested",
            f"{_where(line)}the JSON nests more than {MAX_DEPTH} arrays or objects",
            line=line,
            limit=MAX_DEPTH,
        )
    return json.loads(text, object_pairs_hook=_unique_keys(line))
