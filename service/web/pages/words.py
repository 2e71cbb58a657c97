"""People's words for what the engine and the API say in their own (``docs/api.md``, "Pages
for people"): a page names seats by their people, counts from 1 and says "you" to its
viewer; the API keeps its 0-based seats and its codes.

The rules engines word their refusals for the API ("seat 2 holds red cards and must follow
red"); a page shows the same sentence with names ("you hold red cards and must follow
red"), and a refusal's code stays in the page's markup only (``data-code``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from flask_babel import gettext, lazy_gettext

from service.web import languages

#: What a verb the engines write after "seat N" becomes after "you".
_YOU = {"holds": "hold", "has": "have", "does": "do", "discards": "discard", "is": "are",
        "was": "were", "loads": "load", "plays": "play", "takes": "take"}  # fmt: skip
_SEAT = re.compile(r"\bseat (\d+)('s)?(?: (\w+))?")
_BRACKETED = re.compile(r" \(seat \d+\)")
_NOT_SEAT = re.compile(r"\bnot (\d+)'s\b")  # Bestia's "it is seat 0's turn …, not 2's"


def name_of(seat: int, names: Sequence[str]) -> str:
    """A seat by its person, or "seat N" counted from 1 when it has no name here."""
    return names[seat] if 0 <= seat < len(names) else gettext("seat %(num)s", num=seat + 1)


def seats_in_words(message: str, names: Sequence[str], you: int | None = None) -> str:
    """``message`` with each "seat N" said as its person ("you" for ``you``), and the
    first letter a capital: "seat 2's pile A" → "Your pile A"."""
    text = _BRACKETED.sub("", message)

    def said(found: re.Match[str]) -> str:
        seat, owns, verb = int(found[1]), found[2], found[3]
        mine = seat == you
        if mine:
            who = ("yours" if verb is None else "your") if owns else "you"
        else:
            who = name_of(seat, names) + (owns or "")
        if verb is None:
            return who
        return f"{who} {_YOU.get(verb, verb) if mine and not owns else verb}"

    text = _NOT_SEAT.sub(r"not seat \1's", text)
    text = _SEAT.sub(said, text)
    return text[:1].upper() + text[1:]


def ordinal(n: int) -> str:
    """A place as the page's language writes it: ``1st``, ``11th``; ``1.º``; ``1.``;
    ``1er``, ``2e``."""
    language = languages.current()
    if language == "es":
        return f"{n}.º"
    if language == "fi":
        return f"{n}."
    if language == "fr":
        return f"{n}er" if n == 1 else f"{n}e"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


#: A table's status (and a tournament's: "open" before its first round) as a page says it.
STATUS_WORDS = {"waiting_for_deal": lazy_gettext("waiting for the deal"),
                "in_deal": lazy_gettext("playing"),
                "finished": lazy_gettext("finished"),
                "open": lazy_gettext("open")}  # fmt: skip


def status_words(status: str) -> str:
    said = STATUS_WORDS.get(status)
    return str(said) if said is not None else status.replace("_", " ")


#: A game's word for a deal (``GamePages.deal_word``: "deal"; Oh Quay: "game"), as the pages
#: say it; the templates' words for a deal (``pages/_words.html``) compare with these.
DEAL_WORDS = {"deal": lazy_gettext("deal"), "game": lazy_gettext("game")}


def deal_word(word: str) -> str:
    said = DEAL_WORDS.get(word)
    return str(said) if said is not None else word


#: The bots by name (``domain.bots.BOT_NAMES``), as the pages say them.
BOT_WORDS = {"random": lazy_gettext("random"), "heuristic": lazy_gettext("heuristic"),
             "montecarlo": lazy_gettext("montecarlo")}  # fmt: skip


def bot_word(bot: str) -> str:
    said = BOT_WORDS.get(bot)
    return str(said) if said is not None else bot
