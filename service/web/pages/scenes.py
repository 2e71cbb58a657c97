"""A table drawn as a *scene*: labelled piles of cards per seat and in the middle.

A scene is built from ``game(id).view(state, viewer)`` and from nothing else, so a page
shows exactly what the API shows that viewer: a card the view hides (``None``) becomes a
face-down back, and a pile the view withholds is not drawn at all. The table page renders
one scene with Jinja; the replay page embeds one per step as JSON and draws it in the
browser with the same structure. Each game builds its own scene in its module
(``service/web/pages/games/<game>.py``) from the pieces here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask_babel import gettext, lazy_gettext

from domain.games import SPECS
from service.web.pages.cards import Card, cards_in
from service.web.pages.words import bot_word

View = Mapping[str, Any]


@dataclass(slots=True)
class Slot:
    """One place for a card: ``card`` is ``None`` for a face-down back."""

    card: Card | None
    by: str = ""  # who played it, in a trick
    mark: str = ""  # CSS classes: played, legal, winner, kept, taken

    def json(self) -> Card | dict[str, Any] | None:
        """The bare card when nothing else is said (keeps a long replay's JSON small)."""
        if not (self.by or self.mark):
            return self.card
        out: dict[str, Any] = {"c": self.card}
        if self.by:
            out["by"] = self.by
        if self.mark:
            out["m"] = self.mark
        return out


@dataclass(slots=True)
class Pile:
    """A labelled row of cards; ``kind`` is a CSS class (``hand``, ``trick``, ``stack``, …)."""

    label: str
    slots: list[Slot]
    kind: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        if not self.slots and not self.note:
            self.note = gettext("none")

    def json(self) -> dict[str, Any]:
        return {"label": self.label, "kind": self.kind, "note": self.note,
                "slots": [s.json() for s in self.slots]}  # fmt: skip


@dataclass(slots=True)
class SeatPanel:
    seat: int
    name: str
    total: int
    place: int | None
    tags: list[str] = field(default_factory=list)
    piles: list[Pile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def json(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "total": self.total, "place": self.place,
                "tags": self.tags, "notes": self.notes,
                "piles": [p.json() for p in self.piles]}  # fmt: skip


@dataclass(slots=True)
class Scene:
    facts: list[tuple[str, str]]
    centre: list[Pile]
    seats: list[SeatPanel]

    def json(self) -> dict[str, Any]:
        return {"facts": [list(f) for f in self.facts],
                "centre": [p.json() for p in self.centre],
                "seats": [s.json() for s in self.seats]}  # fmt: skip

    def mark(
        self, cards: Iterable[Any], css: str, seat: int | None = None, hands_only: bool = False
    ) -> None:
        """Add ``css`` to the slots showing ``cards`` (in any shape ``cards_in`` reads) in
        the middle and in ``seat``'s panel (every panel when ``None``); with ``hands_only``,
        of that panel only its hand."""
        wanted = set(cards_in(cards))
        panels = self.seats if seat is None else [self.seats[seat]]
        own = [p for s in panels for p in s.piles if not hands_only or "hand" in p.kind]
        for pile in [*self.centre, *own]:
            for slot in pile.slots:
                if slot.card is not None and slot.card in wanted:
                    slot.mark = f"{slot.mark} {css}".strip()


def seat_names(opened: Any) -> list[str]:
    """Per-seat display names, the seats the engine plays (``GameSpec.house_seats``, as
    Lopaka at index 2 of a ``lopaka`` table's lists) included."""
    names = [
        seat.get("name") or (bot_name(seat["bot"]) if seat.get("bot") else seat_word(s))
        for s, seat in enumerate(opened.seats)
    ]
    spec = SPECS.get(opened.game)
    for seat, name in spec.house_seats.get(opened.variant, ()) if spec else ():
        names.insert(seat, name)
    return names


def bot_name(bot: str) -> str:
    """A seat a bot plays from the start is named after it: ``heuristic bot``."""
    return gettext("%(bot)s bot", bot=bot_word(bot))


def seat_word(seat: int) -> str:
    """A seat with no name, counted from 1: ``Seat 2``."""
    return gettext("Seat %(num)s", num=seat + 1)


#: What a seat that begins a deal is called (``GameSpec.starter_word``), as the pages say it.
STARTER_WORDS = {"dealer": lazy_gettext("dealer"), "starts": lazy_gettext("starts")}


def slots(cards: Sequence[Card | None] | None, size: int = 0, by: str = "") -> list[Slot]:
    """The cards, or ``size`` backs when the view withholds the whole pile."""
    if cards is None:
        return [Slot(None) for _ in range(size)]
    return [Slot(c, by) for c in cards]


def trick(view: View, names: Sequence[str]) -> Pile:
    """The trick being played, each card with who played it (and from which pile)."""
    played = []
    for card in view["trick"]["cards"]:
        by = names[card["seat"]] + (f" · {card['hand']}" if card.get("hand") else "")
        played.append(Slot(card["card"], by))
    return Pile(gettext("Trick"), played, "trick", "" if played else gettext("no card played yet"))


def panels(view: View, names: Sequence[str]) -> list[SeatPanel]:
    """A panel per seat with its name, total, place and tags (who deals or starts, who is
    to act); each game adds the seat's piles."""
    ranking = view.get("ranking") or [None] * len(view["totals"])
    out = []
    for seat, total in enumerate(view["totals"]):
        tags = []
        if view.get("dealer") == seat and view.get("deal"):
            spec = SPECS.get(view["game"])
            word = spec.starter_word if spec else "dealer"
            tags.append(str(STARTER_WORDS.get(word, word)))
        if seat in view["to_act"]:
            tags.append(gettext("to act"))
        out.append(SeatPanel(seat, names[seat], total, ranking[seat], tags))
    return out
