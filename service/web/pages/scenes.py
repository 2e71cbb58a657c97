"""A table drawn as a *scene*: labelled piles of cards per seat and in the middle.

A scene is built from ``game(id).view(state, viewer)`` and from nothing else, so a page
shows exactly what the API shows that viewer: a card the view hides (``None``) becomes a
face-down back, and a pile the view withholds is not drawn at all. The table page renders
one scene with Jinja; the replay page embeds one per step as JSON and draws it in the
browser with the same structure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.games import SPECS
from domain.games.bottle_imp.cards import COINS
from domain.games.bottle_imp.layout import LOPAKA
from service.web.pages.cards import BESTIA_SUITS, Card, cards_in

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
            self.note = "none"

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
        seat.get("name") or (f"{seat['bot']} bot" if seat.get("bot") else f"Seat {s}")
        for s, seat in enumerate(opened.seats)
    ]
    spec = SPECS.get(opened.game)
    for seat, name in spec.house_seats.get(opened.variant, ()) if spec else ():
        names.insert(seat, name)
    return names


def _slots(cards: Sequence[Card | None] | None, size: int = 0, by: str = "") -> list[Slot]:
    """The cards, or ``size`` backs when the view withholds the whole pile."""
    if cards is None:
        return [Slot(None) for _ in range(size)]
    return [Slot(c, by) for c in cards]


def _trick(view: View, names: Sequence[str]) -> Pile:
    slots = []
    for played in view["trick"]["cards"]:
        by = names[played["seat"]] + (f" · {played['hand']}" if played.get("hand") else "")
        slots.append(Slot(played["card"], by))
    return Pile("Trick", slots, "trick", "" if slots else "no card played yet")


def _panels(view: View, names: Sequence[str]) -> list[SeatPanel]:
    ranking = view.get("ranking") or [None] * len(view["totals"])
    panels = []
    for seat, total in enumerate(view["totals"]):
        tags = []
        if view.get("dealer") == seat and view.get("deal"):
            spec = SPECS.get(view["game"])
            tags.append(spec.starter_word if spec else "dealer")
        if seat in view["to_act"]:
            tags.append("to act")
        panels.append(SeatPanel(seat, names[seat], total, ranking[seat], tags))
    return panels


# --- The Bottle Imp ------------------------------------------------------------------------


def _per_pile(value: Any, variant: str) -> list[tuple[str, Any]]:
    """A per-seat value as (pile name, value) pairs: Bright House keeps two piles."""
    if variant == "bright-house":
        return [("A", value["A"]), ("B", value["B"])] if value is not None else []
    return [("", value)]


def _imp_seat(panel: SeatPanel, view: View) -> None:
    """A Bottle Imp seat: its hand (Bright House: two piles), and what the view shows of
    its devil's-trick card, passes, received cards and won cards."""
    s, variant = panel.seat, view["variant"]
    open_pile = (view.get("open_hands") or [None, None])[s] if variant == "bright-house" else None
    sizes = dict(_per_pile(view["hand_sizes"][s], variant))
    for pile, cards in _per_pile(view["hands"][s], variant):
        label = "Hand" if not pile else f"Pile {pile}" + (" (open)" if pile == open_pile else "")
        panel.piles.append(Pile(label, _slots(cards, sizes[pile]), "hand"))
    for pile, card in _per_pile(view["discards"][s], variant):
        if card is not None:
            label = f"Laid in the devil's trick {pile}".strip()
            panel.piles.append(Pile(label, [Slot(card)], "small"))
    for pile, passed in _per_pile(view["passes"][s], variant):
        if passed:
            label = "Passed left, right" if len(passed) == 2 else f"Passed {pile}".strip()
            panel.piles.append(Pile(label, _slots(passed), "small"))
    for pile, got in _per_pile(view["received"][s], variant):
        if got:
            panel.piles.append(Pile(f"Received {pile}".strip(), _slots(got), "small"))
    won = view["won"][s]
    if won:
        coins = sum(COINS[c] for c in won)
        panel.piles.append(Pile("Won", _slots(won), "small", f"{coins} coins"))
    if view.get("scores") is not None:
        panel.notes.append(f"this deal: {view['scores'][s]:+d}")


def bottle_imp(view: View, names: Sequence[str]) -> Scene:
    bottle = view["bottle"]
    owner = bottle["owner"]
    panels = _panels(view, names)
    for panel in panels:
        if owner == panel.seat:
            panel.tags.append("bottle")
        _imp_seat(panel, view)
    price_note = f"owner: {names[owner]}" if owner is not None else "nobody owns it yet"
    price = Pile("Bottle", [Slot(bottle["price"], "price")], "bottle", price_note)
    centre = [_trick(view, names), price]
    devil = view.get("devil_trick")
    if devil is not None or view["devil_trick_size"]:
        centre.append(Pile("Devil's trick", _slots(devil, view["devil_trick_size"]), "small"))
    facts = [
        ("Bottle", f"price {bottle['price']}, {price_note}"),
        ("Tricks played", str(view["tricks_played"])),
    ]
    if view["variant"] == LOPAKA:
        facts.append(("Lopaka", "plays by itself; its hand is open once the exchange is done"))
    return Scene(facts, centre, panels)


# --- Bestia --------------------------------------------------------------------------------


def bestia(view: View, names: Sequence[str]) -> Scene:
    panels = _panels(view, names)
    for panel in panels:
        s = panel.seat
        call = view["calls"][s]
        if call:
            panel.tags.append("plays" if call == "play" else "passed")
        panel.piles.append(Pile("Hand", _slots(view["hands"][s], view["hand_sizes"][s]), "hand"))
        exchange = view["exchanges"][s]
        if exchange is not None:
            panel.notes.append(f"exchanged {exchange['count']}")
            if exchange["discarded"]:
                panel.piles.append(Pile("Discarded", _slots(exchange["discarded"]), "small"))
            if exchange["drawn"]:
                panel.piles.append(Pile("Drawn", _slots(exchange["drawn"]), "small"))
        if s in view["active"]:
            panel.notes.append(f"tricks won: {view['tricks_won'][s]}")
    trump = view["trump"]
    symbol, suit_name, _ = BESTIA_SUITS[trump] if trump else ("", "", "")
    centre = [_trick(view, names)]
    if view["muestra"]:
        centre.append(Pile("Muestra", [Slot(view["muestra"])], "bottle", f"trump: {suit_name}"))
    facts = [
        ("Trump", f"{symbol} {suit_name}" if trump else "not dealt yet"),
        ("Pot", f"{view['pot']} chips"),
        ("Stock", f"{view['stock_size']} cards"),
    ]
    if view.get("outcome"):
        facts.append(("Outcome", str(view["outcome"])))
    for line in view.get("payments") or []:
        facts.append(("Paid", _payment(line, names)))
    return Scene(facts, centre, panels)


def _payment(line: Mapping[str, Any], names: Sequence[str]) -> str:
    def who(x: Any) -> str:
        return "the pot" if x == "pot" else names[x]

    return f"{who(line['from'])} → {who(line['to'])}: {line['chips']} ({line['reason']})"


# --- Oh Quay -------------------------------------------------------------------------------


def oh_quay(view: View, names: Sequence[str]) -> Scene:
    panels = _panels(view, names)
    for panel in panels:
        s = panel.seat
        quay = view["quays"][s]
        if quay["cards"] is not None:
            quay_slots = _slots(quay["cards"])
        elif quay["top"] is not None:
            quay_slots = [Slot(quay["top"]), *_slots(None, quay["size"] - 1)]
        else:
            quay_slots = _slots(None, quay["size"])
        panel.piles.append(Pile("Quay (top first)", quay_slots, "stack", f"{quay['size']} cards"))
        canal = view["canals"][s]
        panel.piles.append(Pile("Canal (front first)", _slots(canal), "hand"))
        pile = view["score_piles"][s]
        points = f"{len(pile)} point{'' if len(pile) == 1 else 's'}"
        panel.piles.append(Pile("Score pile", _slots(pile), "small", points))
        if view.get("scores") is not None:
            panel.notes.append(f"this game: {view['scores'][s]}")
    centre = []
    launch = view.get("launch")
    if launch:
        slots = _slots(launch["cards"])
        for slot in slots:
            slot.mark = "kept" if slot.card == launch["kept"] else ""
            slot.mark += " taken" if slot.card == launch.get("taken") else ""
        centre.append(Pile(f"Raft launched by {names[launch['seat']]}", slots, "trick"))
    facts = [("Turn", f"{view['turn']} of at most {view['max_turns']}")]
    if view.get("player") is not None and view["status"] == "in_deal":
        facts.append(("Player", names[view["player"]]))
    if view.get("emptied_by") is not None:
        facts.append(("Canal emptied by", names[view["emptied_by"]]))
    return Scene(facts, centre, panels)
