"""Oh Quay on the pages (``docs/rules/oh-quay.md``): its cards, its table, its recorded deal, its
rules page, its moves and its replay's words. One deal of Oh Quay is a "game"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flask_babel import gettext, lazy_gettext, ngettext, pgettext

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

# --- the cards: the Decktet card's name, rank and suit symbols ------------------------------

#: Symbols every common system font has (no emoji): one per Decktet suit.
SYMBOLS = {"moons": "☾", "suns": "☀", "waves": "≈", "leaves": "❦", "wyrms": "∿", "knots": "✣"}

#: Each card's name as the pages write it (its id with spaces), in the viewer's language.
NAMES = {
    "ace-moons": lazy_gettext("ace moons"),
    "ace-suns": lazy_gettext("ace suns"),
    "ace-waves": lazy_gettext("ace waves"),
    "ace-leaves": lazy_gettext("ace leaves"),
    "ace-wyrms": lazy_gettext("ace wyrms"),
    "ace-knots": lazy_gettext("ace knots"),
    "author": lazy_gettext("author"),
    "desert": lazy_gettext("desert"),
    "origin": lazy_gettext("origin"),
    "journey": lazy_gettext("journey"),
    "painter": lazy_gettext("painter"),
    "savage": lazy_gettext("savage"),
    "mountain": lazy_gettext("mountain"),
    "sailor": lazy_gettext("sailor"),
    "battle": lazy_gettext("battle"),
    "forest": lazy_gettext("forest"),
    "discovery": lazy_gettext("discovery"),
    "soldier": lazy_gettext("soldier"),
    "lunatic": lazy_gettext("lunatic"),
    "penitent": lazy_gettext("penitent"),
    "market": lazy_gettext("market"),
    "chance-meeting": lazy_gettext("chance meeting"),
    "castle": lazy_gettext("castle"),
    "cave": lazy_gettext("cave"),
    "diplomat": lazy_gettext("diplomat"),
    "mill": lazy_gettext("mill"),
    "betrayal": lazy_gettext("betrayal"),
    "pact": lazy_gettext("pact"),
    "darkness": lazy_gettext("darkness"),
    "merchant": lazy_gettext("merchant"),
    "huntress": lazy_gettext("huntress"),
    "bard": lazy_gettext("bard"),
    "sea": lazy_gettext("sea"),
    "end": lazy_gettext("end"),
    "calamity": lazy_gettext("calamity"),
    "windfall": lazy_gettext("windfall"),
}
#: The Decktet's suits, in the viewer's language (a card's title names them).
SUIT_NAMES = {
    "moons": lazy_gettext("moons"),
    "suns": lazy_gettext("suns"),
    "waves": lazy_gettext("waves"),
    "leaves": lazy_gettext("leaves"),
    "wyrms": lazy_gettext("wyrms"),
    "knots": lazy_gettext("knots"),
}


def face(card: Card) -> Face:
    card = str(card)
    suits = suits_of(card)
    rank = RANK[card]
    label = {1: "A", 10: "C"}.get(rank, str(rank))
    pips = tuple((f"s-{s}", SYMBOLS[s]) for s in suits)
    name = _name(card)
    said = ", ".join(str(SUIT_NAMES.get(s, s)) for s in suits)
    title = f"{name} ({rank}; {said})"
    return Face(card, "", "card decktet", title, label, name, pips)


def _name(card: Card) -> str:
    found = NAMES.get(str(card))
    return str(found) if found is not None else str(card).replace("-", " ")


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
        size = ngettext("%(num)s card", "%(num)s cards", quay["size"])
        panel.piles.append(ScenePile(gettext("Quay (top first)"), quay_slots, "stack", size))
        canal = slots(view["canals"][s])
        panel.piles.append(ScenePile(gettext("Canal (front first)"), canal, "hand"))
        pile = view["score_piles"][s]
        points = ngettext("%(num)s point", "%(num)s points", len(pile))
        panel.piles.append(ScenePile(gettext("Score pile"), slots(pile), "small", points))
        if view.get("scores") is not None:
            panel.notes.append(gettext("this game: %(score)s", score=view["scores"][s]))
    centre = []
    launch = view.get("launch")
    if launch:
        raft = slots(launch["cards"])
        for slot in raft:
            slot.mark = "kept" if slot.card == launch["kept"] else ""
            slot.mark += " taken" if slot.card == launch.get("taken") else ""
        label = gettext("Raft launched by %(name)s", name=names[launch["seat"]])
        centre.append(ScenePile(label, raft, "trick"))
    turn = gettext("%(turn)s of at most %(most)s", turn=view["turn"], most=view["max_turns"])
    facts = [(gettext("Turn"), turn)]
    if view.get("player") is not None and view["status"] == "in_deal":
        facts.append((gettext("Player"), names[view["player"]]))
    if view.get("emptied_by") is not None:
        facts.append((gettext("Canal emptied by"), names[view["emptied_by"]]))
    return Scene(facts, centre, seats)


# --- a recorded deal -----------------------------------------------------------------------


def _deck(log: TableLog) -> list[str]:
    return list(DECK)


def _piles(log: TableLog, names: Names) -> list[Pile]:
    """``docs/rules/oh-quay.md``, Setup: a quay (top first) and a canal (front first) a seat."""
    words = (
        ("quays", gettext("%(name)s: quay, top first")),
        ("canals", gettext("%(name)s: canal, front first")),
    )
    return [
        Pile(f"{kind}-{s}", word % {"name": names[s]}, PILE, (kind, s), ordered=True)
        for s in range(2)
        for kind, word in words
    ]


# --- the rules page ------------------------------------------------------------------------

OPTION_WORDS = {
    "first_dealer": lazy_gettext(
        "Who starts the first game (seat 0 or 1) when <code>first_player</code> is not given."
    ),
    "max_turns": lazy_gettext(
        "Ends a game that has lasted this many turns, both players' turns counted; it is then "
        "scored from the score piles only."
    ),
    "first_player": lazy_gettext(
        "Who starts the first game: seat <code>0</code> or <code>1</code>. Left out, the "
        "table's <code>first_dealer</code> starts. Later games are started by the previous "
        "game's loser."
    ),
}

# --- the moves -----------------------------------------------------------------------------


def _position_words(canal: Sequence[Any], position: int) -> str:
    if position == 0:
        return gettext("at the front")
    if position >= len(canal):
        return gettext("at the back")
    before = canal[position - 1]
    if before is not None:
        return gettext("after %(card)s", card=_name(before))
    return pgettext("a position in the canal", "place %(num)s", num=position)


def load(offer: Offer) -> list[Group]:
    """Take a quay's top card into the canal: which quay, then where in the canal."""
    view, seat, names, bodies = offer.view, offer.seat, offer.names, offer.bodies
    canal = list(view["canals"][seat] or [])
    other = 1 - seat
    top = view["quays"][other]["top"]
    sources = []
    for source in dict.fromkeys(b["from"] for b in bodies):
        if source == "own":
            own = gettext("%(name)s's own quay (its top is hidden from you)", name=names[seat])
            sources.append(Value("own", own))
        elif top is not None:
            said = gettext("%(name)s's quay (top: %(card)s)", name=names[other], card=_name(top))
            sources.append(Value("opponent", said))
        else:
            sources.append(Value("opponent", gettext("%(name)s's quay", name=names[other])))
    positions = [
        Value(p, _position_words(canal, p)) for p in sorted({b["position"] for b in bodies})
    ]
    group = Group(
        "builder",
        gettext("Load cargo: take a quay's top card into your canal"),
        fields=[
            Field("from", gettext("From"), sources),
            Field("position", gettext("Put it"), positions),
        ],
        actions=bodies,
        confirm=gettext("Load"),
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
        said = ngettext("%(num)s card: %(front)s", "%(num)s cards: %(front)s", k, front=front)
        words.append(Value(k, said))
    kept = [c for c in canal if any(b.get("keep") == c for b in bodies)]
    group = Group(
        "builder",
        gettext(
            "Launch from the front of your canal: a raft of two or more cards lets you keep one"
        ),
        fields=[
            Field("count", gettext("How many"), words),
            Field(
                "keep",
                gettext("Keep which card (to your quay's bottom)"),
                moves.card_values(kept),
            ),
        ],
        actions=bodies,
        confirm=gettext("Launch"),
        key=f"{offer.seat}-launch",
    )
    return [group]


def take(offer: Offer) -> list[Group]:
    """Take one card of the opponent's raft."""
    row = [CardMove(b["card"], b) for b in offer.bodies]
    return [Group("cards", gettext("Take one card of the raft"), cards=row)]


# --- the replay's words --------------------------------------------------------------------


def _loaded(data: Mapping[str, Any], names: Names) -> list[Part]:
    name, position = who(data, names), data["position"]
    if data["from"] == "own":
        whence = gettext(" from own quay at position %(num)s", num=position)
    else:
        whence = gettext(" from the opponent's quay at position %(num)s", num=position)
    return [gettext("%(name)s loads ", name=name), *card_parts([data["card"]]), whence]


def _launched(data: Mapping[str, Any], names: Names) -> list[Part]:
    if len(data["cards"]) == 1:
        alone = gettext(" alone: back under their quay")
        return [gettext("%(name)s launches ", name=who(data, names)),
                *card_parts(data["cards"]), alone]  # fmt: skip
    return [gettext("%(name)s launches ", name=who(data, names)), *card_parts(data["cards"]),
            gettext(" and keeps "), *card_parts([data["kept"]])]  # fmt: skip


PAGES = GamePages(
    game=GAME_ID,
    name=lambda: pgettext("the name of a game", "Oh Quay"),
    face=face,
    scene=scene,
    sheet=DealSheet(_deck, _piles),
    rules=RulesPage("games/oh-quay/rules.html"),
    option_words=OPTION_WORDS,
    deal_word="game",
    drawers={"deal": moves.deal, "load": load, "launch": launch, "take": take},
    step_words={
        "DealStarted": lambda data, names: [
            gettext(
                "Deal %(deal)s: %(name)s starts", deal=data["deal"], name=names[data["starter"]]
            )
        ],
        "CargoLoaded": _loaded,
        "RaftLaunched": _launched,
        "RaftCardTaken": lambda data, names: [
            gettext("%(name)s takes ", name=who(data, names)),
            *card_parts([data["card"]]),
        ],
        "RaftScored": lambda data, names: [
            gettext("%(name)s scores ", name=who(data, names)),
            *card_parts(data["cards"]),
        ],
    },
)
