"""The replay of one deal: a scene per event, built on the server, stepped through in
the browser.

Each step is the organiser's view of the state right after that event. That is only
shown for a deal that is scored (every card of it is public then, ``rules/common.md``)
or to the organiser; the page refuses anyone else before building anything. At a
seat's action the step shows that seat's hand as it was *before* the action, the cards
the action used marked ``played`` and every card a legal alternative would have used
marked ``legal``, which is what a dispute is about.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from domain.table import ORGANISER
from service.storage.tablelog import TableLog
from service.web.pages.cards import Card, cards_in
from service.web.pages.games import scene
from service.web.pages.scenes import Pile, Scene, Slot, seat_names

Part = str | dict[str, Any]
#: Fields of events and action bodies that hold cards: one, a list, or lists (a mosca's hands).
CARD_FIELDS = ("card", "left", "right", "opponent", "discarded", "discard", "cards", "keep")
#: Fields of action bodies that are choices but not cards, summarised in words.
CHOICE_FIELDS = ("call", "hand", "from", "position", "count")


def _cards(data: Mapping[str, Any], fields: Iterable[str] = CARD_FIELDS) -> list[Card]:
    """The cards of ``fields``, flat, whatever the shape of each field."""
    return [card for name in fields for card in cards_in(data.get(name))]


def _hand(view: Mapping[str, Any], seat: int) -> list[Any]:
    """A seat's cards in a view (a Bright House seat's two piles together)."""
    held = view["hands"][seat]
    if isinstance(held, Mapping):
        return [c for pile in held.values() for c in pile or ()]
    return list(held or ())


def _alternative_cards(bodies: Sequence[Mapping[str, Any]], hand: Sequence[Any]) -> set[Any]:
    """Every card some legal alternative would use; a launch of ``count`` uses the first
    ``count`` cards of the canal (Oh Quay)."""
    out: set[Any] = set()
    for body in bodies:
        out.update(_cards(body))
        if "count" in body:
            out.update(hand[: body["count"]])
    return out


def _span(values: list[Any]) -> str:
    if all(type(v) is int for v in values) and len(values) > 2:
        low, high = min(values), max(values)
        if len(set(values)) == high - low + 1:
            return f"{low}–{high}"
    return " or ".join(str(v) for v in values)


def alternatives_text(bodies: Sequence[Mapping[str, Any]]) -> str:
    """The non-card choices of the legal alternatives, in words (``from own or opponent,
    position 0–8``); cards are highlighted in the hand instead."""
    if len(bodies) <= 1:
        return "the only legal choice" if bodies else ""
    words = []
    for name in CHOICE_FIELDS:
        values = list(dict.fromkeys(b[name] for b in bodies if name in b))
        if len(values) > 1:  # a choice only if it varies
            words.append(f"{name} {_span(values)}")
    said = f": {', '.join(words)}" if words else " (the cards framed in green)"
    return f"{len(bodies)} legal choices{said}"


def describe(entry: Mapping[str, Any], names: Sequence[str]) -> list[Part]:
    """One event in words, its cards as ``{"c": card}`` parts so they are drawn as cards."""
    data = entry["data"]
    kind = entry["type"]
    who = names[data["seat"]] if isinstance(data.get("seat"), int) else ""

    def cards(values: Any) -> list[Part]:
        return [{"c": c} for c in cards_in(values)] or ["(hidden)"]

    if kind == "DealStarted":
        dealer = data.get("dealer", data.get("starter"))
        verb = "starts" if "starter" in data else "deals"
        return [f"Deal {data['deal']}: {names[dealer]} {verb}"]
    if kind == "CardPlayed":
        pile = f" from pile {data['hand']}" if data.get("hand") else ""
        return [f"{who} plays{pile} ", *cards([data["card"]])]
    if kind == "CardDiscarded":
        return [f"{who} lays in the devil's trick ", *cards([data["card"]])]
    if kind == "CardsPassed":
        if "left" in data:
            return [f"{who} passes left ", *cards([data["left"]]), " and right ",
                    *cards([data["right"]])]  # fmt: skip
        return [f"{who} passes ", *cards(_cards(data, ("opponent", "card")))]
    if kind == "PassesDelivered":
        return ["The passed cards are delivered"]
    if kind == "OpenHandChosen":
        return [f"{who} opens pile {data['hand']}"]
    if kind == "TrickCompleted":
        return _trick_words(data, names)
    if kind == "Declared":
        return [f"{who} says {data['call']}"]
    if kind == "CardsExchanged":
        n = len(data["discarded"])
        return [f"{who} exchanges {n} card{'' if n == 1 else 's'}", *([": "] if n else []),
                *(cards(data["discarded"]) if n else [])]  # fmt: skip
    if kind == "MoscaWon":
        return _mosca_words(data, names, cards)
    if kind == "CargoLoaded":
        source = "own quay" if data["from"] == "own" else "the opponent's quay"
        return [f"{who} loads ", *cards([data["card"]]),
                f" from {source} at position {data['position']}"]  # fmt: skip
    if kind == "RaftLaunched":
        if len(data["cards"]) == 1:
            return [f"{who} launches ", *cards(data["cards"]), " alone: back under their quay"]
        return [f"{who} launches ", *cards(data["cards"]), " and keeps ", *cards([data["kept"]])]
    if kind == "RaftCardTaken":
        return [f"{who} takes ", *cards([data["card"]])]
    if kind == "RaftScored":
        return [f"{who} scores ", *cards(data["cards"])]
    if kind in ("DealScored", "DealSettled"):
        totals = data.get("scores") or data.get("balances") or []
        label = "scores" if "scores" in data else "balances"
        shown = ", ".join(f"{names[s]} {v:+d}" for s, v in enumerate(totals))
        return [f"Deal {data['deal']} {'settled' if kind == 'DealSettled' else 'scored'}: "
                f"{label} {shown}"]  # fmt: skip
    if kind == "MatchEnded":
        return ["The match is over"]
    if kind == "Adjusted":
        return [f"Director's ruling: {who} {data['points']:+d} ({data['reason']})"]
    return [kind]


def _mosca_words(
    data: Mapping[str, Any], names: Sequence[str], cards: Callable[[Any], list[Part]]
) -> list[Part]:
    """``Mosca: Bo with 10S JS QS KS AS takes the pot``; equal moscas share it."""
    words: list[Part] = ["Mosca: "]
    for i, (seat, hand) in enumerate(zip(data["seats"], data["cards"], strict=True)):
        words += [f"{' and ' if i else ''}{names[seat]} with ", *cards(hand)]
    words.append(" takes the pot" if len(data["seats"]) == 1 else " share the pot")
    return words


def _trick_words(data: Mapping[str, Any], names: Sequence[str]) -> list[Part]:
    words = f"Trick {data['trick']}: {names[data['winner']]} wins"
    if "price" in data and data.get("owner") == data["winner"] and data["price"] in data["cards"]:
        words += f" and buys the bottle at {data['price']}"
    return [words]


def _winning_card(data: Mapping[str, Any]) -> Any:
    """The card that took the trick: the winner's only card, else (Bright House) the new
    price if it was bought, else the winner's highest (rule 4)."""
    mine = [c for s, c in zip(data["seats"], data["cards"], strict=True) if s == data["winner"]]
    if len(mine) == 1:
        return mine[0]
    return data["price"] if data.get("price") in mine else max(mine)


def _completed_trick(data: Mapping[str, Any], names: Sequence[str]) -> Pile:
    winner = _winning_card(data)
    slots = [
        Slot(c, names[s], "winner" if c == winner else "")
        for s, c in zip(data["seats"], data["cards"], strict=True)
    ]
    return Pile(f"Trick {data['trick']}", slots, "trick", f"won by {names[data['winner']]}")


def steps(log: TableLog, history: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every step of the deal in ``history`` (``domain.audit.deal_history``), JSON-ready."""
    rules = log.rules
    names = seat_names(log.opened)
    entries = history["events"]
    state = log.state_at(entries[0]["version"] - 1)
    before = rules.view(state, ORGANISER)
    out = []
    for entry in entries:
        version = entry["version"]
        state = rules.evolve(state, log.events[version - 1])
        after = rules.view(state, ORGANISER)
        shown = _step_scene(entry, before, after, names)
        legal = entry.get("legal")
        out.append(
            {
                "v": version,
                "type": entry["type"],
                "by": entry["by"],
                "text": describe(entry, names),
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
) -> Scene:
    shown = scene(after, names)
    data = entry["data"]
    if entry["type"] == "TrickCompleted":
        shown.centre = [_completed_trick(data, names), *shown.centre[1:]]
        return shown
    used = _cards(data)
    seat = entry["seat"]
    legal = entry.get("legal")
    if isinstance(seat, int) and legal is not None:
        hand = _hand(before, seat)
        if set(used) & set(hand):  # the action took cards from the hand: show it as it was
            earlier = iter([p for p in scene(before, names).seats[seat].piles if "hand" in p.kind])
            panel = shown.seats[seat]
            panel.piles = [next(earlier, p) if "hand" in p.kind else p for p in panel.piles]
        shown.mark(_alternative_cards(legal, hand), "legal", seat, hands_only=True)
    mark = "winner" if entry["type"] == "MoscaWon" else "played"
    shown.mark(used, mark, seat if isinstance(seat, int) else None)
    return shown
