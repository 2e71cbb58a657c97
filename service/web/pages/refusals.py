"""A rule's refusal as a page says it, in the viewer's language (``docs/api.md``, "Pages
for people").

The engines word their refusals in English for the API (``RuleViolation.message``: "seat 2
holds red cards and must follow red"); an English page shows that very sentence with the
seats' names (``words.seats_in_words``). Any other language words the refusal from its
stable ``code`` and the facts the engine gave with it (``RuleViolation.facts``: the seat,
a recorded deal's pile and count), never from the English sentence: one sentence per code,
naming the seat it is about ("you" to its own viewer, else the person's name) and leaving
the cards to the page, which shows them. The code itself stays in the page's markup
(``data-code``) and in the API.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from flask_babel import gettext, lazy_gettext, ngettext
from flask_babel.speaklater import LazyString

from domain.errors import Fact, RuleViolation
from service.web import languages
from service.web.pages.words import name_of, seats_in_words

#: Refusals about one seat: said to that seat's viewer ("you") and about anyone else.
ABOUT_A_SEAT: dict[str, tuple[LazyString, LazyString]] = {
    "must_follow_suit": (
        lazy_gettext("You hold a card of the suit led and must follow suit"),
        lazy_gettext("%(name)s holds a card of the suit led and must follow suit"),
    ),
    "must_beat": (
        lazy_gettext("You can beat the best card of the trick and must"),
        lazy_gettext("%(name)s can beat the best card of the trick and must"),
    ),
    "must_overtrump": (
        lazy_gettext("You can play a higher trump and must"),
        lazy_gettext("%(name)s can play a higher trump and must"),
    ),
    "must_undertrump": (
        lazy_gettext(
            "You cannot overtrump but hold a trump, and this table plays a lower trump then"
        ),
        lazy_gettext(
            "%(name)s cannot overtrump but holds a trump, and this table plays a lower trump then"
        ),
    ),
    "must_trump": (
        lazy_gettext("You have none of the suit led and hold a trump, so you must trump"),
        lazy_gettext("%(name)s has none of the suit led and holds a trump, so must trump"),
    ),
    "card_not_in_hand": (
        lazy_gettext("You do not hold this card"),
        lazy_gettext("%(name)s does not hold this card"),
    ),
    "not_your_turn": (
        lazy_gettext("It is not your turn"),
        lazy_gettext("It is not %(name)s's turn"),
    ),
    "wrong_hand": (
        lazy_gettext("This card is not in your pile whose turn it is"),
        lazy_gettext("This card is not in %(name)s's pile whose turn it is"),
    ),
    "card_was_received": (
        lazy_gettext("This card was passed to you: only dealt cards go there"),
        lazy_gettext("This card was passed to %(name)s: only dealt cards go there"),
    ),
    "already_chosen": (
        lazy_gettext("You have already chosen your open pile"),
        lazy_gettext("%(name)s has already chosen the open pile"),
    ),
    "already_discarded": (
        lazy_gettext("You have already laid a card in the devil's trick"),
        lazy_gettext("%(name)s has already laid a card in the devil's trick"),
    ),
    "already_passed": (
        lazy_gettext("You have already passed"),
        lazy_gettext("%(name)s has already passed"),
    ),
    "already_taken_over": (
        lazy_gettext("A bot plays your seat already: it must be handed back first"),
        lazy_gettext("A bot plays %(name)s's seat already: hand it back first"),
    ),
    "not_taken_over": (
        lazy_gettext("You play your seat yourself: there is nothing to hand back"),
        lazy_gettext("%(name)s plays the seat in person: there is nothing to hand back"),
    ),
    "bot_seat": (
        lazy_gettext("Your seat is a bot's from the start: there is no person to stand in for"),
        lazy_gettext("%(name)s is a bot's seat from the start: there is no person to stand in for"),
    ),
}

#: Refusals about no one seat.
PLAIN: dict[str, LazyString] = {
    "card_not_available": lazy_gettext("This card cannot be drawn now"),
    "card_not_in_raft": lazy_gettext("This card is not one of the raft's to take"),
    "duplicate_entry": lazy_gettext("This person has entered already"),
    "empty_quay": lazy_gettext("That quay is empty: load from the other one"),
    "entry_not_withdrawn": lazy_gettext("This person has not withdrawn"),
    "entry_withdrawn": lazy_gettext("This person has withdrawn already"),
    "invalid_action": lazy_gettext("This move is not complete or has a field too many"),
    "invalid_adjustment": lazy_gettext(
        "A ruling gives a whole number of points other than 0 and its reason"
    ),
    "invalid_call": lazy_gettext("Say play or pass"),
    "invalid_count": lazy_gettext("Launch at least one card and no more than the canal holds"),
    "invalid_deal": lazy_gettext(
        "The recorded deal is not right: every pile full, every card of the deck once"
    ),
    "invalid_exchange": lazy_gettext("This exchange is not right: discard and draw as many cards"),
    "invalid_keep": lazy_gettext(
        "A single card goes back to the quay: keep a card only from a raft"
    ),
    "invalid_match": lazy_gettext("A match needs a target score, a number of deals, or both"),
    "invalid_match_points": lazy_gettext(
        "Match points give a value for each place, never more for a lower place"
    ),
    "invalid_option": lazy_gettext("A rule option has a value it does not take"),
    "invalid_pairing": lazy_gettext("Choose one of the pairings offered"),
    "invalid_pass": lazy_gettext("This pass does not name the cards this game passes"),
    "invalid_position": lazy_gettext("A card goes into the canal between its front and its back"),
    "invalid_rounds": lazy_gettext("A tournament plays at least one round"),
    "invalid_rules": lazy_gettext("The rules of this table are not right"),
    "invalid_simulation": lazy_gettext("A simulation plays at least one match"),
    "invalid_table_size": lazy_gettext("This game does not seat that many at a table"),
    "invalid_takeover": lazy_gettext("Handing a seat to a bot names the bot and gives the reason"),
    "keep_required": lazy_gettext("Launching a raft, choose the card you keep for your quay"),
    "lopaka_plays_itself": lazy_gettext("Lopaka plays by its own rules"),
    "match_finished": lazy_gettext("The match is over"),
    "no_legal_action": lazy_gettext("This seat has nothing to do now"),
    "no_seed": lazy_gettext("This table has no seed: record the deal instead"),
    "not_a_raft": lazy_gettext("These cards are not a raft"),
    "not_enough_entries": lazy_gettext("Too few people are entered to fill the tables"),
    "not_in_this_variant": lazy_gettext("This game's variant has no such move"),
    "round_in_progress": lazy_gettext("The current round is still being played"),
    "same_card": lazy_gettext("One card cannot go both left and right"),
    "too_many_cards": lazy_gettext("That is more cards than this table exchanges"),
    "tournament_finished": lazy_gettext("The tournament is finished"),
    "unknown_action": lazy_gettext("This game has no such move"),
    "unknown_bot": lazy_gettext("There is no such bot for this game"),
    "unknown_card": lazy_gettext("This is not a card of this game's deck"),
    "unknown_entry": lazy_gettext("There is no such entry"),
    "unknown_game": lazy_gettext("Card Ledger has no such game"),
    "unknown_hand": lazy_gettext("Name the pile: A or B"),
    "unknown_option": lazy_gettext("This game has no such rule option"),
    "unknown_quay": lazy_gettext("Load from your own quay or your opponent's"),
    "unknown_seat": lazy_gettext("This table has no such seat"),
    "unknown_table": lazy_gettext("This table is not in this tournament"),
    "unknown_variant": lazy_gettext("This game has no such variant"),
    "validation_error": lazy_gettext("Something is missing or not right"),
    "wrong_phase": lazy_gettext("This move does not belong to this moment of the deal"),
    "wrong_player_count": lazy_gettext("This game is not played by that many players"),
    "invalid_name": lazy_gettext("A name is 1 to a few dozen visible letters, digits or signs"),
    "confusable_name": lazy_gettext("This name looks like one already here: choose another"),
    # the command layer's refusals (``service.core.refusals``), by their codes
    "seat_taken_over": lazy_gettext("A bot plays this seat now: no move is offered"),
    "duplicate_player": lazy_gettext("A player takes one seat at a table"),
    "unknown_player": lazy_gettext("There is no such registered player"),
    "table_exists": lazy_gettext("This table is here already"),
    "imported_read_only": lazy_gettext("This table was imported: it is read-only here"),
    "unreadable_log": lazy_gettext("This table's log cannot be read"),
    "unknown_cursor": lazy_gettext("This list has no such page"),
    "idempotency_key_reused": lazy_gettext("This request was sent before with other contents"),
    "not_found": lazy_gettext("There is nothing here"),
    "forbidden": lazy_gettext("This is not yours to see or do"),
    "unauthorized": lazy_gettext("This link does not open this page: open your own link again"),
    "conflict": lazy_gettext("This cannot be done now"),
    "unprocessable": lazy_gettext("This cannot be done as asked"),
    "unavailable": lazy_gettext("This is not available now: try again in a moment"),
}


#: Refusals whose English sentence from the engine is written for the API, naming entries
#: and tables by their internal numbers ("'Bo' has already entered (entry 2)", "there is
#: no entry 5"): a page says the code's sentence instead, in English too.
NUMBERED = frozenset({"duplicate_entry", "entry_withdrawn", "unknown_entry", "unknown_table"})


def _must_get(facts: Mapping[str, Fact], names: Sequence[str]) -> str:
    """A pile with too many or too few cards: whose, which pile, how many it must get."""
    name, pile, count = name_of(int(facts["seat"]), names), facts.get("pile"), int(facts["count"])
    if pile == "quay":
        return ngettext(
            "%(name)s's quay must hold %(num)s card",
            "%(name)s's quay must hold %(num)s cards",
            count,
            name=name,
        )
    if pile == "canal":
        return ngettext(
            "%(name)s's canal must hold %(num)s card",
            "%(name)s's canal must hold %(num)s cards",
            count,
            name=name,
        )
    if pile is not None:
        return ngettext(
            "%(name)s's pile %(pile)s must get %(num)s card",
            "%(name)s's pile %(pile)s must get %(num)s cards",
            count,
            name=name,
            pile=pile,
        )
    return ngettext(
        "%(name)s must get %(num)s card", "%(name)s must get %(num)s cards", count, name=name
    )


Worder = Callable[[Mapping[str, Fact], Sequence[str]], str]

#: A recorded deal's refusals (``invalid_deal``) by their ``fault``, with the facts a scorer
#: needs to mend it: which pile, how many cards, which card (``domain.errors.RuleViolation``).
DEAL_FACTS: dict[str, Worder] = {
    "count": _must_get,
    "devil_count": lambda facts, names: gettext(
        "The devil's trick must get %(num)s cards", num=facts["count"]
    ),
    "dealt_twice": lambda facts, names: gettext("%(card)s is dealt twice", card=facts["card"]),
    "muestra_not_dealers": lambda facts, names: gettext(
        "The muestra %(card)s must be a card of %(name)s's hand (the dealer's)",
        card=facts["card"],
        name=name_of(int(facts["seat"]), names),
    ),
    "no_muestra": lambda facts, names: gettext("Name the muestra: a card of the dealer's hand"),
}


def worded(
    refused: RuleViolation,
    names: Sequence[str] = (),
    you: int | None = None,
    seat: int | None = None,
) -> str:
    """The rules' refusal as this page's language says it, from its code and facts: about
    the seat its facts name (else ``seat``, the move's), "you" when it is ``you``."""
    code, facts = refused.code, refused.facts
    if languages.current() == languages.LANGUAGES[0] and code not in NUMBERED:
        return seats_in_words(refused.message, names, you)
    if code in ABOUT_A_SEAT:
        about = facts.get("seat", seat)
        yours, theirs = ABOUT_A_SEAT[code]
        if about is not None and about == you:
            return str(yours)
        if about is not None:
            return str(theirs) % {"name": name_of(int(about), names)}
    if code == "invalid_deal" and (facts.get("fault") in DEAL_FACTS):
        return DEAL_FACTS[str(facts["fault"])](facts, names)
    said = PLAIN.get(code)
    if said is not None:
        return str(said)
    return gettext("The rules refuse this (%(code)s)", code=code)


def said_by_code(code: str, detail: str) -> str:
    """A refusal about no seat of the page's (a command's, the console's): the ``detail``
    as it is on an English page, else the code's sentence in the page's language."""
    if languages.current() == languages.LANGUAGES[0] and code not in NUMBERED:
        return detail[:1].upper() + detail[1:]  # a sentence, as the page shows it
    said = PLAIN.get(code)
    return str(said) if said is not None else gettext("The rules refuse this (%(code)s)", code=code)
