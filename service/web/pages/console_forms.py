"""What the organiser's console forms are made of, read from the game registry.

Every rule option a game declares (``GameSpec.options``, ``domain.games.options``)
becomes one form field: a choice between its words, true/false, or a whole number (a
choice of seats where the game allows only some), its default preselected. A form's text
comes back as the JSON body ``POST /tables`` and ``POST /tournaments`` take, so the
console checks it with the same schemas and commands.
Reading a form only turns text into JSON types (a whole number from ASCII digits, a flag
from "true" or "false"); what is allowed is the schemas' and the rules' to say.

How long a default match runs comes from figures measured once, by random bots, and kept
here (``DEFAULT_DEALS``): the form plays nothing while a person waits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask_babel import gettext, lazy_gettext, ngettext

from domain.bots import BOT_NAMES
from domain.games import SPECS, game
from domain.games.options import Option
from domain.games.registry import GameSpec
from service.web.pages.words import bot_word

#: Each rule option's name as a form's label says it (the field keeps the option's name).
OPTION_LABELS = {
    "ante": lazy_gettext("ante"),
    "deck": lazy_gettext("deck"),
    "first_dealer": lazy_gettext("first dealer"),
    "first_player": lazy_gettext("first player"),
    "max_exchange": lazy_gettext("max exchange"),
    "max_turns": lazy_gettext("max turns"),
    "multiple_bestia": lazy_gettext("multiple bestia"),
    "must_undertrump": lazy_gettext("must undertrump"),
    "panfilo": lazy_gettext("panfilo"),
    "panfilo_bonus": lazy_gettext("panfilo bonus"),
    "trick_pay": lazy_gettext("trick pay"),
}


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
        said = OPTION_LABELS.get(self.name)
        return str(said) if said is not None else self.name.replace("_", " ")


def _form_value(value: object) -> str:
    """A value as a form sends it: ``true``, ``short``, ``4``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


#: What a default that is not a value means (``Option.default_words``), in the viewer's language.
_DEFAULT_WORDS = {"the table's first_dealer": lazy_gettext("the table's first_dealer")}


def option_field(option: Option) -> OptionField:
    """A declared option (``domain.games.options``) as a form field, in the viewer's
    language (what it takes as the rules page says it)."""
    from service.web.pages.rules import takes_words  # the rules page imports the games

    kind = {"bool": "bool", "choice": "choice"}.get(option.type, "int")
    choices = ("true", "false") if kind == "bool" else tuple(map(_form_value, option.choices))
    default = "" if option.default is None else _form_value(option.default)
    said = _DEFAULT_WORDS.get(option.default_text)
    default_text = str(said) if said is not None else option.default_text
    return OptionField(option.name, takes_words(option), kind, choices, default, default_text)


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
                errors[f.name] = gettext(
                    "%(option)s takes %(takes)s", option=f.label, takes=f.takes
                )
                continue
            options[f.name] = raw == "true"
        elif f.kind == "int":
            if not _is_whole(raw):
                errors[f.name] = gettext(
                    "%(option)s takes %(takes)s", option=f.label, takes=f.takes
                )
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
        errors[name] = gettext("a whole number, in the digits 0 to 9")
        return None
    return int(raw)


# --- seats of a table ----------------------------------------------------------------------

SEAT_KINDS = ("person", "player", *(f"bot:{name}" for name in BOT_NAMES), "empty")


_SEAT_KIND_WORDS = {"person": lazy_gettext("person"), "player": lazy_gettext("registered player"),
                    "empty": lazy_gettext("no seat")}  # fmt: skip


def seat_kind_label(kind: str) -> str:
    if kind.startswith("bot:"):
        return gettext("bot: %(bot)s", bot=bot_word(kind[4:]))
    return str(_SEAT_KIND_WORDS[kind])


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
            errors[f"seat-{i}"] = gettext("choose who sits here")
            continue
        if kind == "empty":
            continue
        if kind.startswith("bot:"):
            seats.append({"bot": kind[4:]})
        elif not who:
            asked = (
                gettext("type a name") if kind == "person" else gettext("type the player's name")
            )
            errors[f"seat-{i}"] = asked
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
        "language": form.get("language") or None,
    }
    for name in ("target_score", "max_deals"):
        value = whole(form, name, errors)
        if value is not None:
            body[name] = value
    if form.get("seed", "").strip():
        body["seed"] = form["seed"].strip()
    return body, errors


# --- how long a default match runs --------------------------------------------------------

#: The median number of deals of each default match played to a target (The Bottle Imp's
#: first to 200), by game, variant and table size: measured once and kept here, so no form
#: plays a match while a person waits. Measured with ``domain.bots.simulate.play_match``:
#: 101 matches between random bots per line (``Simulation(game, ("random",) * n, 101,
#: "default-match-lengths", variant)``, counting ``DealStarted``), quartiles in the
#: comments. A default match of a set number of deals needs no figure.
DEFAULT_DEALS: dict[tuple[str, str, int], int] = {
    ("bottle-imp", "standard", 3): 7,  # quartiles 5.5 and 8, from 4 to 10
    ("bottle-imp", "standard", 4): 9,  # 8 and 10, from 5 to 13
    ("bottle-imp", "lopaka", 2): 9,  # 7 and 10, from 5 to 14
    ("bottle-imp", "bright-house", 2): 8,  # 6 and 9, from 4 to 13
}


def default_deals(game_id: str, variant: str, players: int) -> int | None:
    """How many deals the game's default match runs: its number of deals, or the measured
    median of a match to a target (``None`` where nobody measured it)."""
    match = game(game_id).default_match(players)
    if match.target_score is None and match.max_deals is not None:
        return match.max_deals
    return DEFAULT_DEALS.get((game_id, variant, players))


@dataclass(frozen=True, slots=True)
class DefaultMatch:
    variant: str
    players: int
    target_score: int | None
    max_deals: int | None
    deals: int | None

    @property
    def text(self) -> str:
        if self.target_score is None:
            return ngettext("%(num)s deal", "%(num)s deals", self.max_deals or 0)
        said = gettext("first to %(target)s", target=self.target_score)
        if self.max_deals:
            said += ngettext(", at most %(num)s deal", ", at most %(num)s deals", self.max_deals)
        if self.deals:
            said += ngettext(": about %(num)s deal", ": about %(num)s deals", self.deals)
        return said


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
    "DEFAULT_DEALS",
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
