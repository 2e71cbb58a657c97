"""What the organiser's console forms are made of, read from the game registry.

Every rule option a game declares (``GameSpec.options``, ``domain.games.options``)
becomes one form field: a choice between its words, true/false, or a whole number (a
choice of seats where the game allows only some), its default preselected. A form's text
comes back as the JSON body ``POST /tables`` and ``POST /tournaments`` take, so the
console checks it with the same schemas and commands.
Reading a form only turns text into JSON types (a whole number from ASCII digits, a flag
from "true" or "false"); what is allowed is the schemas' and the rules' to say.

How long a default match runs is measured once per game, variant and table size by a
short simulation between random bots (``domain.bots.simulate``), and remembered.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.bots import BOT_NAMES, bot
from domain.bots.simulate import Simulation, play_match
from domain.events import event_type
from domain.games import SPECS, Rules, game
from domain.games.options import Option
from domain.games.registry import GameSpec

#: Matches a default-length measurement plays (random bots: a few hundredths of a second each).
SAMPLE_MATCHES = 9


@dataclass(frozen=True, slots=True)
class OptionField:
    """One rule option as a form field. ``kind`` is ``choice`` (``choices``), ``bool`` or
    ``int``; ``default`` is the value as a form sends it ('' when the default is not a
    value, such as Oh Quay's ``first_player``: then ``default_text`` says what it is)."""

    name: str
    takes: str
    kind: str
    choices: tuple[str, ...]
    default: str
    default_text: str

    @property
    def label(self) -> str:
        return self.name.replace("_", " ")


def _form_value(value: object) -> str:
    """A value as a form sends it: ``true``, ``short``, ``4``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def option_field(option: Option) -> OptionField:
    """A declared option (``domain.games.options``) as a form field."""
    kind = {"bool": "bool", "choice": "choice"}.get(option.type, "int")
    choices = ("true", "false") if kind == "bool" else tuple(map(_form_value, option.choices))
    default = "" if option.default is None else _form_value(option.default)
    return OptionField(option.name, option.takes, kind, choices, default, option.default_text)


def option_fields(spec: GameSpec) -> list[OptionField]:
    """The form fields of every option the game declares, in the declared order."""
    return [option_field(option) for option in spec.options.values()]


def read_options(
    spec: GameSpec, form: Mapping[str, str], prefix: str = "opt-"
) -> tuple[dict[str, Any], dict[str, str]]:
    """The options a form gives (blank: the game's default, left out), as JSON values, and
    an error per field whose text is not of the option's kind."""
    options: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for f in option_fields(spec):
        raw = form.get(prefix + f.name, "").strip()
        if raw == "":
            continue
        if f.kind == "bool":
            if raw not in ("true", "false"):
                errors[f.name] = f"{f.label} takes {f.takes}"
                continue
            options[f.name] = raw == "true"
        elif f.kind == "int":
            if not _is_whole(raw):
                errors[f.name] = f"{f.label} takes {f.takes}"
                continue
            options[f.name] = int(raw)
        else:
            options[f.name] = raw
    return options, errors


#: The most digits a whole number of a form may have: few enough to read at once; how
#: large it may be is the schema's to say.
MAX_DIGITS = 30


def _is_whole(raw: str) -> bool:
    """A whole number as a form sends it: ASCII digits (not "²", not "٣") after a sign."""
    digits = raw[1:] if raw[:1] in ("+", "-") else raw
    return 1 <= len(digits) <= MAX_DIGITS and digits.isascii() and digits.isdigit()


def whole(form: Mapping[str, str], name: str, errors: dict[str, str]) -> int | None:
    """A whole-number field; blank is ``None``."""
    raw = form.get(name, "").strip()
    if raw == "":
        return None
    if not _is_whole(raw):
        errors[name] = "a whole number, in the digits 0 to 9"
        return None
    return int(raw)


# --- seats of a table ----------------------------------------------------------------------

SEAT_KINDS = ("person", "player", *(f"bot:{name}" for name in BOT_NAMES), "empty")


def seat_kind_label(kind: str) -> str:
    if kind.startswith("bot:"):
        return f"bot: {kind[4:]}"
    return {"person": "person", "player": "player id", "empty": "no seat"}[kind]


def max_seats(spec: GameSpec) -> int:
    return max(n for counts in spec.players.values() for n in counts)


def read_seats(form: Mapping[str, str], count: int) -> tuple[list[dict[str, str]], dict[str, str]]:
    """The seats the form fills, in order (rows left empty are skipped)."""
    seats: list[dict[str, str]] = []
    errors: dict[str, str] = {}
    for i in range(count):
        kind = form.get(f"seat-{i}-kind", "empty")
        who = form.get(f"seat-{i}-who", "").strip()
        if kind not in SEAT_KINDS:
            errors[f"seat-{i}"] = "choose who sits here"
            continue
        if kind == "empty":
            continue
        if kind.startswith("bot:"):
            seats.append({"bot": kind[4:]})
        elif not who:
            errors[f"seat-{i}"] = "type a name" if kind == "person" else "type the player's id"
        else:
            seats.append({"name": who} if kind == "person" else {"player_id": who})
    return seats, errors


def table_body(spec: GameSpec, form: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The new-table form as ``POST /tables``'s body, and the fields it could not read."""
    options, errors = read_options(spec, form)
    seats, seat_errors = read_seats(form, max_seats(spec))
    errors.update(seat_errors)
    target = whole(form, "target_score", errors)
    deals = whole(form, "max_deals", errors)
    dealer = whole(form, "first_dealer", errors)
    body: dict[str, Any] = {
        "game": spec.id,
        "variant": form.get("variant") or spec.default_variant,
        "seats": seats,
        "rules": {**options, **({"first_dealer": dealer} if dealer is not None else {})},
    }
    if target is not None:
        body["target_score"] = target
    if deals is not None:
        body["max_deals"] = deals
    if form.get("seed", "").strip():
        body["seed"] = form["seed"].strip()
    return body, errors


def tournament_body(
    spec: GameSpec, form: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The new-tournament form as ``POST /tournaments``'s body, and the fields it could
    not read."""
    options, errors = read_options(spec, form)
    body: dict[str, Any] = {
        "name": form.get("name", ""),
        "game": spec.id,
        "variant": form.get("variant") or spec.default_variant,
        "rules": options,
        "table_size": whole(form, "table_size", errors),
        "pairing": form.get("pairing") or "swiss",
        "fill_with_bots": "random" if form.get("fill_with_bots") else None,
        "rounds": whole(form, "rounds", errors),
    }
    for name in ("target_score", "max_deals"):
        value = whole(form, name, errors)
        if value is not None:
            body[name] = value
    if form.get("seed", "").strip():
        body["seed"] = form["seed"].strip()
    return body, errors


# --- how long a default match runs --------------------------------------------------------


class _CountingDeals:
    """A game's rules that count the deals a simulated match deals."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.deals = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)

    def evolve(self, state: Any, event: Any) -> Any:
        if self.rules.spec.landmarks.starts_deal(event_type(event)):
            self.deals += 1
        return self.rules.evolve(state, event)


_LENGTHS: dict[tuple[str, str, int], int] = {}
_LOCK = threading.Lock()


def default_deals(game_id: str, variant: str, players: int) -> int:
    """The median number of deals of the game's default match between random bots (the
    exact number when the default match is a number of deals), measured once."""
    key = (game_id, variant, players)
    with _LOCK:
        if key in _LENGTHS:
            return _LENGTHS[key]
    rules = game(game_id)
    match = rules.default_match(players)
    if match.target_score is None and match.max_deals is not None:
        deals = match.max_deals
    else:
        sim = Simulation(game_id, ("random",) * players, SAMPLE_MATCHES, "console", variant)
        bots = [bot("random") for _ in range(players)]
        counts = []
        for i in range(SAMPLE_MATCHES):
            counting = _CountingDeals(rules)
            play_match(counting, sim.table(i), bots)  # type: ignore[arg-type]
            counts.append(counting.deals)
        deals = round(statistics.median(counts))
    with _LOCK:
        _LENGTHS[key] = deals
    return deals


@dataclass(frozen=True, slots=True)
class DefaultMatch:
    variant: str
    players: int
    target_score: int | None
    max_deals: int | None
    deals: int

    @property
    def text(self) -> str:
        if self.target_score is None:
            return f"{self.max_deals} deals"
        until = f"first to {self.target_score}"
        cap = f", at most {self.max_deals} deals" if self.max_deals else ""
        return f"{until}{cap}: about {self.deals} deals"


def default_matches(spec: GameSpec) -> list[DefaultMatch]:
    """The default match of each variant and table size, with its typical length."""
    rules = game(spec.id)
    out = []
    for variant in spec.variants:
        for players in spec.players[variant]:
            match = rules.default_match(players)
            out.append(
                DefaultMatch(
                    variant,
                    players,
                    match.target_score,
                    match.max_deals,
                    default_deals(spec.id, variant, players),
                )
            )
    return out


def table_sizes(spec: GameSpec) -> list[int]:
    """The seats per table any variant of the game takes, house seats not counted."""
    return sorted({n for counts in spec.players.values() for n in counts})


__all__ = [
    "SEAT_KINDS",
    "SPECS",
    "DefaultMatch",
    "OptionField",
    "default_deals",
    "default_matches",
    "max_seats",
    "option_fields",
    "read_options",
    "read_seats",
    "seat_kind_label",
    "table_body",
    "table_sizes",
    "tournament_body",
    "whole",
]
