"""Declared table options (``domain/games/options.py``): what each type takes, in words and
in values; a declaration that contradicts itself is refused; every game validates a
table's ``rules`` through its declarations (``unknown_option``, ``invalid_option``), and
every default a game declares is the one its engine applies."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import RuleViolation
from domain.games import SPECS, game
from domain.games.options import COMMON, FIRST_DEALER, Option, check, declared, with_defaults
from domain.games.registry import GameSpec
from domain.table import SeatSpec, Table

SPEC_LIST = list(SPECS.values())
ALL_OPTIONS = [(s, o) for s in SPEC_LIST for o in s.options.values()]
OPTION_IDS = [f"{s.id}-{o.name}" for s, o in ALL_OPTIONS]


def table_of(s: GameSpec, options: dict[str, Any]) -> Table:
    variant = s.default_variant
    seats = tuple(SeatSpec(name=f"P{i}") for i in range(s.players[variant][0]))
    players = len(seats)
    return Table(s.id, variant, seats, s.rules.default_match(players), "opts", 0, options)


def test_what_each_type_takes_in_words_and_values() -> None:
    deck = Option("deck", "choice", "short", "Cards in play.", choices=("short", "full"))
    ante = Option("ante", "int", 2, "Chips.", minimum=0, unit="chips")
    turns = Option("max_turns", "int", 200, "Turns.", minimum=1, unit="turns")
    limit = Option("max_exchange", "int", 4, "Cards.", minimum=0, maximum=5)
    flag = Option("panfilo", "bool", True, "JC.")
    first = Option("first_player", "seat", None, "Starts.", choices=(0, 1), default_words="x")
    assert [o.takes for o in (deck, ante, turns, limit, flag, first, FIRST_DEALER)] == [
        "'short' or 'full'",
        "a whole number of chips, 0 or more",
        "a whole number of turns, at least 1",
        "a whole number from 0 to 5",
        "true or false",
        "seat 0 or 1",
        "a seat number of the table",
    ]
    assert deck.allows("full") and not deck.allows("long") and not deck.allows(1)
    assert ante.allows(0) and not ante.allows(-1) and not ante.allows(True)
    assert not ante.allows(1.5) and not ante.allows("2")
    assert limit.allows(5) and not limit.allows(6)
    assert flag.allows(False) and not flag.allows(0) and not flag.allows("true")
    assert first.allows(1) and not first.allows(2) and not first.allows(None)
    assert FIRST_DEALER.allows(7) and not FIRST_DEALER.allows(-1)
    assert (deck.default_text, flag.default_text, first.default_text) == ("'short'", "true", "x")


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"type": "int", "default": None}, "a default, or words for it"),
        ({"type": "choice", "default": "a"}, "between words"),
        ({"type": "choice", "default": 1, "choices": (1, 2)}, "between words"),
        ({"type": "choice", "default": "c", "choices": ("a", "b")}, "not allowed"),
        ({"type": "int", "default": -1, "minimum": 0}, "not allowed"),
        ({"type": "bool", "default": 1}, "not allowed"),
    ],
)
def test_a_declaration_that_contradicts_itself_is_refused(kwargs: Any, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        Option("x", help="", **kwargs)


def test_an_option_declared_twice_is_refused() -> None:
    flag = Option("panfilo", "bool", True, "JC.")
    with pytest.raises(ValueError, match="twice"):
        declared(flag, flag)


def test_check_names_the_option_and_the_value() -> None:
    options = declared(Option("ante", "int", 2, "Chips.", minimum=0, unit="chips"))
    check("Bestia", options, {"ante": 0})
    with pytest.raises(RuleViolation) as unknown:
        check("Bestia", options, {"antee": 2})
    assert unknown.value.code == "unknown_option"
    assert unknown.value.message == "Bestia has no rule option 'antee'; its options are ante"
    with pytest.raises(RuleViolation) as none:
        check("The Bottle Imp", declared(), {"jokers": True})
    assert none.value.message == "The Bottle Imp has no rule option 'jokers'"
    with pytest.raises(RuleViolation) as bad:
        check("Bestia", options, {"ante": -1})
    assert bad.value.code == "invalid_option"
    assert (
        bad.value.message == "option ante cannot be -1: it takes a whole number of chips, 0 or more"
    )
    assert with_defaults(options, {}) == {"ante": 2}


def test_first_dealer_is_every_games_and_no_game_declares_it_again() -> None:
    assert list(COMMON) == ["first_dealer"]
    for s in SPEC_LIST:
        assert not set(s.options) & set(COMMON), s.id


def values_refused(option: Option) -> list[Any]:
    """Values of the wrong type, and of the right type but out of the option's reach."""
    wrong = [None, [], 1.5, "2" if option.type != "choice" else 2]
    if option.type == "bool":
        return [*wrong, 0, 1, "true"]
    if option.type == "choice":
        return [*wrong, True, "".join(map(str, option.choices))]
    out = [*wrong, True]
    if option.choices:
        out.append(max(int(c) for c in option.choices) + 1)
    if option.minimum is not None:
        out.append(option.minimum - 1)
    if option.maximum is not None:
        out.append(option.maximum + 1)
    return out


def values_taken(option: Option) -> list[Any]:
    if option.type == "bool":
        return [True, False]
    if option.choices:
        return list(option.choices)
    return [v for v in (option.minimum, option.maximum, option.default) if v is not None]


@pytest.mark.parametrize(("s", "option"), ALL_OPTIONS, ids=OPTION_IDS)
def test_every_game_validates_through_its_declared_options(s: GameSpec, option: Option) -> None:
    rules = game(s.id)
    for value in values_taken(option):
        rules.check_options(table_of(s, {option.name: value}))
        assert rules.initial_state(table_of(s, {option.name: value})) is not None
    for value in values_refused(option):
        with pytest.raises(RuleViolation) as refused:
            rules.check_options(table_of(s, {option.name: value}))
        assert refused.value.code == "invalid_option", (option.name, value)
        assert option.name in refused.value.message and repr(value) in refused.value.message


@pytest.mark.parametrize("s", SPEC_LIST, ids=lambda s: s.id)
def test_an_undeclared_option_is_unknown(s: GameSpec) -> None:
    with pytest.raises(RuleViolation) as refused:
        game(s.id).check_options(table_of(s, {"house_rule": 1}))
    assert refused.value.code == "unknown_option" and "house_rule" in refused.value.message


@pytest.mark.parametrize("s", SPEC_LIST, ids=lambda s: s.id)
def test_every_declared_default_is_the_engines(s: GameSpec) -> None:
    """A table given each option at its declared default starts exactly as one given none:
    the declarations (read by the pages and the API's schema) say what the engine does."""
    rules = game(s.id)
    defaults = {n: o.default for n, o in s.options.items() if o.default is not None}
    given = rules.initial_state(table_of(s, defaults))
    left_out = rules.initial_state(table_of(s, {}))
    assert given._replace(table=None) == left_out._replace(table=None)
    for name, option in s.options.items():
        if option.default is None or option.type == "bool":
            continue
        other = next((v for v in values_taken(option) if v != option.default), None)
        if other is not None:  # and the option is not inert: another value changes the state
            changed = rules.initial_state(table_of(s, {name: other}))
            assert changed._replace(table=None) != left_out._replace(table=None), name
