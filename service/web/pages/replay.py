"""The replay of one deal: a scene per event, built on the server, stepped through in
the browser.

Each step is the organiser's view of the state right after that event. That is only
shown for a deal that is scored (every card of it is public then, ``docs/rules/common.md``)
or to the organiser; the page refuses anyone else before building anything. At a
seat's action the step shows that seat's hand as it was *before* the action, the cards
the action used marked ``played`` and every card a legal alternative would have used
marked ``legal``, which is what a dispute is about.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flask_babel import gettext, lazy_gettext, ngettext

from domain.games import SPECS
from domain.table import ORGANISER
from service.storage.tablelog import TableLog
from service.web.pages import games
from service.web.pages.cards import Card, cards_in
from service.web.pages.games.pieces import GamePages
from service.web.pages.scenes import Pile, Scene, Slot, seat_names
from service.web.pages.stand_ins import who_moved
from service.web.pages.step_words import Part, StepWords, shared_words

#: Fields of action bodies that are choices but not cards, summarised in words.
CHOICE_FIELDS = ("call", "hand", "from", "position", "count")
#: Those fields and their word values as the page says them (English: as the body has them).
CHOICE_WORDS = {
    "call": lazy_gettext("call"),
    "hand": lazy_gettext("hand"),
    "from": lazy_gettext("from"),
    "position": lazy_gettext("position"),
    "count": lazy_gettext("count"),
    "own": lazy_gettext("own"),
    "opponent": lazy_gettext("opponent"),
    "play": lazy_gettext("play"),
    "pass": lazy_gettext("pass"),
}


def _said(value: Any) -> str:
    word = CHOICE_WORDS.get(value) if isinstance(value, str) else None
    return str(word) if word is not None else str(value)


def _cards(data: Mapping[str, Any], fields: Iterable[str]) -> list[Card]:
    """The cards of ``fields`` (the game's declared ``card_fields``), flat, whatever the
    shape of each field: one, a list, or lists (a mosca's hands)."""
    return [card for name in fields for card in cards_in(data.get(name))]


def _hand(view: Mapping[str, Any], seat: int) -> list[Any]:
    """A seat's cards in a view (a Bright House seat's two piles together)."""
    held = view["hands"][seat]
    if isinstance(held, Mapping):
        return [c for pile in held.values() for c in pile or ()]
    return list(held or ())


def _alternative_cards(
    bodies: Sequence[Mapping[str, Any]], hand: Sequence[Any], fields: Iterable[str]
) -> set[Any]:
    """Every card some legal alternative would use; a launch of ``count`` uses the first
    ``count`` cards of the canal (Oh Quay)."""
    out: set[Any] = set()
    for body in bodies:
        out.update(_cards(body, fields))
        if "count" in body:
            out.update(hand[: body["count"]])
    return out


def _span(values: list[Any]) -> str:
    if all(type(v) is int for v in values) and len(values) > 2:
        low, high = min(values), max(values)
        if len(set(values)) == high - low + 1:
            return f"{low}–{high}"
    return gettext(" or ").join(_said(v) for v in values)


def alternatives_text(bodies: Sequence[Mapping[str, Any]]) -> str:
    """The non-card choices of the legal alternatives, in words (``from own or opponent,
    position 0–8``); cards are highlighted in the hand instead."""
    if len(bodies) <= 1:
        return gettext("the only legal choice") if bodies else ""
    words = []
    for name in CHOICE_FIELDS:
        values = list(dict.fromkeys(b[name] for b in bodies if name in b))
        if len(values) > 1:  # a choice only if it varies
            words.append(f"{_said(name)} {_span(values)}")
    if words:
        return ngettext(
            "%(num)s legal choice: %(choices)s",
            "%(num)s legal choices: %(choices)s",
            len(bodies),
            choices=", ".join(words),
        )
    return ngettext(
        "%(num)s legal choice (the cards framed in green)",
        "%(num)s legal choices (the cards framed in green)",
        len(bodies),
    )


def describe(
    entry: Mapping[str, Any], names: Sequence[str], words: Mapping[str, StepWords]
) -> list[Part]:
    """One event in words, its cards as ``{"c": card}`` parts so they are drawn as cards;
    ``words`` by event type (a game's own, then those every game shares)."""
    said = words.get(entry["type"])
    return said(entry["data"], names) if said is not None else [entry["type"]]


def _completed_trick(data: Mapping[str, Any], names: Sequence[str], game: GamePages) -> Pile:
    winner = game.winning_card(data)
    slots = [
        Slot(c, names[s], "winner" if c == winner else "")
        for s, c in zip(data["seats"], data["cards"], strict=True)
    ]
    won_by = gettext("won by %(name)s", name=names[data["winner"]])
    return Pile(gettext("Trick %(trick)s", trick=data["trick"]), slots, "trick", won_by)


def steps(log: TableLog, history: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every step of the deal in ``history`` (``domain.audit.deal_history``), JSON-ready."""
    rules = log.rules
    game = games.pages_of(log.opened.game)
    words = {**shared_words(SPECS[log.opened.game]), **game.step_words}
    names = seat_names(log.opened)
    entries = history["events"]
    state = log.state_at(entries[0]["version"] - 1)
    before = rules.view(state, ORGANISER)
    out = []
    for entry in entries:
        version = entry["version"]
        state = rules.evolve(state, log.events[version - 1])
        after = rules.view(state, ORGANISER)
        shown = _step_scene(entry, before, after, names, game)
        legal = entry.get("legal")
        out.append(
            {
                "v": version,
                "type": entry["type"],
                "by": who_moved(entry["by"], names),  # a person, or which bot
                "text": describe(entry, names, words),
                "alts": alternatives_text(legal) if legal is not None else "",
                "scene": shown.json(),
            }
        )
        before = after
    return out


def _step_scene(
    entry: Mapping[str, Any],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    names: Sequence[str],
    game: GamePages,
) -> Scene:
    shown = game.scene(after, names)
    data = entry["data"]
    spec = SPECS[game.game]
    kind = entry["type"]
    if spec.landmarks.completes_trick(kind):
        shown.centre = [_completed_trick(data, names, game), *shown.centre[1:]]
        return shown
    if spec.landmarks.starts_deal(kind) or spec.landmarks.scores_deal(kind):
        return shown  # where every card lies, none of them used
    used = _cards(data, spec.card_fields)
    seat = entry["seat"]
    legal = entry.get("legal")
    if isinstance(seat, int) and legal is not None:
        hand = _hand(before, seat)
        if set(used) & set(hand):  # the action took cards from the hand: show it as it was
            earlier = [p for p in game.scene(before, names).seats[seat].piles if "hand" in p.kind]
            then = iter(earlier)
            panel = shown.seats[seat]
            panel.piles = [next(then, p) if "hand" in p.kind else p for p in panel.piles]
        alternatives = _alternative_cards(legal, hand, spec.card_fields)
        shown.mark(alternatives, "legal", seat, hands_only=True)
    mark = game.step_marks.get(kind, "played")
    shown.mark(used, mark, seat if isinstance(seat, int) else None)
    return shown
