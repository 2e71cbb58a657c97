"""Auditing a table from its log alone: re-decide every recorded action, and tell the
story of one deal.

``recheck`` does not trust the log: for each event that records an action it asks the
engine to decide that action again in the state before it, and compares what the engine
produces (including the events it causes by itself) with what was recorded. A seeded
deal is re-dealt from the table's deal key ``"{salt}:{seed}"`` (``docs/rules/common.md``,
"Deterministic shuffling", rule 1; the bare seed in a log without a salt), so a stacked
deck shows as a mismatch.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from domain.errors import RuleViolation
from domain.events import TableOpened, event_type, to_data
from domain.games import game
from domain.rulings import Adjust
from domain.shuffle import is_salt
from domain.table import ORGANISER, Viewer


@dataclass(frozen=True, slots=True)
class Problem:
    version: int
    code: str
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {"version": self.version, "code": self.code, "detail": self.detail}


def recheck(opened: TableOpened, events: Sequence[Any]) -> list[Problem]:
    """Problems found re-deciding ``events`` (those after ``TableOpened``, version 2 on).

    Stops at the first problem: every later state would rest on an event the engine
    does not accept.
    """
    if opened.salt is not None and not is_salt(opened.salt):
        return [Problem(1, "bad_salt", "a table's salt is 32 lower-case hex digits")]
    try:
        rules = game(opened.game)
        state = rules.initial_state(opened.table())
    except RuleViolation as error:
        return [Problem(1, "rejected", f"the table cannot be opened: {error.message}")]
    i = 0
    while i < len(events):
        version, event = i + 2, events[i]
        action = rules.action_of(event, state)
        if action is None:
            return [
                Problem(
                    version,
                    "unexpected_event",
                    f"{event_type(event)} at version {version} follows from no recorded action",
                )
            ]
        try:
            produced = rules.decide(state, action)
        except RuleViolation as error:
            return [
                Problem(
                    version,
                    "rejected",
                    f"the engine refuses the {event_type(event)} at version {version}: "
                    f"{error.message} ({error.code})",
                )
            ]
        recorded = list(events[i : i + len(produced)])
        if produced != recorded:
            at = next(
                (j for j, (p, r) in enumerate(zip(produced, recorded, strict=False)) if p != r),
                len(recorded),
            )
            wanted = event_type(produced[at]) if at < len(produced) else "nothing"
            found = event_type(recorded[at]) if at < len(recorded) else "the end of the log"
            return [
                Problem(
                    version + at,
                    "mismatch",
                    f"at version {version + at} the engine produces {wanted} "
                    f"{_data(produced, at)} where the log has {found} {_data(recorded, at)}",
                )
            ]
        for e in produced:
            state = rules.evolve(state, e)
        i += len(produced)
    return []


def _data(events: Sequence[Any], i: int) -> str:
    return str(to_data(events[i])) if i < len(events) else ""


def deal_history(
    opened: TableOpened,
    events: Sequence[Any],
    deal: int,
    viewer: Viewer,
    actors: Sequence[str | None] | None = None,
) -> dict[str, Any] | None:
    """Deal ``deal`` as ``viewer`` may see it: the dealt cards, every event in order with
    the seat's legal alternatives before each of its actions, tricks and score lines.

    ``events`` are the log after ``TableOpened`` (version 2 on); ``actors`` who recorded
    each (``organiser``, ``seat N``, ``engine``) when the store knows. Hidden cards stay hidden
    until the deal is scored, except to the organiser; so do another seat's
    alternatives, which would reveal its hand.
    """
    rules = game(opened.game)
    marks = rules.spec.landmarks
    shown = rules.visible_events([opened, *events], viewer)[1:]
    state = rules.initial_state(opened.table())
    current = 0
    entries: list[dict[str, Any]] = []
    start: Any = None
    scored = False
    for i, event in enumerate(events):
        kind = event_type(event)
        if marks.starts_deal(kind):
            current = event.deal
        if current == deal:
            if marks.starts_deal(kind):
                start = shown[i]
            if marks.scores_deal(kind):
                scored = True
            action = rules.action_of(event, state)
            seat = getattr(event, "seat", None)
            entry = {
                "version": i + 2,
                "type": kind,
                "seat": seat,
                "by": actors[i] if actors and actors[i] else _actor(action, seat),
                "data": to_data(shown[i]),
            }
            if action is not None and isinstance(seat, int):
                entry["legal"] = _alternatives(rules, state, seat, action)
            entries.append(entry)
        elif current > deal:
            break
        state = rules.evolve(state, event)
    if start is None:
        return None
    everyone = scored or viewer == ORGANISER
    for entry in entries:
        if "legal" in entry and not (everyone or entry["seat"] == viewer):
            entry["legal"] = None
    return {
        "deal": deal,
        "dealer": getattr(start, "dealer", getattr(start, "starter", None)),
        "scored": scored,
        "dealt": to_data(start),
        "events": entries,
        "tricks": [e["data"] for e in entries if marks.completes_trick(e["type"])],
        "score": next((e["data"] for e in entries if marks.scores_deal(e["type"])), None),
    }


def _actor(action: Any, seat: int | None) -> str:
    if action is None:
        return "engine"
    if type(action) is Adjust:  # only the organiser rules
        return "organiser"
    return "organiser" if seat is None else f"seat {seat}"


def _alternatives(rules: Any, state: Any, seat: int, action: Any) -> list[dict[str, Any]]:
    """The bodies of the same kind of action the seat could have taken instead."""
    kind = type(action)
    options = [a for a in rules.legal_actions(state, seat)[:200] if type(a) is kind]
    return [rules.body(a) for a in options]


def _same(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class RecordWords:
    """The words a hand record says around its notation, each a whole line's wording (so a
    language places its own punctuation): English by default, as the API gives it; a page
    passes its language's. The notation itself (event types, fields, cards) stays as the
    log has it, as in the JSON."""

    heading: Callable[[str, int, str], str] = lambda table, deal, dealer: (
        f"Table {table}, deal {deal} (dealer: {dealer})"
    )
    heading_in_progress: Callable[[str, int, str], str] = lambda table, deal, dealer: (
        f"Table {table}, deal {deal} (dealer: {dealer}), in progress"
    )
    dealer: Callable[[int | None], str] = lambda seat: f"seat {seat}"
    dealt: Callable[[str], str] = lambda cards: f"Dealt: {cards}"
    could: Callable[[str], str] = lambda choices: f"[could: {choices}]"
    score: Callable[[str], str] = lambda score: f"Score: {score}"
    #: who recorded an event, from the log's ``by`` (``seat 2``, ``organiser``, ``engine``)
    actor: Callable[[str], str] = _same


#: The API's hand record.
ENGLISH = RecordWords()


def deal_text(table_id: str, history: dict[str, Any], words: RecordWords = ENGLISH) -> str:
    """A plain-text hand record, one line per event, in ``words`` (English: the API's)."""
    heading = words.heading if history["scored"] else words.heading_in_progress
    lines = [
        heading(table_id, history["deal"], _text(words.dealer(history["dealer"]))),
        words.dealt(_fmt(history["dealt"])),
        "",
    ]
    for e in history["events"]:
        who = _text(words.actor(e["by"]))
        line = f"v{e['version']:<5} {who:<10} {e['type']:<16} {_fmt(e['data'])}"
        if e.get("legal"):
            line += "   " + words.could(_choices(e["legal"]))
        lines.append(line)
    if history["score"] is not None:
        lines += ["", words.score(_fmt(history["score"]))]
    return "\n".join(lines) + "\n"


def _fmt(data: Any) -> str:
    if isinstance(data, dict):
        return ", ".join(f"{_text(k)}={_fmt(v)}" for k, v in data.items())
    if isinstance(data, list):
        return "[" + " ".join(_fmt(v) for v in data) + "]"
    return "?" if data is None else _text(str(data))


def _text(value: str) -> str:
    """Free text (an adjustment's reason, a name) kept on its line of the hand record: a
    backslash, and every character that could end a line, move the cursor or turn the
    text around (Unicode's control, format and separator characters: newlines, ESC, bidi
    overrides), written as an escape (``\\n``, ``\\x1b``, ``\\u202e``), so no
    text can forge a line of the record."""
    return "".join(_ESCAPES.get(c) or (_escaped(c) if _hidden(c) else c) for c in value)


_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs")


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else (
        f"\\U{code:08x}")  # fmt: skip


def _choices(bodies: list[dict[str, Any]]) -> str:
    keys = ("card", "left", "right", "opponent", "call", "discard", "from", "position", "count",
            "keep")  # fmt: skip
    parts = []
    for b in bodies[:40]:
        parts.append("/".join(_fmt(b[k]) for k in keys if k in b) or b["type"])
    more = f" …+{len(bodies) - 40}" if len(bodies) > 40 else ""
    return " ".join(parts) + more
