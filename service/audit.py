"""Auditing stored logs: the hash chain, the engine's re-check, export and import.

The same checks serve ``GET /tables/{id}/verify`` (rows read from the database),
``POST /tables/import`` and the offline ``cardledger verify FILE.jsonl`` (rows read from
an export), so a file that verifies offline imports, and vice versa. Nothing here may
raise on a corrupted row: every fault becomes a problem with its version.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.audit import Problem, recheck
from domain.events import TableOpened
from domain.replay import event_from_json
from service.eventstore import GENESIS, canonical_event, canonical_json, chain_hash

EXPORT_FORMAT = "cardledger-table"
EXPORT_VERSION = 1


@dataclass(frozen=True, slots=True)
class RawRow:
    """A stored event exactly as kept: ``data`` is the stored JSON text."""

    version: Any
    type: Any
    schema: Any
    data: Any
    recorded_at: Any
    hash: Any
    actor: Any = None


@dataclass(slots=True)
class Report:
    events: int = 0
    head: str = GENESIS
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "events": self.events,
            "head": self.head,
            "problems": [p.as_dict() for p in self.problems],
        }


def check(stream: str, rows: Sequence[RawRow], head: tuple[int, str] | None = None) -> Report:
    """Check the chain row by row, then re-decide the whole log with the engine.

    ``head`` is the stream's recorded (version, hash): rows deleted from the end leave a
    valid chain behind, and only the head tells.
    """
    report = Report(events=len(rows))
    previous = GENESIS
    decoded: list[Any] = []
    game_id: str | None = None
    for expected, row in enumerate(rows, start=1):
        if row.version != expected:
            report.problems.append(
                Problem(expected, "missing_event", f"version {expected} is missing")
            )
            break
        try:
            data = json.loads(row.data) if isinstance(row.data, str) else row.data
            canonical = canonical_event(
                stream, row.version, row.type, row.schema, data, row.recorded_at, row.actor
            )
        except (ValueError, TypeError) as error:
            report.problems.append(
                Problem(expected, "unreadable_event", f"version {expected} is not valid: {error}")
            )
            previous = str(row.hash)
            continue
        if chain_hash(previous, canonical) != row.hash:
            report.problems.append(
                Problem(
                    expected,
                    "broken_chain",
                    f"version {expected}'s hash does not match its contents and the "
                    "previous hash: the row was changed after it was recorded",
                )
            )
        previous = str(row.hash)
        try:
            if expected == 1:
                opened = event_from_json("", "TableOpened", data, row.schema)
                game_id = opened.game
                decoded.append(opened)
            else:
                decoded.append(event_from_json(str(game_id), row.type, data, row.schema))
        except Exception as error:  # any shape the decoder cannot read is a finding
            report.problems.append(
                Problem(expected, "undecodable_event", f"version {expected}: {error!r}")
            )
    report.head = previous
    if head is not None and not report.problems and (head[0], head[1]) != (len(rows), previous):
        report.problems.append(
            Problem(
                len(rows) + 1,
                "missing_event",
                f"the stream's head is version {head[0]} but the stored rows end at "
                f"version {len(rows)}: events were removed",
            )
        )
    if not report.problems and decoded and isinstance(decoded[0], TableOpened):
        try:
            report.problems += recheck(decoded[0], decoded[1:])
        except Exception as error:  # a log the engine cannot even replay
            report.problems.append(Problem(len(rows), "replay_failed", repr(error)))
    elif not decoded:
        report.problems.append(Problem(1, "empty_log", "the log has no TableOpened"))
    return report


def export_lines(stream: str, game: str, variant: str, rows: Sequence[RawRow]) -> Iterable[str]:
    """JSON Lines: a header, then one stored event per line with its hash."""
    header = {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_VERSION,
        "id": stream,
        "game": game,
        "variant": variant,
        "events": len(rows),
        "head": rows[-1].hash if rows else GENESIS,
    }
    yield json.dumps(header) + "\n"
    for r in rows:  # ``json.loads`` may raise on a corrupted row: the route answers 503
        yield (
            canonical_json(
                {
                    "version": r.version,
                    "type": r.type,
                    "schema": r.schema,
                    "recorded_at": r.recorded_at,
                    "by": r.actor,
                    "data": json.loads(r.data),
                    "hash": r.hash,
                }
            )
            + "\n"
        )


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
        header = json.loads(lines[0])
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
            item = json.loads(line)
            rows.append(
                RawRow(
                    item["version"],
                    item["type"],
                    item["schema"],
                    canonical_json(item["data"]),
                    item["recorded_at"],
                    item["hash"],
                    item.get("by"),
                )
            )
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


def verify_file(text: str) -> tuple[dict[str, Any] | None, Report]:
    """The offline check of an export: readable, chained, and accepted by the engine."""
    try:
        header, rows = parse_export(text)
    except BadExport as bad:
        return None, Report(problems=[Problem(bad.line - 1, "unreadable_export", bad.detail)])
    return header, check(header["id"], rows)
