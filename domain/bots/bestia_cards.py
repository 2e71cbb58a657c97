"""How a Bestia bot weighs cards (``docs/rules/bestia.md``): the heuristic's rules of thumb,
shared by the heuristic bot, the Monte Carlo bot's playouts and what it infers of the others'
hands from their calls and exchanges (``domain.bots.bestia_world``).

Bestia is about not taking zero tricks: a player in who takes none pays the pot. So a hand
is worth its likely tricks (the pánfilo and high trumps are near-certain tricks, an off-suit
ace a likely one); a player declares when the hand should take one, exchanges what is
neither a trump nor an ace, and in the tricks takes one as cheaply as it can, as early as
it can.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.games.bestia.cards import BIT, CARD_ID, SUITS, TRUMPS, Trumps

#: Expected tricks of a trump by its power (the pánfilo 13, the ace 12 …).
TRUMP_TRICKS = {13: 1.0, 12: 0.9, 11: 0.75, 10: 0.6, 9: 0.45}
#: What a king not of trumps adds to a hand's expected tricks (an ace adds 0.5).
KING_TRICKS = 0.2


def trumps_of(view: Mapping[str, Any]) -> Trumps:
    return TRUMPS[bool(view["rules"]["panfilo"])][SUITS.index(view["trump"])]


def strength(tt: Trumps, card: int) -> int:
    """A card's strength for play: any trump above any other card."""
    return tt.power[card] + (20 if tt.suit_of[card] == tt.suit else 0)


def is_strong(tt: Trumps, card: int) -> bool:
    """A trump or an ace: what the heuristic never lays aside."""
    return tt.suit_of[card] == tt.suit or tt.power[card] >= 12


def card_tricks(tt: Trumps, card: int) -> float:
    """One card's share of ``expected_tricks``."""
    p = tt.power[card]
    if tt.suit_of[card] == tt.suit:
        return TRUMP_TRICKS.get(p, 0.3)
    if p == 12:
        return 0.5
    if p == 11:
        return KING_TRICKS
    return 0.0


def expected_tricks(tt: Trumps, cards: Sequence[int]) -> float:
    """Rough tricks a hand takes: its trumps by rank, its off-suit aces (and kings)."""
    total = 0.0
    for c in cards:
        p = tt.power[c]
        if tt.suit_of[c] == tt.suit:
            total += TRUMP_TRICKS.get(p, 0.3)
        elif p == 12:
            total += 0.5
        elif p == 11:
            total += KING_TRICKS
    return total


def bar(pot: int, players: int) -> float:
    """The expected tricks a hand needs to play: more when the pot, the bestia's price,
    is large."""
    return 1.0 if pot > 2 * players else 0.85


def declare(tt: Trumps, cards: Sequence[int], calls: Sequence[str | None], last: bool, pot: int,
            players: int) -> str:  # fmt: skip
    """Rule 3: play when the hand should take a trick (``bar``), and always when speaking
    last after nothing but passes."""
    if last and "play" not in calls:
        return "play"
    return "play" if expected_tricks(tt, cards) >= bar(pot, players) else "pass"


def discard(tt: Trumps, cards: Sequence[int], limit: int) -> list[int]:
    """Rule 4: lay aside what is neither a trump nor an ace, weakest first."""
    weak = sorted((c for c in cards if not is_strong(tt, c)), key=lambda c: (tt.power[c], c))
    return weak[:limit]


def beats(tt: Trumps, card: int, best: int) -> bool:
    return bool(tt.beaten_by[best] & BIT[card])


def best_of(tt: Trumps, trick: Sequence[int]) -> int:
    """The card winning the trick so far."""
    best = trick[0]
    for c in trick[1:]:
        if beats(tt, c, best):
            best = c
    return best


def play(tt: Trumps, legal: Sequence[int], trick: Sequence[int], last: bool, need: bool) -> int:
    """Rule 6 by preference: lead the strongest card; take the trick as cheaply as
    possible when last, with the strongest card while still needing a trick, else
    duck with the weakest card."""
    if not trick:
        return max(legal, key=lambda c: (strength(tt, c), c))
    best = best_of(tt, trick)
    winners = [c for c in legal if beats(tt, c, best)]
    if winners:
        if last or not need:
            return min(winners, key=lambda c: (strength(tt, c), c))
        return max(winners, key=lambda c: (strength(tt, c), c))
    return min(legal, key=lambda c: (strength(tt, c), c))


def ids(names: Sequence[str] | None) -> list[int]:
    return [CARD_ID[n] for n in names or ()]
