"""A table's export: the JSON Lines file that carries its log elsewhere, and the checks a
file gets (``POST /tables/import``, ``cardledger verify FILE``, ``cardledger restore``).

A header first (the table, its head, and the signature stored with that head, or
``"unsigned": true``), then one stored event per line with its hash. A running table's
export leaves the seed and salt out unless the organiser asks: the lines that had them say
so, and their hashes are taken as given. ``check_signature`` tells whether a trusted key
vouches for a file; the chain and the engine's re-check are ``service.storage.chain``'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from domain.audit import Problem
from service.core import signing
from service.core.client_json import JsonRefused
from service.core.client_json import loads as load_json
from service.storage.chain import RawRow, Report, check
from service.storage.eventstore import GENESIS, canonical_json

EXPORT_FORMAT = "cardledger-table"


EXPORT_VERSION = 1


#: What a running table's export leaves out unless asked for: the opening's seed and salt,
#: and each deal's seed (``"{salt}:{seed}/{k}"``).
SECRETS = ("seed", "salt")


def export_lines(
    stream: str,
    game: str,
    variant: str,
    rows: Sequence[RawRow],
    *,
    redact: bool = False,
) -> Iterable[str]:
    """JSON Lines: a header carrying the stored signature of the head (or ``"unsigned":
    true``), then one stored event per line with its hash. ``redact`` leaves the seed and
    salt out (a running table): of ``TableOpened`` and of every deal's seed, which is made
    of them; the lines and the header say so."""
    last = rows[-1] if rows else None
    header: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_VERSION,
        "id": stream,
        "game": game,
        "variant": variant,
        "events": len(rows),
        "head": last.hash if last else GENESIS,
    }
    if last is not None and last.signature is not None:
        header |= {"signature": last.signature, "key_id": last.key_id}
    else:
        header["unsigned"] = True
    if redact:
        header["redacted"] = list(SECRETS)
    yield json.dumps(header) + "\n"
    for r in rows:  # ``json.loads`` may raise on a corrupted row: the route answers 503
        line = {
            "version": r.version,
            "type": r.type,
            "schema": r.schema,
            "recorded_at": r.recorded_at,
            "by": r.actor,
            "data": json.loads(r.data),
            "hash": r.hash,
        }
        data = line["data"]
        hidden = [k for k in SECRETS if isinstance(data, dict) and data.get(k) is not None]
        if redact and hidden:  # the opening's seed and salt, and each deal's seed from them
            line["data"] = {**data, **dict.fromkeys(hidden)}
            line["redacted"] = hidden
        yield canonical_json(line) + "\n"


class BadExport(Exception):
    """A file that is not a readable export; ``line`` is 1-based."""

    def __init__(self, line: int, detail: str) -> None:
        super().__init__(detail)
        self.line, self.detail = line, detail


def parse_export(text: str) -> tuple[dict[str, Any], list[RawRow]]:
    """The header and rows of an export; the chain is checked separately (``check``)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise BadExport(1, "the file is empty")
    try:
        header = load_json(lines[0], line=1)
    except JsonRefused:
        raise  # nested too deep or a key given twice: the client's 400, not a bad export
    except ValueError as error:
        raise BadExport(1, f"line 1 is not JSON: {error}") from None
    if not isinstance(header, dict) or header.get("format") != EXPORT_FORMAT:
        raise BadExport(1, f"line 1 is not a {EXPORT_FORMAT} header")
    if header.get("format_version") != EXPORT_VERSION:
        raise BadExport(1, f"format_version {header.get('format_version')!r} is not supported")
    if not isinstance(header.get("id"), str) or not re.fullmatch("[0-9a-f]{32}", header["id"]):
        raise BadExport(1, "the header names no table id (32 hex digits)")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            item = load_json(line, line=number)
            redacted = item.get("redacted", [])
            if not isinstance(redacted, list) or not all(isinstance(f, str) for f in redacted):
                raise ValueError("'redacted' is not a list of field names")
            rows.append(
                RawRow(
                    item["version"],
                    item["type"],
                    item["schema"],
                    canonical_json(item["data"]),
                    item["recorded_at"],
                    item["hash"],
                    item.get("by"),
                    redacted=tuple(redacted),
                )
            )
        except JsonRefused:
            raise
        except (ValueError, KeyError, TypeError) as error:
            raise BadExport(number, f"line {number} is not an exported event: {error!r}") from None
    announced = header.get("events")
    if type(announced) is not int or announced < 0:
        raise BadExport(1, "the header does not say how many events follow")
    if announced < len(rows):
        raise BadExport(
            announced + 2,
            f"the header announces {announced} events; line {announced + 2} is one too many",
        )
    if announced > len(rows):
        raise BadExport(
            len(rows) + 2,
            f"the header announces {announced} events, the file has {len(rows)}: "
            f"it was cut after line {len(rows) + 1}",
        )
    if rows and header.get("head") != rows[-1].hash:
        raise BadExport(len(rows) + 1, "the last event's hash is not the header's head")
    return header, rows


def check_signature(header: dict[str, Any], trusted: Mapping[str, bytes]) -> Problem | None:
    """Whether one of the ``trusted`` keys (by key id) signed the head this header announces:
    None, or a problem on the header (line 1) coded ``unsigned_export``, ``untrusted_key``
    or ``bad_signature``."""
    signature, key = header.get("signature"), header.get("key_id")
    if signature is None and key is None:
        return Problem(0, "unsigned_export", "the export carries no signature")
    if header.get("unsigned") is True:
        return Problem(0, "bad_signature", "the header says unsigned yet carries a signature")
    if not isinstance(key, str) or key not in trusted:
        return Problem(
            0, "untrusted_key", f"the export is signed by key {key!r}, not a trusted key"
        )
    try:
        raw = signing.parse_signature(signature)
    except ValueError as error:
        return Problem(0, "bad_signature", f"the header's signature is unreadable: {error}")
    stream, version, head = header.get("id"), header.get("events"), header.get("head")
    if not (
        isinstance(stream, str)
        and type(version) is int
        and isinstance(head, str)
        and signing.verify_head(trusted[key], stream, version, head, raw)
    ):
        return Problem(
            0,
            "bad_signature",
            f"key {key}'s signature does not match this table's head (version {version}, "
            f"hash {head}): the file was changed after it was signed",
        )
    return None


def verify_file(text: str, public_key: bytes | None = None) -> tuple[dict[str, Any] | None, Report]:
    """The offline check of an export: readable, chained, accepted by the engine and, given
    the exporting server's ``public_key``, signed by it."""
    try:
        header, rows = parse_export(text)
    except BadExport as bad:
        return None, Report(problems=[Problem(bad.line - 1, "unreadable_export", bad.detail)])
    except JsonRefused as refused:  # nested too deep, or a key given twice
        problem = Problem((refused.line or 1) - 1, refused.code, refused.detail)
        return None, Report(problems=[problem])
    report = check(header["id"], rows)
    if public_key is not None:
        given = signing.key_id(public_key)
        fault = check_signature(header, {given: public_key})
        if fault is not None and fault.code == "untrusted_key":
            fault = Problem(0, fault.code, f"{fault.detail} (the given key is {given})")
        report.problems = [fault, *report.problems] if fault else report.problems
    return header, report
