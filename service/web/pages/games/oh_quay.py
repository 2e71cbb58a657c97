"""Oh Quay on the pages (``docs/rules/oh-quay.md``): its cards, its table, its recorded deal, its
rules page, its moves and its replay's words. One deal of Oh Quay is a "game"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from domain.games.oh_quay import GAME_ID
from domain.games.oh_quay.cards import DECK, RANK, suits_of
from domain.games.oh_quay.layout import PILE
from service.storage.tablelog import TableLog
from service.web.pages import moves
from service.web.pages.cards import Card, Face
from service.web.pages.deal_sheet import DealSheet, Names, Pile
from service.web.pages.games.pieces import GamePages, RulesPage
from service.web.pages.moves import CardMove, Field, Group, Offer, Value
from service.web.pages.scenes import Pile as ScenePile
from service.web.pages.scenes import Scene, Slot, View, panels, slots
from service.web.pages.step_words import Part, card_parts, who
from service.web.pages.words import plural

# --- the cards: the Decktet card's name, rank and suit symbols ------------------------------

#: Symbols every common system font has (no emoji): one per Decktet suit.
SYMBOLS = {"moons": "☾", "suns": "☀", "waves": "≈", "leaves": "❦", "wyrms": "∿", "knots": "✣"}


def face(card: Card) -> Face:
    card = str(card)
    suits = suits_of(card)
    rank = RANK[card]
    label = {1: "A", 10: "C"}.get(rank, str(rank))
    pips = tuple((f"s-{s}", SYMBOLS[s]) for s in suits)
    name = card.replace("-", " ")
    title = f"{name} ({rank}; {', '.join(suits)})"
    return Face(card, "", "card decktet", title, label, name, pips)


def _name(card: Card) -> str:
    return str(card).replace("-", " ")


# --- the table -----------------------------------------------------------------------------


def scene(view: View, names: Sequence[str]) -> Scene:
    seats = panels(view, names)
    for panel in seats:
        s = panel.seat
        quay = view["quays"][s]
        if quay["cards"] is not None:
            quay_slots = slots(quay["cards"])
        elif quay["top"] is not None:
            quay_slots = [Slot(quay["top"]), *slots(None, quay["size"] - 1)]
        else:
            quay_slots = slots(None, quay["size"])
        panel.piles.append(
            ScenePile("Quay (top first)", quay_slots, "stack", plural(quay["size"], "card"))
        )
        panel.piles.append(ScenePile("Canal (front first)", slots(view["canals"][s]), "hand"))
        pile = view["score_piles"][s]
        points = f"{len(pile)} point{'' if len(pile) == 1 else 's'}"
        panel.piles.append(ScenePile("Score pile", slots(pile), "small", points))
        if view.get("scores") is not None:
            panel.notes.append(f"this game: {view['scores'][s]}")
    centre = []
    launch = view.get("launch")
    if launch:
        raft = slots(launch["cards"])
        for slot in raft:
            slot.mark = "kept" if slot.card == launch["kept"] else ""
            slot.mark += " taken" if slot.card == launch.get("taken") else ""
        centre.append(ScenePile(f"Raft launched by {names[launch['seat']]}", raft, "trick"))
    facts = [("Turn", f"{view['turn']} of at most {view['max_turns']}")]
    if view.get("player") is not None and view["status"] == "in_deal":
        facts.append(("Player", names[view["player"]]))
    if view.get("emptied_by") is not None:
        facts.append(("Canal emptied by", names[view["emptied_by"]]))
    return Scene(facts, centre, seats)


# --- a recorded deal -----------------------------------------------------------------------


def _deck(log: TableLog) -> list[str]:
    return list(DECK)


def _piles(log: TableLog, names: Names) -> list[Pile]:
    """``docs/rules/oh-quay.md``, Setup: a quay (top first) and a canal (front first) a seat."""
    return [
        Pile(f"{kind}-{s}", f"{names[s]}: {word}", PILE, (kind, s), ordered=True)
        for s in range(2)
        for kind, word in (("quays", "quay, top first"), ("canals", "canal, front first"))
    ]


# --- the rules page ------------------------------------------------------------------------

OPTION_WORDS = {
    "first_dealer": Markup(
        "Who starts the first game (seat 0 or 1) when <code>first_player</code> is not given."
    ),
    "max_turns": Markup(
        "Ends a game that has lasted this many turns, both players' turns counted; it is then "
        "scored from the score piles only."
    ),
    "first_player": Markup(
        "Who starts the first game: seat <code>0</code> or <code>1</code>. Left out, the "
        "table's <code>first_dealer</code> starts. Later games are started by the previous "
        "game's loser."
    ),
}

# --- the moves -----------------------------------------------------------------------------


def _position_words(canal: Sequence[Any], position: int) -> str:
    if position == 0:
        return "at the front"
    if position >= len(canal):
        return "at the back"
    before = canal[position - 1]
    return f"after {_name(before)}" if before is not None else f"place {position}"


def load(offer: Offer) -> list[Group]:
    """Take a quay's top card into the canal: which quay, then where in the canal."""
    view, seat, names, bodies = offer.view, offer.seat, offer.names, offer.bodies
    canal = list(view["canals"][seat] or [])
    other = 1 - seat
    top = view["quays"][other]["top"]
    sources = []
    for source in dict.fromkeys(b["from"] for b in bodies):
        if source == "own":
            sources.append(Value("own", f"{names[seat]}'s own quay (its top is hidden from you)"))
        else:
            seen = f" (top: {_name(top)})" if top is not None else ""
            sources.append(Value("opponent", f"{names[other]}'s quay{seen}"))
    positions = [
        Value(p, _position_words(canal, p)) for p in sorted({b["position"] for b in bodies})
    ]
    group = Group(
        "builder",
        "Load cargo: take a quay's top card into your canal",
        fields=[Field("from", "From", sources), Field("position", "Put it", positions)],
        actions=bodies,
        confirm="Load",
        key=f"{seat}-load",
    )
    return [group]


def launch(offer: Offer) -> list[Group]:
    """Launch cards off the front of the canal: how many, and which to keep."""
    bodies = offer.bodies
    canal = list(offer.view["canals"][offer.seat] or [])
    counts = sorted({b["count"] for b in bodies})
    words = []
    for k in counts:
        front = ", ".join(_name(c) for c in canal[:k])
        words.append(Value(k, f"{k} card{'s' if k > 1 else ''}: {front}"))
    kept = [c for c in canal if any(b.get("keep") == c for b in bodies)]
    group = Group(
        "builder",
        "Launch from the front of your canal: a raft of two or more cards lets you keep one",
        fields=[
            Field("count", "How many", words),
            Field("keep", "Keep which card (to your quay's bottom)", moves.card_values(kept)),
        ],
        actions=bodies,
        confirm="Launch",
        key=f"{offer.seat}-launch",
    )
    return [group]


def take(offer: Offer) -> list[Group]:
    """Take one card of the opponent's raft."""
    row = [CardMove(b["card"], b) for b in offer.bodies]
    return [Group("cards", "Take one card of the raft", cards=row)]


# --- the replay's words --------------------------------------------------------------------


def _loaded(data: Mapping[str, Any], names: Names) -> list[Part]:
    source = "own quay" if data["from"] == "own" else "the opponent's quay"
    return [f"{who(data, names)} loads ", *card_parts([data["card"]]),
            f" from {source} at position {data['position']}"]  # fmt: skip


def _launched(data: Mapping[str, Any], names: Names) -> list[Part]:
    if len(data["cards"]) == 1:
        alone = " alone: back under their quay"
        return [f"{who(data, names)} launches ", *card_parts(data["cards"]), alone]
    return [f"{who(data, names)} launches ", *card_parts(data["cards"]), " and keeps ",
            *card_parts([data["kept"]])]  # fmt: skip


PAGES = GamePages(
    game=GAME_ID,
    face=face,
    scene=scene,
    sheet=DealSheet(_deck, _piles),
    rules=RulesPage("games/oh-quay/rules.html"),
    option_words=OPTION_WORDS,
    deal_word="game",
    drawers={"deal": moves.deal, "load": load, "launch": launch, "take": take},
    step_words={
        "DealStarted": lambda data, names: [
            f"Deal {data['deal']}: {names[data['starter']]} starts"
        ],
        "CargoLoaded": _loaded,
        "RaftLaunched": _launched,
        "RaftCardTaken": lambda data, names: [
            f"{who(data, names)} takes ",
            *card_parts([data["card"]]),
        ],
        "RaftScored": lambda data, names: [
            f"{who(data, names)} scores ",
            *card_parts(data["cards"]),
        ],
    },
)
