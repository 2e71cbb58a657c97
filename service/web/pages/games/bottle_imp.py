"""The Bottle Imp on the pages (``docs/rules/bottle-imp.md``): its cards, its table, its recorded
deal, its rules page, its moves and its replay's words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from domain.games.bottle_imp import GAME_ID, SPEC, layout
from domain.games.bottle_imp.cards import COINS, DECK, START_CARD, SUIT, SUITS
from service.storage.tablelog import TableLog
from service.web.pages import moves
from service.web.pages.cards import Card, Face
from service.web.pages.deal_sheet import DealSheet, Names, Pile
from service.web.pages.games.pieces import FIRST_DEALER, GamePages, RulesPage
from service.web.pages.moves import Field, Group, Offer
from service.web.pages.scenes import Pile as ScenePile
from service.web.pages.scenes import Scene, SeatPanel, Slot, View, panels, slots, trick
from service.web.pages.step_words import Part, card_parts, who
from service.web.pages.words import plural

# --- the cards: the number on its suit's colour, coins as pips -----------------------------

_INITIAL = {"yellow": "Y", "blue": "B", "red": "R"}


def face(card: Card) -> Face:
    card = int(card)
    if card == START_CARD:
        return Face(card, "19", "card imp start", "19, the start card under the bottle")
    suit = SUITS[SUIT[card]]
    coins = COINS[card]
    return Face(
        card,
        str(card),
        f"card imp imp-{suit}",
        f"{card} ({suit}, {coins} coin{'s' if coins > 1 else ''})",
        _INITIAL[suit],
        "●" * coins,
    )


# --- the table -----------------------------------------------------------------------------


def _per_pile(value: Any, variant: str) -> list[tuple[str, Any]]:
    """A per-seat value as (pile name, value) pairs: Bright House keeps two piles."""
    if variant == layout.BRIGHT_HOUSE:
        return [("A", value["A"]), ("B", value["B"])] if value is not None else []
    return [("", value)]


def _seat(panel: SeatPanel, view: View) -> None:
    """A seat: its hand (Bright House: two piles), and what the view shows of its
    devil's-trick card, passes, received cards and won cards."""
    s, variant = panel.seat, view["variant"]
    bright = variant == layout.BRIGHT_HOUSE
    open_pile = (view.get("open_hands") or [None, None])[s] if bright else None
    sizes = dict(_per_pile(view["hand_sizes"][s], variant))
    for pile, cards in _per_pile(view["hands"][s], variant):
        label = "Hand" if not pile else f"Pile {pile}" + (" (open)" if pile == open_pile else "")
        panel.piles.append(ScenePile(label, slots(cards, sizes[pile]), "hand"))
    for pile, card in _per_pile(view["discards"][s], variant):
        if card is not None:
            label = f"Laid in the devil's trick {pile}".strip()
            panel.piles.append(ScenePile(label, [Slot(card)], "small"))
    for pile, passed in _per_pile(view["passes"][s], variant):
        if passed:
            label = "Passed left, right" if len(passed) == 2 else f"Passed {pile}".strip()
            panel.piles.append(ScenePile(label, slots(passed), "small"))
    for pile, got in _per_pile(view["received"][s], variant):
        if got:
            panel.piles.append(ScenePile(f"Received {pile}".strip(), slots(got), "small"))
    won = view["won"][s]
    if won:
        coins = sum(COINS[c] for c in won)
        panel.piles.append(ScenePile("Won", slots(won), "small", plural(coins, "coin")))
    if view.get("scores") is not None:
        panel.notes.append(f"this deal: {view['scores'][s]:+d}")


def scene(view: View, names: Sequence[str]) -> Scene:
    bottle = view["bottle"]
    owner = bottle["owner"]
    seats = panels(view, names)
    for panel in seats:
        if owner == panel.seat:
            panel.tags.append("bottle")
        _seat(panel, view)
    price_note = f"owner: {names[owner]}" if owner is not None else "nobody owns it yet"
    price = ScenePile("Bottle", [Slot(bottle["price"], "price")], "bottle", price_note)
    centre = [trick(view, names), price]
    devil = view.get("devil_trick")
    if devil is not None or view["devil_trick_size"]:
        centre.append(ScenePile("Devil's trick", slots(devil, view["devil_trick_size"]), "small"))
    facts = [
        ("Bottle", f"price {bottle['price']}, {price_note}"),
        ("Tricks played", str(view["tricks_played"])),
    ]
    if view["variant"] == layout.LOPAKA:
        facts.append(("Lopaka", "plays by itself; its hand is open once the exchange is done"))
    return Scene(facts, centre, seats)


def winning_card(trick: Mapping[str, Any]) -> Card:
    """The card that took a completed trick. A Bright House seat plays two cards to a
    trick, so the winner's seat does not say which: it is the card that bought the
    bottle (the new price) or else the winner's highest card (rule 4)."""
    mine = [c for s, c in zip(trick["seats"], trick["cards"], strict=True) if s == trick["winner"]]
    if len(mine) == 1:
        return mine[0]
    return trick["price"] if trick.get("price") in mine else max(mine)


# --- a recorded deal -----------------------------------------------------------------------


def _deck(log: TableLog) -> list[str]:
    return [str(c) for c in DECK]  # the start card is never dealt


def _piles(log: TableLog, names: Names) -> list[Pile]:
    """``docs/rules/bottle-imp.md``, Recorded deals: hands (bright-house: piles A and B per
    seat; lopaka: Lopaka's hand too) and lopaka's devil's trick."""
    opened = log.opened
    players = len(opened.seats)
    if opened.variant == layout.BRIGHT_HOUSE:
        return [
            Pile(f"hands-{s}-{p}", f"{names[s]}: pile {p}", 9, ("hands", s, p))
            for s in range(players)
            for p in layout.PILES
        ]
    hands = layout.seats(opened.variant, players)
    size = 11 if opened.variant == layout.LOPAKA else 36 // hands
    out = [Pile(f"hands-{s}", names[s], size, ("hands", s)) for s in range(hands)]
    if opened.variant == layout.LOPAKA:
        out.append(Pile("devil", "the devil's trick", 3, ("devil",)))
    return out


def _card(text: str) -> Card:
    """A card as the body writes it: a number, in ASCII digits ("²" or a 5,000-digit
    number stays text, for the rules to refuse)."""
    if text.isascii() and text.isdigit() and len(text) <= 3:
        return int(text)
    return text


# --- the rules page ------------------------------------------------------------------------


def _rules_extra() -> dict[str, Any]:
    """The cards by coins and suit, for the page's table of the deck."""
    by_coins: dict[int, list[list[int]]] = {}
    for card in SPEC.deck:
        if card == START_CARD:
            continue
        row = by_coins.setdefault(COINS[card], [[] for _ in SUITS])
        row[SUIT[card]].append(card)
    return {"suits": SUITS, "by_coins": sorted(by_coins.items())}


OPTION_WORDS = {
    "first_dealer": Markup(f"{FIRST_DEALER} In Lopaka, seat 0 or 1 (Lopaka never deals)."),
}

# --- the moves -----------------------------------------------------------------------------


def discards(offer: Offer) -> list[Group]:
    """Lay a card in the devil's trick (Bright House: one of each pile)."""
    groups = []
    for hand, per_hand in moves.by_hand(offer.bodies).items():
        row = [moves.CardMove(b["card"], b) for b in per_hand]
        prompt = f"Lay one card{moves.of_pile(hand)} in the devil's trick"
        groups.append(Group("cards", prompt, cards=row))
    return groups


def passes(offer: Offer) -> list[Group]:
    """Pass a card to each neighbour (two players: one to the opponent, Bright House:
    one of each pile), built card by card."""
    seat, names = offer.seat, offer.names
    n = len(names)
    groups = []
    for hand, some in moves.by_hand(offer.bodies).items():
        first = some[0]
        if "left" in first:
            left, right = names[(seat + 1) % n], names[(seat - 1) % n]
            lefts = moves.card_values([b["left"] for b in some])
            rights = moves.card_values([b["right"] for b in some])
            fields = [
                Field("left", f"Pass left, to {left}", lefts),
                Field("right", f"Pass right, to {right}", rights),
            ]
            prompt = "Pass one card to each neighbour"
        else:
            name = "opponent" if "opponent" in first else "card"
            other = names[1 - seat]
            fields = [Field(name, f"Pass to {other}", moves.card_values([b[name] for b in some]))]
            prompt = f"Pass one card{moves.of_pile(hand)} to {other}"
        key = f"{seat}-pass-{hand or ''}"
        built = Group("builder", prompt, fields=fields, actions=some, confirm="Pass", key=key)
        groups.append(built)
    return groups


choose_open = moves.buttons("Choose which pile lies open", lambda body: f"Open pile {body['hand']}")

# --- the replay's words --------------------------------------------------------------------


def _played(data: Mapping[str, Any], names: Names) -> list[Part]:
    pile = f" from pile {data['hand']}" if data.get("hand") else ""
    return [f"{who(data, names)} plays{pile} ", *card_parts([data["card"]])]


def _discarded(data: Mapping[str, Any], names: Names) -> list[Part]:
    return [f"{who(data, names)} lays in the devil's trick ", *card_parts([data["card"]])]


def _passed(data: Mapping[str, Any], names: Names) -> list[Part]:
    if "left" in data:
        return [f"{who(data, names)} passes left ", *card_parts([data["left"]]), " and right ",
                *card_parts([data["right"]])]  # fmt: skip
    passed = [data.get("opponent"), data.get("card")]
    return [f"{who(data, names)} passes ", *card_parts(passed)]


def _trick_won(data: Mapping[str, Any], names: Names) -> list[Part]:
    words = f"Trick {data['trick']}: {names[data['winner']]} wins"
    if data.get("owner") == data["winner"] and data.get("price") in data["cards"]:
        words += f" and buys the bottle at {data['price']}"
    return [words]


PAGES = GamePages(
    game=GAME_ID,
    face=face,
    scene=scene,
    sheet=DealSheet(_deck, _piles, _card),
    rules=RulesPage("games/bottle-imp/rules.html", _rules_extra),
    option_words=OPTION_WORDS,
    deal_word="deal",
    drawers={
        "deal": moves.deal,
        "discard": discards,
        "pass": passes,
        "choose_open": choose_open,
        "play": moves.plays,
    },
    step_words={
        "CardPlayed": _played,
        "CardDiscarded": _discarded,
        "CardsPassed": _passed,
        "PassesDelivered": lambda data, names: ["The passed cards are delivered"],
        "OpenHandChosen": lambda data, names: [f"{who(data, names)} opens pile {data['hand']}"],
        "TrickCompleted": _trick_won,
    },
    winning_card=winning_card,
)
