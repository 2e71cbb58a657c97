"""The end of a deal: the mosca (rule 5), settlement (rule 7) and the match's end.

Every chip movement becomes a payment line ``{"from", "to", "chips", "reason"}`` where
``from``/``to`` is a seat or ``"pot"``, in the order the rules move the chips: the
antes (paid when the deal started), then bestia, tricks or capot, and the pánfilo.
"""

from __future__ import annotations

from typing import Any

from domain.events import MatchEnded
from domain.games.bestia import layout
from domain.games.bestia.cards import NAMES, ids_of
from domain.games.bestia.model import DealSettled, MoscaWon, State
from domain.games.bestia.options import HAND
from domain.match import ranking
from domain.table import Table

POT = "pot"


def mosca(s: State) -> MoscaWon | None:
    """Rule 5: the best five-of-a-suit among the players still in, if any.

    The pánfilo counts as a trump, never as a club (``Trumps.suit_mask``). A trump
    mosca beats any other; otherwise the cards compare from the highest down, ranks
    only; exactly equal moscas share.
    """
    tt = s.trumps
    assert tt is not None
    # Decision: plain moscas of different suits compare by rank alone; within the trump
    # suit the pánfilo ranks above the ace. Several winners are listed (and paid) from
    # the dealer's right.
    found: list[tuple[tuple[bool, tuple[int, ...]], int]] = []
    for seat in s.active:
        held = s.hands[seat]
        for suit, cards in enumerate(tt.suit_mask):
            if held and not held & ~cards:
                powers = tuple(sorted((tt.power[c] for c in ids_of(held)), reverse=True))
                found.append(((suit == tt.suit, powers), seat))
    if not found:
        return None
    best = max(key for key, _ in found)
    seats = tuple(seat for key, seat in found if key == best)
    return MoscaWon(seats, tuple(tuple(NAMES[c] for c in ids_of(s.hands[p])) for p in seats))


class _Ledger:
    """Payment lines and the balances and pot they lead to."""

    def __init__(self, s: State) -> None:
        self.balances = list(s.balances)
        self.pot = s.pot
        # The antes were paid when the deal started (DealStarted.ante); list them first.
        # Decision: per-seat lines run from the dealer's right, the order of play.
        self.lines: list[dict[str, Any]] = [
            {"from": seat, "to": POT, "chips": s.ante, "reason": "ante"}
            for seat in layout.ring(s.table.players, s.dealer)
            if s.ante
        ]

    def pay(self, frm: int | str, to: int | str, chips: int, reason: str) -> None:
        # Decision: a movement of 0 chips (a 0 ante or bonus, an empty pot) is no line:
        # the lines are what changed hands, and a dry pot "pays nothing more".
        if chips <= 0:
            return
        self.lines.append({"from": frm, "to": to, "chips": chips, "reason": reason})
        if frm == POT:
            self.pot -= chips
        else:
            self.balances[frm] -= chips  # type: ignore[index]
        if to == POT:
            self.pot += chips
        else:
            self.balances[to] += chips  # type: ignore[index]


def settle(s: State, won: MoscaWon | None = None) -> DealSettled:
    """Rule 7 (or rules 3 and 5: a void, uncontested or mosca deal) from the state at
    the end of the deal's play."""
    book = _Ledger(s)
    if won is not None:
        outcome = "mosca"
        share = book.pot // len(won.seats)  # Rule 5: equal moscas share; the odd chip stays
        for seat in won.seats:  # from the dealer's right
            book.pay(POT, seat, share, "mosca")
    elif not s.active:
        outcome = "void"  # Rule 3: everyone passed; the pot stays
    elif len(s.active) == 1:
        # Decision: the sole player takes the pot whoever it is, the dealer included
        # (who "may always play", and so takes the pot when everyone else passed).
        outcome = "uncontested"
        book.pay(POT, s.active[0], book.pot, "uncontested")
    else:
        outcome = "played"
        _tricks(s, book)
    return DealSettled(s.deal, tuple(book.lines), tuple(book.balances), book.pot, outcome)


def _tricks(s: State, book: _Ledger) -> None:
    """Rule 7 in its order: bestia, then tricks (or capot), then the pánfilo bonus."""
    winners = s.winners
    at_end_of_tricks = book.pot
    for seat in s.active:  # from the dealer's right
        if seat not in winners:
            owed = book.pot if s.rules.doubling else at_end_of_tricks
            book.pay(seat, POT, owed, "bestia")
    # Decision: with `fifth`, the fifth is of the pot after the bestia payments (the rules
    # text) and each trick is one line, in trick order, so a dry pot shows where it ended.
    capot = winners[0] if winners.count(winners[0]) == HAND else None
    if capot is not None:
        book.pay(POT, capot, book.pot, "capot")
    else:
        per_trick = book.pot // HAND if s.rules.fifth else 1
        for seat in winners:  # in trick order; a dry pot pays nothing more
            book.pay(POT, seat, min(per_trick, book.pot), "trick")
    # Decision: no bonus when the pánfilo lay in the stock or among the laid-aside cards
    # at the first lead, nor when the table plays without it (`panfilo: false`).
    holder = s.panfilo_holder
    if holder is not None:
        for seat in layout.ring(s.table.players, s.dealer):  # passers included
            if seat != holder:
                book.pay(seat, holder, s.rules.panfilo_bonus, "panfilo")


def match_over(s: State) -> bool:
    """Between the last ``DealSettled`` and ``MatchEnded`` (inside one batch of events):
    nobody deals again. ``MatchRules.is_over``, inlined: every deal asks."""
    rules = s.table.match
    if rules.max_deals is not None and s.deal >= rules.max_deals:
        return True
    return rules.target_score is not None and s.deal > 0 and max(s.balances) >= rules.target_score


def match_end(table: Table, settled: DealSettled) -> MatchEnded | None:
    """After a settled deal: the match ends by ``max_deals`` or a balance reaching the
    target (``docs/rules/common.md``); higher balance first, equal balances share a place."""
    seats = range(table.players)
    balances = settled.balances
    if not table.match.is_over(balances, settled.deal, seats):
        return None
    return MatchEnded(balances, ranking(balances, seats))
