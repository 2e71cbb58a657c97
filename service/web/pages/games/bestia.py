"""Bestia on the pages (``docs/rules/bestia.md``): its cards, its table, its recorded deal, its
rules page, its moves and its replay's words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

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
from service.web.pages.words import plural

# --- the cards: rank and French suit symbol, red or black; el pánfilo marked ---------------

SUITS = {"C": ("♣", "clubs", "black"), "D": ("♦", "diamonds", "red"),
         "H": ("♥", "hearts", "red"), "S": ("♠", "spades", "black")}  # fmt: skip
RANKS = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}


def face(card: Card) -> Face:
    card = str(card)
    rank, suit = card[:-1], card[-1]
    symbol, name, colour = SUITS[suit]
    title = f"{RANKS.get(rank, rank)} of {name}"
    if card == "JC":
        title += " (el pánfilo)"
    small = "★" if card == "JC" else ""
    return Face(card, rank, f"card french {colour}", title, "", small, (("suit", symbol),))


# --- the table -----------------------------------------------------------------------------


def _payment(line: Mapping[str, Any], names: Sequence[str]) -> str:
    def paid_by(x: Any) -> str:
        return "the pot" if x == "pot" else names[x]

    return f"{paid_by(line['from'])} → {paid_by(line['to'])}: {line['chips']} ({line['reason']})"


def scene(view: View, names: Sequence[str]) -> Scene:
    seats = panels(view, names)
    for panel in seats:
        s = panel.seat
        call = view["calls"][s]
        if call:
            panel.tags.append("plays" if call == "play" else "passed")
        hand = slots(view["hands"][s], view["hand_sizes"][s])
        panel.piles.append(ScenePile("Hand", hand, "hand"))
        exchange = view["exchanges"][s]
        if exchange is not None:
            panel.notes.append(f"exchanged {exchange['count']}")
            if exchange["discarded"]:
                panel.piles.append(ScenePile("Discarded", slots(exchange["discarded"]), "small"))
            if exchange["drawn"]:
                panel.piles.append(ScenePile("Drawn", slots(exchange["drawn"]), "small"))
        if s in view["active"]:
            panel.notes.append(f"tricks won: {view['tricks_won'][s]}")
    trump = view["trump"]
    symbol, suit_name, _ = SUITS[trump] if trump else ("", "", "")
    centre = [trick(view, names)]
    if view["muestra"]:
        centre.append(
            ScenePile("Muestra", [Slot(view["muestra"])], "bottle", f"trump: {suit_name}")
        )
    facts = [
        ("Trump", f"{symbol} {suit_name}" if trump else "not dealt yet"),
        ("Pot", f"{view['pot']} chips"),
        ("Stock", plural(view["stock_size"], "card")),
    ]
    if view.get("outcome"):
        facts.append(("Outcome", str(view["outcome"])))
    for line in view.get("payments") or []:
        facts.append(("Paid", _payment(line, names)))
    return Scene(facts, centre, seats)


# --- a recorded deal -----------------------------------------------------------------------


def _deck(log: TableLog) -> list[str]:
    return [NAMES[c] for c in log.state.rules.deck]  # short or full, by table size


def _piles(log: TableLog, names: Names) -> list[Pile]:
    """``docs/rules/bestia.md``, A deal, 2: five cards a seat, and the muestra."""
    out = [Pile(f"hands-{s}", names[s], HAND, ("hands", s)) for s in range(len(log.opened.seats))]
    dealer = names[log.state.dealer]
    out.append(Pile("muestra", f"muestra (a card of {dealer}'s hand)", 1, ("muestra",),
                    marks=True))  # fmt: skip
    return out


# --- the rules page ------------------------------------------------------------------------


def _rules_extra() -> dict[str, Any]:
    """The short deck's size at each table size."""
    players = range(MIN_PLAYERS, MAX_PLAYERS + 1)
    return {"short_deck": [(n, len(deck(n, "short"))) for n in players]}


OPTION_WORDS = {
    "first_dealer": Markup(f"{FIRST_DEALER} In Bestia the deal moves to the right."),
    "deck": Markup(
        '<code>"short"</code>: 32 cards for three players, 4 more for each further player (see '
        'the table above); <code>"full"</code>: all 52 cards whatever the number of players.'
    ),
    "ante": Markup("Chips each player puts into the pot before every deal."),
    "max_exchange": Markup(
        "The most cards a player may throw away and redraw in the exchange; <code>0</code> "
        "means no exchange."
    ),
    "panfilo": Markup(
        "Whether the jack of clubs is the pánfilo, the highest trump in every deal. With "
        "<code>false</code> it is an ordinary club and nobody earns the pánfilo bonus."
    ),
    "must_undertrump": Markup(
        "With <code>true</code>, a player who cannot follow suit nor beat the trump already "
        "played must still play a lower trump if they hold one."
    ),
    "multiple_bestia": Markup(
        'When several players are in bestia: <code>"flat"</code>, each pays the pot as it '
        'stood after the tricks; <code>"doubling"</code>, each pays the pot as it stands when '
        "they pay, so each payment doubles it."
    ),
    "trick_pay": Markup(
        'What a trick earns: <code>"one"</code>, one chip; <code>"fifth"</code>, a fifth of the '
        "pot as it stood after the bestia payments, rounded down (the remainder stays in the "
        "pot)."
    ),
    "panfilo_bonus": Markup(
        "Chips the holder of the pánfilo receives from each other player when tricks are "
        "played; <code>0</code> turns the bonus off."
    ),
}

# --- the moves -----------------------------------------------------------------------------

_CALLS = {"play": "Play this deal", "pass": "Pass (sit out)"}
declare = moves.buttons("Play or pass this deal", lambda body: _CALLS[body["call"]])


def exchange(offer: Offer) -> list[Group]:
    """Throw away up to ``max_exchange`` cards, tapped one by one, and draw as many."""
    bodies = offer.bodies
    most = max(len(b["discard"]) for b in bodies)
    hand = list(offer.view["hands"][offer.seat] or [])
    usable = {c for b in bodies for c in b["discard"]}
    values = [Value(c, card=c) for c in hand if c in usable]
    prompt = f"Exchange up to {most} card{'s' if most != 1 else ''}: tap the ones to discard"
    if not usable:
        prompt = "Exchange: the drawn cards of a recorded deal are entered by the organiser"
    group = Group(
        "builder",
        prompt,
        fields=[Field("discard", "Discard", values, many=True)],
        actions=bodies,
        confirm="Exchange",
        key=f"{offer.seat}-exchange",
    )
    return [group]


# --- the replay's words --------------------------------------------------------------------


def _exchanged(data: Mapping[str, Any], names: Names) -> list[Part]:
    n = len(data["discarded"])
    return [f"{who(data, names)} exchanges {n} card{'' if n == 1 else 's'}",
            *([": "] if n else []), *(card_parts(data["discarded"]) if n else [])]  # fmt: skip


def _mosca(data: Mapping[str, Any], names: Names) -> list[Part]:
    """``Mosca: Bo with 10S JS QS KS AS takes the pot``; equal moscas share it."""
    words: list[Part] = ["Mosca: "]
    for i, (seat, hand) in enumerate(zip(data["seats"], data["cards"], strict=True)):
        words += [f"{' and ' if i else ''}{names[seat]} with ", *card_parts(hand)]
    words.append(" takes the pot" if len(data["seats"]) == 1 else " share the pot")
    return words


PAGES = GamePages(
    game=GAME_ID,
    face=face,
    scene=scene,
    sheet=DealSheet(_deck, _piles),
    rules=RulesPage("games/bestia/rules.html", _rules_extra),
    option_words=OPTION_WORDS,
    deal_word="deal",
    drawers={"deal": moves.deal, "declare": declare, "exchange": exchange, "play": moves.plays},
    step_words={
        "CardPlayed": lambda data, names: [
            f"{who(data, names)} plays ",
            *card_parts([data["card"]]),
        ],
        "Declared": lambda data, names: [f"{who(data, names)} says {data['call']}"],
        "CardsExchanged": _exchanged,
        "MoscaWon": _mosca,
        "TrickCompleted": trick_won,
    },
    step_marks={"MoscaWon": "winner"},
)
