"""What a viewer of a table page may do now, as elements to tap (``docs/api.md``, Pages).

Built from the rules engine's ``legal_actions`` for each seat the viewer acts for (its
own seat; every seat expected to act for the organiser, a scorer recording a physical
table), so the page never offers a move the engine would refuse and every element's
``data-action`` is a body exactly as ``legal_actions`` lists it. A move made of one card
(a play, a discard, an Oh Quay take) is that card; a move of several choices (Bottle Imp
passes, a Bestia exchange, an Oh Quay load or launch) is a *builder*: rows of values
picked in order (``data-pick``) until one legal body is complete. A card of the hand that
may not be played now says why: the engine's own refusal of that play.

Each kind of action is drawn by a *drawer*, the game's own for its kinds (its module in
``service/web/pages/games/``), the shared ones here for what several games have (a deal,
a play from the hand). A kind no drawer draws is refused loudly (:class:`Undrawable`),
never left off the panel.

Only cards the viewer's view already shows reach this module: legal actions of a seat
name that seat's own cards and public ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask_babel import gettext, lazy_gettext

from domain.errors import RuleViolation
from domain.table import ORGANISER, Viewer
from service.storage.tablelog import TableLog
from service.web.pages.cards import Card
from service.web.pages.refusals import worded

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


@dataclass(frozen=True, slots=True)
class Offer:
    """What a drawer draws: the legal ``bodies`` of one kind of action of ``seat``, with
    the table, the viewer's ``view`` of it and the seats' names."""

    log: TableLog
    view: Mapping[str, Any]
    seat: int
    names: Sequence[str]
    bodies: list[Body]
    you: int | None = None  # the viewer's own seat, said "you" in the engine's reasons


#: How one kind of action is offered: the panel's rows for its legal bodies.
Drawer = Callable[[Offer], list[Group]]


class Undrawable(LookupError):
    """The engine offers a kind of action the game's pages have no drawer for."""


def refusal(log: TableLog, body: Body) -> RuleViolation | None:
    """The engine's refusal of ``body`` now (``None`` if it would accept it)."""
    rules = log.rules
    try:
        rules.decide(log.state, rules.parse(body))
    except RuleViolation as refused:
        return refused
    return None


def pile_of(held: Any, hand: str | None) -> list[Card]:
    """A seat's cards in a view, or one pile of them (Bright House's ``A`` or ``B``)."""
    if isinstance(held, Mapping):
        return list(held.get(hand or "", None) or [])
    return list(held or [])


def by_hand(bodies: Sequence[Body]) -> dict[str | None, list[Body]]:
    """Bright House acts pile by pile: bodies grouped by their ``hand`` (None elsewhere)."""
    out: dict[str | None, list[Body]] = {}
    for body in bodies:
        out.setdefault(body.get("hand"), []).append(body)
    return out


def card_values(cards: Sequence[Card]) -> list[Value]:
    return [Value(c, card=c) for c in dict.fromkeys(cards)]


def buttons(prompt: str, words: Callable[[Body], str]) -> Drawer:
    """A drawer of one button per legal body, labelled ``words(body)``; ``prompt`` may be
    lazy (declared once, said in each viewer's language)."""

    def draw(offer: Offer) -> list[Group]:
        return [Group("buttons", str(prompt), buttons=[(words(b), b) for b in offer.bodies])]

    return draw


#: The deal: one button, the server shuffles.
deal = buttons(lazy_gettext("Deal the cards"), lambda body: gettext("Deal"))


def plays(offer: Offer) -> list[Group]:
    """The hand (Bright House: the pile in turn) as cards; the unplayable say why."""
    seat, bodies = offer.seat, offer.bodies
    hand = bodies[0].get("hand")
    legal = {body["card"]: body for body in bodies}
    row = []
    for card in pile_of(offer.view["hands"][seat], hand):
        if card in legal:
            row.append(CardMove(card, legal[card]))
        else:
            attempt = {"type": "play", "seat": seat, "card": card}
            if hand:
                attempt["hand"] = hand
            refused = refusal(offer.log, attempt)
            why = refused and worded(refused, offer.names, offer.you, seat)
            row.append(CardMove(card, None, why or gettext("not playable now")))
    prompt = (
        gettext("Play a card from pile %(pile)s", pile=hand) if hand else gettext("Play a card")
    )
    return [Group("cards", prompt, cards=row)]


def seat_moves(
    log: TableLog,
    view: Mapping[str, Any],
    seat: int,
    names: Sequence[str],
    drawers: Mapping[str, Drawer],
    you: int | None = None,
) -> list[Group]:
    """The groups of moves ``seat`` may make now (``view`` is ``you``'s, the viewer's),
    each kind drawn by the game's ``drawers``."""
    rules = log.rules
    bodies = [rules.body(a) for a in rules.legal_actions(log.state, seat)]
    kinds: dict[str, list[Body]] = {}
    for body in bodies:
        kinds.setdefault(body["type"], []).append(body)
    groups: list[Group] = []
    for kind, some in kinds.items():
        drawer = drawers.get(kind)
        if drawer is None:
            raise Undrawable(f"{log.opened.game}: the pages cannot draw an action {kind!r}")
        groups.extend(drawer(Offer(log, view, seat, names, some, you)))
    return groups


def moves(
    log: TableLog,
    view: Mapping[str, Any],
    viewer: Viewer,
    names: Sequence[str],
    drawers: Mapping[str, Drawer],
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
        you = viewer if isinstance(viewer, int) else None
        groups = seat_moves(log, view, seat, names, drawers, you) if seat in view["to_act"] else []
        if groups:
            out.append(SeatMoves(seat, names[seat], groups))
    return out
