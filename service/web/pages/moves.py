"""What a viewer of a table page may do now, as elements to tap (``api.md``, Pages).

Built from the rules engine's ``legal_actions`` for each seat the viewer acts for (its
own seat; every seat expected to act for the organiser, a scorer recording a physical
table), so the page never offers a move the engine would refuse and every element's
``data-action`` is a body exactly as ``legal_actions`` lists it. A move made of one card
(a play, a discard, an Oh Quay take) is that card; a move of several choices (Bottle Imp
passes, a Bestia exchange, an Oh Quay load or launch) is a *builder*: rows of values
picked in order (``data-pick``) until one legal body is complete. A card of the hand that
may not be played now says why: the engine's own refusal of that play.

Only cards the viewer's view already shows reach this module: legal actions of a seat
name that seat's own cards and public ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.errors import RuleViolation
from domain.table import ORGANISER, Viewer
from service.storage.tablelog import TableLog
from service.web.pages.cards import Card

Body = dict[str, Any]


@dataclass(slots=True)
class CardMove:
    """A card shown in a move row: ``action`` when tapping it is the move, else the
    ``reason`` it may not be played now."""

    card: Card
    action: Body | None = None
    reason: str = ""


@dataclass(slots=True)
class Value:
    """One value a builder's field may take: a card (drawn as its face) or words."""

    value: Any
    label: str = ""
    card: Card | None = None


@dataclass(slots=True)
class Field:
    """One choice of a builder: ``name`` is the action body's field; a ``many`` field
    (a Bestia discard) is a set of cards toggled one by one."""

    name: str
    prompt: str
    values: list[Value]
    many: bool = False


@dataclass(slots=True)
class Group:
    """A row of the moves panel: buttons, cards, or a builder (``fields`` + ``actions``)."""

    kind: str  # "buttons", "cards" or "builder"
    prompt: str
    buttons: list[tuple[str, Body]] = field(default_factory=list)
    cards: list[CardMove] = field(default_factory=list)
    fields: list[Field] = field(default_factory=list)
    actions: list[Body] = field(default_factory=list)
    confirm: str = ""
    key: str = ""  # keeps a half-built choice across the page's refreshes


@dataclass(slots=True)
class SeatMoves:
    seat: int
    name: str
    groups: list[Group]


def _refusal(log: TableLog, body: Body) -> str:
    """The engine's reason for refusing ``body`` now (empty if it would accept it)."""
    rules = log.rules
    try:
        rules.decide(log.state, rules.parse(body))
    except RuleViolation as refused:
        return refused.message
    return ""


def _pile_of(held: Any, hand: str | None) -> list[Card]:
    if isinstance(held, Mapping):
        return list(held.get(hand or "", None) or [])
    return list(held or [])


def _by_hand(bodies: Sequence[Body]) -> dict[str | None, list[Body]]:
    """Bright House acts pile by pile: bodies grouped by their ``hand`` (None elsewhere)."""
    out: dict[str | None, list[Body]] = {}
    for body in bodies:
        out.setdefault(body.get("hand"), []).append(body)
    return out


def _of_pile(hand: str | None) -> str:
    return f" of pile {hand}" if hand else ""


def _plays(log: TableLog, view: Mapping[str, Any], seat: int, bodies: list[Body]) -> Group:
    """The hand (Bright House: the pile in turn) as cards; the unplayable say why."""
    hand = bodies[0].get("hand")
    legal = {body["card"]: body for body in bodies}
    row = []
    for card in _pile_of(view["hands"][seat], hand):
        if card in legal:
            row.append(CardMove(card, legal[card]))
        else:
            attempt = {"type": "play", "seat": seat, "card": card}
            if hand:
                attempt["hand"] = hand
            row.append(CardMove(card, None, _refusal(log, attempt) or "not playable now"))
    prompt = f"Play a card{' from pile ' + hand if hand else ''}"
    return Group("cards", prompt, cards=row)


def _card_values(cards: Sequence[Card]) -> list[Value]:
    return [Value(c, card=c) for c in dict.fromkeys(cards)]


def _passes(seat: int, bodies: list[Body], names: Sequence[str], n: int) -> list[Group]:
    groups = []
    for hand, some in _by_hand(bodies).items():
        first = some[0]
        if "left" in first:
            left, right = names[(seat + 1) % n], names[(seat - 1) % n]
            fields = [
                Field("left", f"Pass left, to {left}", _card_values([b["left"] for b in some])),
                Field("right", f"Pass right, to {right}", _card_values([b["right"] for b in some])),
            ]
            prompt = "Pass one card to each neighbour"
        else:
            name = "opponent" if "opponent" in first else "card"
            other = names[1 - seat]
            fields = [Field(name, f"Pass to {other}", _card_values([b[name] for b in some]))]
            prompt = f"Pass one card{_of_pile(hand)} to {other}"
        key = f"{seat}-pass-{hand or ''}"
        built = Group("builder", prompt, fields=fields, actions=some, confirm="Pass", key=key)
        groups.append(built)
    return groups


def _exchange(view: Mapping[str, Any], seat: int, bodies: list[Body]) -> Group:
    most = max(len(b["discard"]) for b in bodies)
    hand = list(view["hands"][seat] or [])
    usable = {c for b in bodies for c in b["discard"]}
    values = [Value(c, card=c) for c in hand if c in usable]
    prompt = f"Exchange up to {most} card{'s' if most != 1 else ''}: tap the ones to discard"
    if not usable:
        prompt = "Exchange: the drawn cards of a recorded deal are entered by the organiser"
    return Group(
        "builder",
        prompt,
        fields=[Field("discard", "Discard", values, many=True)],
        actions=bodies,
        confirm="Exchange",
        key=f"{seat}-exchange",
    )


def _position_words(canal: Sequence[Any], position: int) -> str:
    if position == 0:
        return "at the front"
    if position >= len(canal):
        return "at the back"
    before = canal[position - 1]
    return f"after {str(before).replace('-', ' ')}" if before is not None else f"place {position}"


def _load(view: Mapping[str, Any], seat: int, bodies: list[Body], names: Sequence[str]) -> Group:
    canal = list(view["canals"][seat] or [])
    other = 1 - seat
    top = view["quays"][other]["top"]
    sources = []
    for source in dict.fromkeys(b["from"] for b in bodies):
        if source == "own":
            sources.append(Value("own", f"{names[seat]}'s own quay (its top is hidden from you)"))
        else:
            seen = f" (top: {str(top).replace('-', ' ')})" if top is not None else ""
            sources.append(Value("opponent", f"{names[other]}'s quay{seen}"))
    positions = [
        Value(p, _position_words(canal, p)) for p in sorted({b["position"] for b in bodies})
    ]
    return Group(
        "builder",
        "Load cargo: take a quay's top card into your canal",
        fields=[Field("from", "From", sources), Field("position", "Put it", positions)],
        actions=bodies,
        confirm="Load",
        key=f"{seat}-load",
    )


def _launch(view: Mapping[str, Any], seat: int, bodies: list[Body]) -> Group:
    canal = list(view["canals"][seat] or [])
    counts = sorted({b["count"] for b in bodies})
    words = []
    for k in counts:
        front = ", ".join(str(c).replace("-", " ") for c in canal[:k])
        words.append(Value(k, f"{k} card{'s' if k > 1 else ''}: {front}"))
    kept = [c for c in canal if any(b.get("keep") == c for b in bodies)]
    return Group(
        "builder",
        "Launch from the front of your canal: a raft of two or more cards lets you keep one",
        fields=[
            Field("count", "How many", words),
            Field("keep", "Keep which card (to your quay's bottom)", _card_values(kept)),
        ],
        actions=bodies,
        confirm="Launch",
        key=f"{seat}-launch",
    )


BUTTON_WORDS = {
    "deal": lambda b: "Deal",
    "declare": lambda b: {"play": "Play this deal", "pass": "Pass (sit out)"}[b["call"]],
    "choose_open": lambda b: f"Open pile {b['hand']}",
}


def seat_moves(
    log: TableLog, view: Mapping[str, Any], seat: int, names: Sequence[str]
) -> list[Group]:
    """The groups of moves ``seat`` may make now (``view`` is the viewer's)."""
    rules = log.rules
    bodies = [rules.body(a) for a in rules.legal_actions(log.state, seat)]
    kinds: dict[str, list[Body]] = {}
    for body in bodies:
        kinds.setdefault(body["type"], []).append(body)
    groups: list[Group] = []
    n = len(names)
    for kind, some in kinds.items():
        if kind in BUTTON_WORDS:
            buttons = [(BUTTON_WORDS[kind](b), b) for b in some]
            prompt = {"deal": "Deal the cards", "declare": "Play or pass this deal",
                      "choose_open": "Choose which pile lies open"}[kind]  # fmt: skip
            groups.append(Group("buttons", prompt, buttons=buttons))
        elif kind == "play":
            groups.append(_plays(log, view, seat, some))
        elif kind == "discard":
            for hand, per_hand in _by_hand(some).items():
                row = [CardMove(b["card"], b) for b in per_hand]
                prompt = f"Lay one card{_of_pile(hand)} in the devil's trick"
                groups.append(Group("cards", prompt, cards=row))
        elif kind == "take":
            row = [CardMove(b["card"], b) for b in some]
            groups.append(Group("cards", "Take one card of the raft", cards=row))
        elif kind == "pass":
            groups.extend(_passes(seat, some, names, n))
        elif kind == "exchange":
            groups.append(_exchange(view, seat, some))
        elif kind == "load":
            groups.append(_load(view, seat, some, names))
        elif kind == "launch":
            groups.append(_launch(view, seat, some))
    return groups


def moves(
    log: TableLog, view: Mapping[str, Any], viewer: Viewer, names: Sequence[str]
) -> list[SeatMoves]:
    """The moves panel: the viewer's own seat, or every seat expected to act for the
    organiser; nothing for the public or while the log is damaged."""
    if log.damage is not None or viewer is None:
        return []
    seats: list[int] = list(view["to_act"]) if viewer == ORGANISER else []
    if isinstance(viewer, int):
        seats = [viewer]
    out = []
    for seat in seats:
        groups = seat_moves(log, view, seat, names) if seat in view["to_act"] else []
        if groups:
            out.append(SeatMoves(seat, names[seat], groups))
    return out
