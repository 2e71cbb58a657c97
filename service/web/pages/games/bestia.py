"""Bestia on the pages (``docs/rules/bestia.md``): its cards, its table, its recorded deal, its
rules page, its moves and its replay's words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flask_babel import gettext, lazy_gettext, ngettext, pgettext

from domain.games.bestia import GAME_ID
from domain.games.bestia.cards import NAMES, deck
from domain.games.bestia.options import HAND, MAX_PLAYERS, MIN_PLAYERS
from service.storage.tablelog import TableLog
from service.web.pages import moves
from service.web.pages.cards import Card, Face
from service.web.pages.deal_sheet import DealSheet, Names, Pile
from service.web.pages.games.pieces import FIRST_DEALER, GamePages, RulesPage
from service.web.pages.moves import Field, Group, Offer, Value
from service.web.pages.scenes import Pile as ScenePile
from service.web.pages.scenes import Scene, Slot, View, panels, slots, trick
from service.web.pages.step_words import Part, card_parts, trick_won, who

# --- the cards: rank and French suit symbol, red or black; el pánfilo marked ---------------

SUITS = {"C": ("♣", lazy_gettext("clubs"), "black"),
         "D": ("♦", lazy_gettext("diamonds"), "red"),
         "H": ("♥", lazy_gettext("hearts"), "red"),
         "S": ("♠", lazy_gettext("spades"), "black")}  # fmt: skip
RANKS = {"J": lazy_gettext("jack"), "Q": lazy_gettext("queen"), "K": lazy_gettext("king"),
         "A": lazy_gettext("ace")}  # fmt: skip


def face(card: Card) -> Face:
    card = str(card)
    rank, suit = card[:-1], card[-1]
    symbol, name, colour = SUITS[suit]
    title = gettext("%(rank)s of %(suit)s", rank=RANKS.get(rank, rank), suit=name)
    if card == "JC":
        title = gettext("%(card)s (el pánfilo)", card=title)
    small = "★" if card == "JC" else ""
    return Face(card, rank, f"card french {colour}", title, "", small, (("suit", symbol),))


# --- the table -----------------------------------------------------------------------------


#: Why chips moved (``DealSettled.payments``' reasons) and how a deal ended (``outcome``).
WHY = {
    "ante": lazy_gettext("ante"),
    "bestia": lazy_gettext("bestia"),
    "trick": lazy_gettext("trick"),
    "capot": lazy_gettext("capot"),
    "mosca": lazy_gettext("mosca"),
    "panfilo": lazy_gettext("panfilo"),
    "uncontested": lazy_gettext("uncontested"),
    "void": lazy_gettext("void"),
    "played": lazy_gettext("played"),
}


def _why(word: Any) -> str:
    said = WHY.get(str(word))
    return str(said) if said is not None else str(word)


def _payment(line: Mapping[str, Any], names: Sequence[str]) -> str:
    def paid_by(x: Any) -> str:
        return gettext("the pot") if x == "pot" else names[x]

    return gettext(
        "%(payer)s → %(payee)s: %(chips)s (%(why)s)",
        payer=paid_by(line["from"]),
        payee=paid_by(line["to"]),
        chips=line["chips"],
        why=_why(line["reason"]),
    )


def scene(view: View, names: Sequence[str]) -> Scene:
    seats = panels(view, names)
    for panel in seats:
        s = panel.seat
        call = view["calls"][s]
        if call:
            panel.tags.append(gettext("plays") if call == "play" else gettext("passed"))
        hand = slots(view["hands"][s], view["hand_sizes"][s])
        panel.piles.append(ScenePile(gettext("Hand"), hand, "hand"))
        exchange = view["exchanges"][s]
        if exchange is not None:
            panel.notes.append(gettext("exchanged %(num)s", num=exchange["count"]))
            if exchange["discarded"]:
                thrown = slots(exchange["discarded"])
                panel.piles.append(ScenePile(gettext("Discarded"), thrown, "small"))
            if exchange["drawn"]:
                drawn = slots(exchange["drawn"])
                panel.piles.append(ScenePile(gettext("Drawn"), drawn, "small"))
        if s in view["active"]:
            panel.notes.append(gettext("tricks won: %(num)s", num=view["tricks_won"][s]))
    trump = view["trump"]
    symbol, suit_name, _colour = SUITS[trump] if trump else ("", "", "")
    centre = [trick(view, names)]
    if view["muestra"]:
        note = gettext("trump: %(suit)s", suit=suit_name)
        centre.append(ScenePile(gettext("Muestra"), [Slot(view["muestra"])], "bottle", note))
    pot = ngettext("%(num)s chip", "%(num)s chips", view["pot"])
    stock = ngettext("%(num)s card", "%(num)s cards", view["stock_size"])
    facts = [
        (gettext("Trump"), f"{symbol} {suit_name}" if trump else gettext("not dealt yet")),
        (gettext("Pot"), pot),
        (gettext("Stock"), stock),
    ]
    if view.get("outcome"):
        facts.append((gettext("Outcome"), _why(view["outcome"])))
    for line in view.get("payments") or []:
        facts.append((gettext("Paid"), _payment(line, names)))
    return Scene(facts, centre, seats)


# --- a recorded deal -----------------------------------------------------------------------


def _deck(log: TableLog) -> list[str]:
    return [NAMES[c] for c in log.state.rules.deck]  # short or full, by table size


def _piles(log: TableLog, names: Names) -> list[Pile]:
    """``docs/rules/bestia.md``, A deal, 2: five cards a seat, and the muestra."""
    out = [Pile(f"hands-{s}", names[s], HAND, ("hands", s)) for s in range(len(log.opened.seats))]
    dealer = names[log.state.dealer]
    label = gettext("muestra (a card of %(name)s's hand)", name=dealer)
    out.append(Pile("muestra", label, 1, ("muestra",), marks=True))
    return out


# --- the rules page ------------------------------------------------------------------------


def _rules_extra() -> dict[str, Any]:
    """The short deck's size at each table size."""
    players = range(MIN_PLAYERS, MAX_PLAYERS + 1)
    return {"short_deck": [(n, len(deck(n, "short"))) for n in players]}


OPTION_WORDS = {
    "first_dealer": lazy_gettext(
        "%(first_dealer)s In Bestia the deal moves to the right.", first_dealer=FIRST_DEALER
    ),
    "deck": lazy_gettext(
        '<code>"short"</code>: 32 cards for three players, 4 more for each further player (see '
        'the table above); <code>"full"</code>: all 52 cards whatever the number of players.'
    ),
    "ante": lazy_gettext("Chips each player puts into the pot before every deal."),
    "max_exchange": lazy_gettext(
        "The most cards a player may throw away and redraw in the exchange; <code>0</code> "
        "means no exchange."
    ),
    "panfilo": lazy_gettext(
        "Whether the jack of clubs is the pánfilo, the highest trump in every deal. With "
        "<code>false</code> it is an ordinary club and nobody earns the pánfilo bonus."
    ),
    "must_undertrump": lazy_gettext(
        "With <code>true</code>, a player who cannot follow suit nor beat the trump already "
        "played must still play a lower trump if they hold one."
    ),
    "multiple_bestia": lazy_gettext(
        'When several players are in bestia: <code>"flat"</code>, each pays the pot as it '
        'stood after the tricks; <code>"doubling"</code>, each pays the pot as it stands when '
        "they pay, so each payment doubles it."
    ),
    "trick_pay": lazy_gettext(
        'What a trick earns: <code>"one"</code>, one chip; <code>"fifth"</code>, a fifth of the '
        "pot as it stood after the bestia payments, rounded down (the remainder stays in the "
        "pot)."
    ),
    "panfilo_bonus": lazy_gettext(
        "Chips the holder of the pánfilo receives from each other player when tricks are "
        "played; <code>0</code> turns the bonus off."
    ),
}

# --- the moves -----------------------------------------------------------------------------

_CALLS = {"play": lazy_gettext("Play this deal"), "pass": lazy_gettext("Pass (sit out)")}
declare = moves.buttons(
    lazy_gettext("Play or pass this deal"), lambda body: str(_CALLS[body["call"]])
)


def exchange(offer: Offer) -> list[Group]:
    """Throw away up to ``max_exchange`` cards, tapped one by one, and draw as many."""
    bodies = offer.bodies
    most = max(len(b["discard"]) for b in bodies)
    hand = list(offer.view["hands"][offer.seat] or [])
    usable = {c for b in bodies for c in b["discard"]}
    values = [Value(c, card=c) for c in hand if c in usable]
    prompt = ngettext(
        "Exchange up to %(num)s card: tap the ones to discard",
        "Exchange up to %(num)s cards: tap the ones to discard",
        most,
    )
    if not usable:
        prompt = gettext(
            "Exchange: the drawn cards of a recorded deal are entered by the organiser"
        )
    group = Group(
        "builder",
        prompt,
        fields=[Field("discard", gettext("Discard"), values, many=True)],
        actions=bodies,
        confirm=gettext("Exchange"),
        key=f"{offer.seat}-exchange",
    )
    return [group]


# --- the replay's words --------------------------------------------------------------------


def _exchanged(data: Mapping[str, Any], names: Names) -> list[Part]:
    n = len(data["discarded"])
    said = ngettext(
        "%(name)s exchanges %(num)s card", "%(name)s exchanges %(num)s cards", n,
        name=who(data, names),
    )  # fmt: skip
    return [said, *([": "] if n else []), *(card_parts(data["discarded"]) if n else [])]


def _mosca(data: Mapping[str, Any], names: Names) -> list[Part]:
    """``Mosca: Bo with 10S JS QS KS AS takes the pot``; equal moscas share it."""
    words: list[Part] = [gettext("Mosca: ")]
    for i, (seat, hand) in enumerate(zip(data["seats"], data["cards"], strict=True)):
        with_ = (
            gettext(" and %(name)s with ", name=names[seat])
            if i
            else gettext("%(name)s with ", name=names[seat])
        )
        words += [with_, *card_parts(hand)]
    alone = len(data["seats"]) == 1
    words.append(gettext(" takes the pot") if alone else gettext(" share the pot"))
    return words


def _declared(data: Mapping[str, Any], names: Names) -> list[Part]:
    """``Bo says play`` / ``Bo says pass``."""
    if data["call"] == "play":
        return [gettext("%(name)s says play", name=who(data, names))]
    if data["call"] == "pass":
        return [gettext("%(name)s says pass", name=who(data, names))]
    return [f"{who(data, names)} {data['call']}"]


PAGES = GamePages(
    game=GAME_ID,
    name=lambda: pgettext("the name of a game", "Bestia"),
    face=face,
    scene=scene,
    sheet=DealSheet(_deck, _piles),
    rules=RulesPage("games/bestia/rules.html", _rules_extra),
    option_words=OPTION_WORDS,
    deal_word="deal",
    drawers={"deal": moves.deal, "declare": declare, "exchange": exchange, "play": moves.plays},
    step_words={
        "CardPlayed": lambda data, names: [
            gettext("%(name)s plays ", name=who(data, names)),
            *card_parts([data["card"]]),
        ],
        "Declared": _declared,
        "CardsExchanged": _exchanged,
        "MoscaWon": _mosca,
        "TrickCompleted": trick_won,
    },
    step_marks={"MoscaWon": "winner"},
)
