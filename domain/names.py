"""People's and tournaments' names: what a name may be, and when two names look alike.

A name is typed once (on a phone, in a form, by a client of the API) and then read by
everyone: on slips, table pages, standings and hand records. So a name must show itself:

- It is stored as Unicode NFKC (the ligature U+FB01 is ``fi``, a full-width A U+FF21 an
  ``A``), its runs of spaces made one and its ends trimmed: two ways of typing the same
  name give one name.
- No character of it may print as nothing or steer the text around it: control
  characters (Cc: NUL, ESC, newlines), format characters (Cf: zero-width spaces and
  joiners, bidirectional overrides and isolates, the BOM, soft hyphens), the other
  default-ignorable code points (Hangul fillers, variation selectors, tags), line and
  paragraph separators, surrogates, private-use and unassigned code points (this
  Python's Unicode version: nobody can say how they show).
- It needs a visible character, not only spaces, marks or a blank such as U+2800
  BRAILLE PATTERN BLANK, and no letter may carry more than ``MAX_MARKS`` combining marks
  (the "zalgo" text that spills over the lines around it).

Two names *look alike* when their TR39 confusable skeletons are equal (Unicode Technical
Standard #39, section 4) after NFKC and case folding: ``Ann`` written with a Cyrillic A
(U+0410), ``ANN`` and ``Ann`` all read "ann"; ``B0b`` reads as ``Bob``. Names that meet
at one table, in one tournament or among the registered players may not look alike, so
no one can stand in for someone else on a slip or in the standings. The skeleton comes from ICU's
SpoofChecker (PyICU), the maintained implementation of TR39 and its confusables data;
the skeleton is only ever compared, never shown (TR39: it is not a normalisation).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

import icu

from domain.errors import RuleViolation

#: A person's name (a seat, a tournament entry, a registered player) and a tournament's.
MAX_PERSON = 80
MAX_TOURNAMENT = 120
#: Combining marks one letter may carry (Vietnamese writes two, Tibetan stacks a few more).
MAX_MARKS = 6

#: Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt): code points that
#: render as nothing when a font lacks them, whatever their category.
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)  # fmt: skip
#: Characters that print as an empty space without being spaces (Unicode category So).
BLANKS = frozenset({"\u2800"})  # BRAILLE PATTERN BLANK
#: Categories never allowed: control, format, surrogate, private use, unassigned, and line
#: and paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


class NameRefused(RuleViolation):
    """A text that is not a name (``invalid_name``), or a name too like another one
    (``confusable_name``): the message says which character or which name."""


def ignorable(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in DEFAULT_IGNORABLE)


def refused_character(char: str) -> bool:
    """Whether ``char`` may appear nowhere in a name (see the module's list)."""
    return unicodedata.category(char) in REFUSED_CATEGORIES or ignorable(char)


_KINDS = {"Cc": "a control character", "Cs": "a surrogate", "Co": "a private-use character",
          "Cn": "an unassigned code point"}  # fmt: skip


def _shown(char: str) -> str:
    what = unicodedata.name(char, None) or _KINDS.get(unicodedata.category(char), "")
    return f"U+{ord(char):04X} ({what})" if what else f"U+{ord(char):04X}"


def clean(raw: str, max_length: int) -> str:
    """The name ``raw`` stands for (NFKC, one space between words, trimmed), or
    ``NameRefused`` (``invalid_name``) saying why it is not one."""
    if len(raw) > 4 * max_length:  # bound the work before normalising
        raise NameRefused("invalid_name", f"a name has at most {max_length} characters")
    text = unicodedata.normalize("NFKC", raw)
    for char in raw + text:  # the character typed, else the one it normalises to
        if refused_character(char):
            raise NameRefused(
                "invalid_name", f"a name cannot hold {_shown(char)}: it does not show as text"
            )
    name = " ".join(text.split())  # every space left is a Zs: one between words, none at the ends
    if not 1 <= len(name) <= max_length:
        raise NameRefused(
            "invalid_name",
            f"a name has 1 to {max_length} characters (once written in its normal form, "
            f"it has {len(name)})",
        )
    if not any(unicodedata.category(c)[0] in "LNPS" and c not in BLANKS for c in name):
        raise NameRefused("invalid_name", "a name needs a visible letter, digit or sign")
    marks = 0
    for char in name:
        marks = marks + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        if marks > MAX_MARKS:
            raise NameRefused(
                "invalid_name", f"a letter of a name carries at most {MAX_MARKS} marks"
            )
    return name


_SPOOF = icu.SpoofChecker()


def skeleton(name: str) -> str:
    """What ``name`` looks like: equal skeletons, look-alike names.

    NFKC, without default-ignorable code points (TR39's skeleton leaves them out since
    Unicode 15.1), spaces collapsed; then ICU's TR39 skeleton and case folding, repeated
    until nothing changes, since a skeleton may map to an upper-case prototype (``0`` to
    ``O``) that case folding then meets (``B0b`` and ``bob``)."""
    text = unicodedata.normalize("NFKC", name)
    text = " ".join("".join(c for c in text if not ignorable(c)).split())
    for _ in range(4):
        folded = _SPOOF.getSkeleton(0, text).casefold()
        if folded == text:
            break
        text = folded
    return text


def lookalike(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that looks like ``name`` (the same skeleton), if any."""
    mine = skeleton(name)
    return next((other for other in others if skeleton(other) == mine), None)


def confusable(name: str, other: str, where: str) -> NameRefused:
    """The refusal of ``name`` because it looks like ``other`` (``where``: "at this table",
    "in this tournament", "among the registered players")."""
    same = name.casefold() == other.casefold()
    how = "is" if same else "looks like"
    return NameRefused(
        "confusable_name",
        f"{name!r} {how} {other!r}, already {where}: choose a name that reads differently "
        "(add an initial or a surname)",
    )


__all__ = [
    "MAX_PERSON",
    "MAX_TOURNAMENT",
    "NameRefused",
    "clean",
    "confusable",
    "lookalike",
    "refused_character",
    "skeleton",
]
