"""The name rule (``domain.names``): what a name may be, and when two names look alike."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.names import (
    MAX_PERSON,
    NameRefused,
    clean,
    lookalike,
    refused_character,
    skeleton,
)
from service.web.schemas.common import NAME_PATTERN

CYRILLIC_A = "\u0410"


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("  Ann   Lee ", "Ann Lee"),  # one space between words, none at the ends
        ("\uff21nn", "Ann"),  # a full-width A is an A (NFKC)
        ("\ufb01n", "fin"),  # the ligature is two letters
        ("Ju\u0308rgen", "J\u00fcrgen"),  # composed
        ("Ann\u00a0Lee", "Ann Lee"),  # a no-break space is a space
        ("Zoë", "Zoë"),
        ("李小龍", "李小龍"),
    ],
)
def test_a_name_is_stored_in_its_normal_form(typed: str, stored: str) -> None:
    assert clean(typed, MAX_PERSON) == stored


@pytest.mark.parametrize(
    "typed",
    [
        "Ann\x00",  # NUL
        "\x1b[2JAnn",  # ESC
        "Ann\nLee",
        "\u202eAnn",  # right-to-left override
        "Ann\u2066",  # a bidi isolate
        "Ann\u200b",  # zero-width space
        "A\u200dnn",  # zero-width joiner
        "\ufeffAnn",  # BOM
        "\u3164",  # Hangul filler, alone
        "\u115f\u1160",
        "\u2800",  # braille blank
        "\u2800 \u3000",
        "   ",
        "\u0301\u0301",  # marks without a letter
        "Ann\ue000",  # private use
        "Ann\U000e0041",  # a tag character
        "Ann\U000effff",  # unassigned
        "x" + "\u0301\u0302\u0303\u0304\u0306\u0307\u0308",  # seven marks on one letter
        "x" * (MAX_PERSON + 1),
        "\ufdfa" * 10,  # 10 characters, 180 once normalised
        "x" * 100_000,
    ],
)
def test_what_is_not_a_name(typed: str) -> None:
    with pytest.raises(NameRefused) as refused:
        clean(typed, MAX_PERSON)
    assert refused.value.code == "invalid_name"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (f"{CYRILLIC_A}nn", "Ann"),
        ("ann", "Ann"),
        ("ANN", "Ann"),
        ("B0b", "Bob"),
        ("AI", "Al"),
        ("rn", "m"),
        ("\uff21nn", "Ann"),
        ("Ann\u200b", "Ann"),  # an invisible character changes nothing it looks like
        ("Ann  Lee", "Ann Lee"),
    ],
)
def test_names_that_look_alike(one: str, other: str) -> None:
    assert skeleton(one) == skeleton(other)
    assert lookalike(one, ["Cy", other, "Di"]) == other


@pytest.mark.parametrize(("one", "other"), [("Ann", "Anne"), ("Bo", "Bob"), ("Ann", "Anna")])
def test_names_that_do_not(one: str, other: str) -> None:
    assert lookalike(one, [other]) is None


PATTERN = re.compile(NAME_PATTERN.removeprefix("^").removesuffix("$"))


def test_the_published_pattern_refuses_every_refused_character_it_can_name() -> None:
    """Every assigned character of the Basic Multilingual Plane the rule refuses anywhere
    is outside the spec's pattern too, so a client checking the pattern is not told yes
    where the server says no (beyond what the pattern cannot say: ``invalid_name``, which
    refuses unassigned code points and lone surrogates)."""
    missed = [
        f"U+{code:04X}"
        for code in range(0x10000)
        if refused_character(chr(code))
        and unicodedata.category(chr(code)) not in ("Cn", "Cs")
        and PATTERN.fullmatch(f"A{chr(code)}")
    ]
    assert missed == []


@given(st.text(max_size=MAX_PERSON))
def test_a_clean_name_is_clean_again_and_matches_the_pattern(typed: str) -> None:
    try:
        name = clean(typed, MAX_PERSON)
    except NameRefused:
        return
    assert clean(name, MAX_PERSON) == name
    assert PATTERN.fullmatch(name)
    assert skeleton(name) == skeleton(typed)
