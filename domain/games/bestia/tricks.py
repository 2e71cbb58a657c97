"""Rule 6, the duties of play: asistir, matar, fallar, pisar (and subfallar).

``legal_mask`` is the whole rule as mask arithmetic over :class:`cards.Trumps`;
``why_illegal`` says, for a refused card, which duty it breaks.
"""

from __future__ import annotations

from domain.errors import Fact, RuleViolation
from domain.games.bestia.cards import NAMES, PANFILO, SUIT_NAMES, Trumps
from domain.games.bestia.model import State


def legal_mask(s: State, held: int) -> int:
    """The cards of ``held`` the player to act may play to the current trick."""
    trick = s.trick
    if not trick:
        return held  # the leader plays anything
    tt: Trumps = s.trumps  # type: ignore[assignment]
    led = tt.suit_of[trick[0]]
    best = s.best
    follow = held & tt.suit_mask[led]
    if follow:  # asistir …
        if tt.suit_of[best] == led:  # … and matar, unless the trick was trumped
            return follow & tt.above[best] or follow
        return follow
    trumps = held & tt.suit_mask[tt.suit]
    if not trumps:
        return held
    if tt.suit_of[best] == tt.suit:  # pisar; unable, any card (or a trump: subfallar)
        return trumps & tt.above[best] or (trumps if s.rules.must_undertrump else held)
    return trumps  # fallar


def _suit(tt: Trumps, suit: int) -> str:
    if suit == tt.suit:
        return f"trumps ({SUIT_NAMES[suit]})"
    return SUIT_NAMES[suit]


def _card(tt: Trumps, c: int) -> str:
    if c == PANFILO and tt.suit_of[c] == tt.suit:
        return "JC (the pánfilo, a trump)"
    return NAMES[c]


def why_illegal(s: State, seat: int, card: int) -> RuleViolation:
    """The duty of rule 6 that playing ``card`` (held, not legal) would break."""
    tt: Trumps = s.trumps  # type: ignore[assignment]
    held = s.hands[seat]
    led = tt.suit_of[s.trick[0]]
    best = s.best
    mine = tt.suit_of[card]
    who = f"seat {seat}"
    facts: dict[str, Fact] = {"seat": seat, "card": NAMES[card]}
    if held & tt.suit_mask[led]:
        if mine != led:
            return RuleViolation(
                "must_follow_suit",
                f"{who} holds {_suit(tt, led)} and must follow (asistir); "
                f"{_card(tt, card)} is not one",
                **facts,
            )
        return RuleViolation(
            "must_beat",
            f"{who} can beat {_card(tt, best)} and must (matar); {_card(tt, card)} does not",
            **facts,
        )
    trumps = held & tt.suit_mask[tt.suit]
    if tt.suit_of[best] == tt.suit:
        if trumps & tt.above[best]:
            return RuleViolation(
                "must_overtrump",
                f"{who} can play a trump above {_card(tt, best)} and must (pisar); "
                f"{_card(tt, card)} does not",
                **facts,
            )
        return RuleViolation(
            "must_undertrump",
            f"{who} cannot overtrump but holds a trump and this table plays must_undertrump; "
            f"{_card(tt, card)} is not a trump",
            **facts,
        )
    return RuleViolation(
        "must_trump",
        f"{who} has no {SUIT_NAMES[led]} and holds a trump, so must trump (fallar); "
        f"{_card(tt, card)} is not a trump",
        **facts,
    )
