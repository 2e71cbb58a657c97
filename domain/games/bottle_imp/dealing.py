"""The deal (``docs/rules/bottle-imp.md``, rule 1, and the variants' deals): the whole deck
dealt by the seeded shuffle, or a physical deal recorded and checked card by card.
``domain.games.bottle_imp.decide`` takes a ``Deal`` here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from domain.deciding import expect_phase
from domain.errors import Fact, RuleViolation
from domain.games.bottle_imp import layout
from domain.games.bottle_imp.cards import DECK, card
from domain.games.bottle_imp.model import DealStarted, State
from domain.shuffle import shuffle

_new: Final = tuple.__new__  # a named tuple built from its fields, without its __new__


def _seeded_hands(s: State, k: int) -> tuple[str, tuple, tuple[int, ...] | None]:
    t: Any = s.table  # its seed as given: an integer seed deals as its decimal string
    if t.seed is None:
        raise RuleViolation("no_seed", "this table has no seed; record the deal instead")
    seed = t.deal_seed(k)  # "{salt}:{seed}/{k}": docs/rules/common.md, shuffling rule 1
    deck = shuffle(DECK, seed)
    if t.variant == layout.BRIGHT_HOUSE:
        nd, d = 1 - s.dealer, s.dealer
        piles = [tuple(sorted(deck[i : i + 9])) for i in range(0, 36, 9)]
        hands: list[Any] = [None, None]
        hands[nd] = {"A": piles[0], "B": piles[2]}
        hands[d] = {"A": piles[1], "B": piles[3]}
        return seed, tuple(hands), None
    ring = layout.clockwise(t.variant, len(t.seats), s.dealer)
    n = len(ring)
    dealt = 33 if t.variant == layout.LOPAKA else 36
    hands = [()] * n  # one card at a time round the ring: the k-th seat gets every n-th card
    for k in range(n):
        hands[ring[k]] = tuple(sorted(deck[k:dealt:n]))
    devil = tuple(sorted(deck[33:])) if t.variant == layout.LOPAKA else None
    return seed, tuple(hands), devil


def _recorded_hands(s: State, action: Any) -> tuple[tuple, tuple[int, ...] | None]:
    """Check a physical deal: exactly the deck, the right number of cards per hand."""
    t = s.table
    seats = layout.seats(t.variant, t.players)
    raw = action.hands
    if not isinstance(raw, list | tuple) or len(raw) != seats:
        raise RuleViolation(
            "invalid_deal",
            f"a recorded deal lists {seats} hands, one per seat",
            fault="hands",
            count=seats,
        )
    # each pile: its English name, its facts, its cards
    piles: list[tuple[str, dict[str, Fact], Sequence[object]]] = []
    if t.variant == layout.BRIGHT_HOUSE:
        for seat, h in enumerate(raw):
            if not isinstance(h, dict) or set(h) != set(layout.PILES):
                raise RuleViolation(
                    "invalid_deal",
                    f"seat {seat}'s hand must be {{'A': [9 cards], 'B': [9 cards]}}",
                    fault="piles",
                    seat=seat,
                )
            piles += [
                (f"seat {seat}'s pile {p}", {"seat": seat, "pile": p}, h[p]) for p in layout.PILES
            ]
        size = 9
    else:
        piles = [(f"seat {seat}", {"seat": seat}, h) for seat, h in enumerate(raw)]
        size = 11 if t.variant == layout.LOPAKA else 36 // seats
    if t.variant == layout.LOPAKA:
        piles.append(("the devil's trick", {}, action.devil if action.devil is not None else ()))
    elif action.devil is not None:
        raise RuleViolation("invalid_deal", "only lopaka deals a devil's trick", fault="no_devil")
    seen: set[int] = set()
    for who, facts, cards in piles:
        want = size if facts else 3  # the devil's trick: no seat's
        if not isinstance(cards, list | tuple) or len(cards) != want:
            raise RuleViolation(
                "invalid_deal",
                f"{who} must get {want} cards",
                fault="count" if facts else "devil_count",
                count=want,
                **facts,
            )
        for value in cards:
            c = card(value)
            if c in seen:
                raise RuleViolation(
                    "invalid_deal", f"card {c} is dealt twice", fault="dealt_twice", card=c
                )
            seen.add(c)
    # 36 distinct valid cards were dealt, so the deck is complete.
    if t.variant == layout.BRIGHT_HOUSE:
        hands: tuple = tuple({p: tuple(sorted(h[p])) for p in layout.PILES} for h in raw)
    else:
        hands = tuple(tuple(sorted(h)) for h in raw)
    devil = tuple(sorted(action.devil)) if t.variant == layout.LOPAKA and action.devil else None
    return hands, devil


def deal(s: State, action: Any) -> list:
    """Rule 1: the whole deck is dealt (seeded shuffle, or a recorded physical deal)."""
    expect_phase(s.phase, "waiting_for_deal")
    k = s.deal + 1
    if action.hands is None:
        seed, hands, devil = _seeded_hands(s, k)
        return [_new(DealStarted, (k, s.dealer, seed, hands, devil))]
    hands, devil = _recorded_hands(s, action)
    return [_new(DealStarted, (k, s.dealer, None, hands, devil))]
