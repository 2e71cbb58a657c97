"""The Bottle Imp on the pages (``docs/rules/bottle-imp.md``): its cards, its table, its recorded
deal, its rules page, its moves and its replay's words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flask_babel import gettext, lazy_gettext, ngettext, pgettext

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

# --- the cards: the number on its suit's colour, coins as pips -----------------------------

_COLOURS = {
    "yellow": lazy_gettext("yellow"),
    "blue": lazy_gettext("blue"),
    "red": lazy_gettext("red"),
}


def _initial(suit: str) -> str:
    """The colour's initial in the card's corner, in the page's language (Spanish yellow
    and blue both begin with A: each language picks initials that tell its colours apart)."""
    if suit == "yellow":
        return pgettext("initial of the colour yellow on a card", "Y")
    if suit == "blue":
        return pgettext("initial of the colour blue on a card", "B")
    return pgettext("initial of the colour red on a card", "R")


def face(card: Card) -> Face:
    card = int(card)
    if card == START_CARD:
        return Face(card, "19", "card imp start", gettext("19, the start card under the bottle"))
    suit = SUITS[SUIT[card]]
    coins = COINS[card]
    return Face(
        card,
        str(card),
        f"card imp imp-{suit}",
        ngettext(
            "%(card)s (%(suit)s, %(num)s coin)",
            "%(card)s (%(suit)s, %(num)s coins)",
            coins,
            card=card,
            suit=str(_COLOURS.get(suit, suit)),
        ),
        _initial(suit),
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
        if not pile:
            label = gettext("Hand")
        elif pile == open_pile:
            label = gettext("Pile %(pile)s (open)", pile=pile)
        else:
            label = gettext("Pile %(pile)s", pile=pile)
        panel.piles.append(ScenePile(label, slots(cards, sizes[pile]), "hand"))
    for pile, card in _per_pile(view["discards"][s], variant):
        if card is not None:
            label = gettext("Laid in the devil's trick %(pile)s", pile=pile).strip()
            panel.piles.append(ScenePile(label, [Slot(card)], "small"))
    for pile, passed in _per_pile(view["passes"][s], variant):
        if passed:
            if len(passed) == 2:
                label = gettext("Passed left, right")
            else:
                label = gettext("Passed %(pile)s", pile=pile).strip()
            panel.piles.append(ScenePile(label, slots(passed), "small"))
    for pile, got in _per_pile(view["received"][s], variant):
        if got:
            label = gettext("Received %(pile)s", pile=pile).strip()
            panel.piles.append(ScenePile(label, slots(got), "small"))
    won = view["won"][s]
    if won:
        coins = sum(COINS[c] for c in won)
        said = ngettext("%(num)s coin", "%(num)s coins", coins)
        panel.piles.append(ScenePile(gettext("Won"), slots(won), "small", said))
    if view.get("scores") is not None:
        score = format(view["scores"][s], "+d")
        panel.notes.append(gettext("this deal: %(score)s", score=score))


def scene(view: View, names: Sequence[str]) -> Scene:
    bottle = view["bottle"]
    owner = bottle["owner"]
    seats = panels(view, names)
    for panel in seats:
        if owner == panel.seat:
            panel.tags.append(gettext("bottle"))
        _seat(panel, view)
    if owner is not None:
        price_note = gettext("owner: %(name)s", name=names[owner])
    else:
        price_note = gettext("nobody owns it yet")
    price_slot = Slot(bottle["price"], gettext("price"))
    price = ScenePile(gettext("Bottle"), [price_slot], "bottle", price_note)
    centre = [trick(view, names), price]
    devil = view.get("devil_trick")
    if devil is not None or view["devil_trick_size"]:
        devils = slots(devil, view["devil_trick_size"])
        centre.append(ScenePile(gettext("Devil's trick"), devils, "small"))
    facts = [
        (
            gettext("Bottle"),
            gettext("price %(price)s, %(note)s", price=bottle["price"], note=price_note),
        ),
        (gettext("Tricks played"), str(view["tricks_played"])),
    ]
    if view["variant"] == layout.LOPAKA:
        lopaka = gettext("plays by itself; its hand is open once the exchange is done")
        facts.append(("Lopaka", lopaka))
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
            Pile(f"hands-{s}-{p}", _pile_label(names[s], p), 9, ("hands", s, p))
            for s in range(players)
            for p in layout.PILES
        ]
    hands = layout.seats(opened.variant, players)
    size = 11 if opened.variant == layout.LOPAKA else 36 // hands
    out = [Pile(f"hands-{s}", names[s], size, ("hands", s)) for s in range(hands)]
    if opened.variant == layout.LOPAKA:
        out.append(Pile("devil", gettext("the devil's trick"), 3, ("devil",)))
    return out


def _pile_label(name: str, pile: str) -> str:
    return gettext("%(name)s: pile %(pile)s", name=name, pile=pile)


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
    "first_dealer": lazy_gettext(
        "%(first_dealer)s In Lopaka, seat 0 or 1 (Lopaka never deals).", first_dealer=FIRST_DEALER
    ),
}

# --- the moves -----------------------------------------------------------------------------


def discards(offer: Offer) -> list[Group]:
    """Lay a card in the devil's trick (Bright House: one of each pile)."""
    groups = []
    for hand, per_hand in moves.by_hand(offer.bodies).items():
        row = [moves.CardMove(b["card"], b) for b in per_hand]
        if hand:
            prompt = gettext("Lay one card of pile %(pile)s in the devil's trick", pile=hand)
        else:
            prompt = gettext("Lay one card in the devil's trick")
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
                Field("left", gettext("Pass left, to %(name)s", name=left), lefts),
                Field("right", gettext("Pass right, to %(name)s", name=right), rights),
            ]
            prompt = gettext("Pass one card to each neighbour")
        else:
            name = "opponent" if "opponent" in first else "card"
            other = names[1 - seat]
            values = moves.card_values([b[name] for b in some])
            fields = [Field(name, gettext("Pass to %(name)s", name=other), values)]
            if hand:
                prompt = gettext(
                    "Pass one card of pile %(pile)s to %(name)s", pile=hand, name=other
                )
            else:
                prompt = gettext("Pass one card to %(name)s", name=other)
        key = f"{seat}-pass-{hand or ''}"
        confirm = gettext("Pass")
        built = Group("builder", prompt, fields=fields, actions=some, confirm=confirm, key=key)
        groups.append(built)
    return groups


choose_open = moves.buttons(
    lazy_gettext("Choose which pile lies open"),
    lambda body: gettext("Open pile %(pile)s", pile=body["hand"]),
)

# --- the replay's words --------------------------------------------------------------------


def _played(data: Mapping[str, Any], names: Names) -> list[Part]:
    if data.get("hand"):
        said = gettext(
            "%(name)s plays from pile %(pile)s ", name=who(data, names), pile=data["hand"]
        )
    else:
        said = gettext("%(name)s plays ", name=who(data, names))
    return [said, *card_parts([data["card"]])]


def _discarded(data: Mapping[str, Any], names: Names) -> list[Part]:
    said = gettext("%(name)s lays in the devil's trick ", name=who(data, names))
    return [said, *card_parts([data["card"]])]


def _passed(data: Mapping[str, Any], names: Names) -> list[Part]:
    if "left" in data:
        return [gettext("%(name)s passes left ", name=who(data, names)),
                *card_parts([data["left"]]), gettext(" and right "),
                *card_parts([data["right"]])]  # fmt: skip
    passed = [data.get("opponent"), data.get("card")]
    return [gettext("%(name)s passes ", name=who(data, names)), *card_parts(passed)]


def _trick_won(data: Mapping[str, Any], names: Names) -> list[Part]:
    trick, name = data["trick"], names[data["winner"]]
    if data.get("owner") == data["winner"] and data.get("price") in data["cards"]:
        return [
            gettext(
                "Trick %(trick)s: %(name)s wins and buys the bottle at %(price)s",
                trick=trick,
                name=name,
                price=data["price"],
            )
        ]
    return [gettext("Trick %(trick)s: %(name)s wins", trick=trick, name=name)]


PAGES = GamePages(
    game=GAME_ID,
    name=lambda: pgettext("the name of a game", "The Bottle Imp"),
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
        "PassesDelivered": lambda data, names: [gettext("The passed cards are delivered")],
        "OpenHandChosen": lambda data, names: [
            gettext("%(name)s opens pile %(pile)s", name=who(data, names), pile=data["hand"])
        ],
        "TrickCompleted": _trick_won,
    },
    winning_card=winning_card,
)
