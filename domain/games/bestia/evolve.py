"""``evolve(state, event) -> state`` and ``initial_state``: fold the log into a state.

Replay is the single source of truth, so evolve is total over valid logs and never
decides anything the events do not say, except the phase changes they imply.
"""

from __future__ import annotations

from typing import Any

from domain.errors import RuleViolation
from domain.games.bestia import layout
from domain.games.bestia.cards import (
    BIT,
    CARD_ID,
    NAME_BIT,
    PANFILO,
    SUITS,
    TRUMPS,
    names_of,
)
from domain.games.bestia.model import (
    CardPlayed,
    CardsExchanged,
    DealSettled,
    DealStarted,
    Declared,
    MoscaWon,
    State,
    TrickCompleted,
)
from domain.games.bestia.options import (
    HAND,
    MAX_PLAYERS,
    MIN_PLAYERS,
    check_options,
    rules_of,
)
from domain.games.common import evolve_by
from domain.table import Table


def initial_state(table: Table) -> State:
    """The table before the first deal (checks variant, options and player count)."""
    t: Any = table  # as the caller built it: checked here before it is trusted
    check_options(table)
    players = t.players
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RuleViolation(
            "wrong_player_count",
            f"Bestia is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}",
        )
    if type(t.first_dealer) is not int or not 0 <= t.first_dealer < players:
        raise RuleViolation("invalid_rules", f"first_dealer must be a seat from 0 to {players - 1}")
    return State(
        table=table,
        rules=rules_of(table),
        phase="waiting_for_deal",
        deal=0,
        dealer=t.first_dealer,
        balances=(0,) * players,
        pot=0,
        ante=0,
        trumps=None,
        muestra=-1,
        seeded=False,
        calls=(None,) * players,
        active=(),
        queue=(),
        stock=(),
        laid_aside=0,
        restocks=0,
        exchanges=(None,) * players,
        panfilo_holder=None,
        hands=(0,) * players,
        order=(),
        trick=(),
        best=-1,
        winners=(),
        payments=None,
        outcome=None,
        ranking=None,
        taken=0,
    )


def _replace_at(values: tuple, index: int, value: Any) -> tuple:
    return (*values[:index], value, *values[index + 1 :])


def _mask(names: Any) -> int:
    return sum(map(NAME_BIT.__getitem__, names))  # distinct cards: the sum is the "or"


# Evolve rebuilds a state from a list of its fields: ``_replace`` (keywords over 27
# fields) costs three times as much, and self-play folds millions of events.
_new = tuple.__new__
(
    _RULES, _PHASE, _DEAL, _DEALER, _BALANCES, _POT, _ANTE, _TRUMPS, _MUESTRA, _SEEDED, _CALLS,
    _ACTIVE, _QUEUE, _STOCK, _LAID_ASIDE, _RESTOCKS, _EXCHANGES, _PANFILO_HOLDER, _HANDS,
    _ORDER, _TRICK, _BEST, _WINNERS, _PAYMENTS, _OUTCOME, _RANKING, _TAKEN,
) = map(State._fields.index, (
    "rules", "phase", "deal", "dealer", "balances", "pot", "ante", "trumps", "muestra", "seeded",
    "calls", "active", "queue", "stock", "laid_aside", "restocks", "exchanges",
    "panfilo_holder", "hands", "order", "trick", "best", "winners", "payments", "outcome",
    "ranking", "taken",
))  # fmt: skip
assert tuple(range(_HANDS, _WINNERS)) == (_HANDS, _ORDER, _TRICK, _BEST), "sliced together"


def _deal_started(s: State, e: DealStarted) -> State:
    """Rules 1–2: antes into the pot, hands dealt, the muestra turned."""
    n = s.table.players
    hands = tuple([_mask(h) for h in e.hands])
    stock = e.stock
    if stock is None:  # a recorded deal: the unseen rest, in canonical order (any may be drawn)
        stock = tuple(names_of(s.rules.deck_mask & ~sum(hands)))
    ring = layout.ring(n, e.dealer)
    ante = e.ante
    nobody = (None,) * n
    f: list[Any] = list(s)
    f[_PHASE] = "declaring"
    f[_DEAL] = e.deal
    f[_DEALER] = e.dealer
    f[_BALANCES] = tuple([b - ante for b in s.balances])
    f[_POT] = s.pot + ante * n
    f[_ANTE] = ante
    f[_TRUMPS] = TRUMPS[s.rules.panfilo][SUITS.index(e.trump)]
    f[_MUESTRA] = CARD_ID[e.muestra]
    f[_SEEDED] = e.stock is not None
    f[_CALLS] = f[_EXCHANGES] = nobody
    f[_TAKEN] = 0
    f[_ACTIVE] = f[_QUEUE] = ring
    f[_STOCK] = stock
    f[_LAID_ASIDE] = f[_RESTOCKS] = 0
    f[_PANFILO_HOLDER] = f[_PAYMENTS] = f[_OUTCOME] = None
    f[_HANDS] = hands
    f[_ORDER] = f[_TRICK] = f[_WINNERS] = ()
    f[_BEST] = -1
    return _new(State, f)


def _start_play(f: list[Any]) -> None:
    """Rule 6: the first active player to the dealer's right leads; the pánfilo's holder
    at this moment is the one the bonus of rule 7 goes to."""
    active = f[_ACTIVE]
    holder = None
    if f[_RULES].panfilo:
        hands = f[_HANDS]
        holder = next((p for p in active if hands[p] & BIT[PANFILO]), None)
    f[_PHASE] = "playing"
    f[_QUEUE] = ()
    f[_PANFILO_HOLDER] = holder
    f[_ORDER] = layout.trick_order(active, active[0])
    f[_TRICK] = ()
    f[_BEST] = -1


def _declared(s: State, e: Declared) -> State:
    """Rule 3: a passer lays the hand aside next to the stock and is out of the deal."""
    seat = e.seat
    f: list[Any] = list(s)
    f[_CALLS] = _replace_at(s.calls, seat, e.call)
    f[_QUEUE] = queue = s.queue[1:]
    if e.call == "pass":
        hands = s.hands
        f[_LAID_ASIDE] = s.laid_aside | hands[seat]
        f[_HANDS] = (*hands[:seat], 0, *hands[seat + 1 :])
        f[_ACTIVE] = tuple([p for p in s.active if p != seat])
    if not queue:
        if len(f[_ACTIVE]) < 2:
            f[_PHASE] = "settling"  # void or uncontested: DealSettled follows
        elif s.rules.max_exchange == 0:
            # Decision: with nothing to exchange there is no exchange round to wait for.
            _start_play(f)
        else:
            f[_PHASE] = "exchanging"
            f[_QUEUE] = f[_ACTIVE]
    return _new(State, f)


def _cards_exchanged(s: State, e: CardsExchanged) -> State:
    """Rule 4: draws leave the stock (or, once it is empty, the laid-aside cards); the
    discards are laid aside after the drawing, so nobody draws their own."""
    seat = e.seat
    drawn = e.drawn
    out, got = _mask(e.discarded), _mask(drawn)
    f: list[Any] = list(s)
    laid = s.laid_aside
    stock: tuple[str, ...] = s.stock
    if e.restock is not None:  # the old stock was drawn to its end
        stock = tuple(e.restock)
        laid &= ~_mask(stock)
        f[_RESTOCKS] = s.restocks + 1
    k = len(drawn)
    if stock[:k] == drawn:  # drawn from the top: always so in a seeded deal
        f[_STOCK] = stock[k:]
    else:
        f[_STOCK] = tuple([c for c in stock if c not in drawn])
    f[_HANDS] = _replace_at(s.hands, seat, (s.hands[seat] & ~out) | got)
    f[_LAID_ASIDE] = (laid & ~got) | out
    f[_EXCHANGES] = _replace_at(s.exchanges, seat, (tuple(e.discarded), tuple(drawn)))
    f[_QUEUE] = queue = s.queue[1:]
    if not queue:
        _start_play(f)
    return _new(State, f)


def _mosca_won(s: State, e: MoscaWon) -> State:
    f: list[Any] = list(s)
    f[_PHASE] = "settling"
    f[_ORDER] = ()
    return _new(State, f)


def _card_played(s: State, e: CardPlayed) -> State:
    # The hot path of self-play: rebuild only what a card changes.
    seat, card = e
    c = CARD_ID[card]
    trick = s.trick
    best = s.best
    if not trick or s.trumps.beaten_by[best] & BIT[c]:  # type: ignore[union-attr]
        best = c
    hands = s.hands
    hands = (*hands[:seat], hands[seat] & ~BIT[c], *hands[seat + 1 :])
    return _new(State, (*s[:_HANDS], hands, s.order, (*trick, c), best, *s[_WINNERS:]))


def _trick_completed(s: State, e: TrickCompleted) -> State:
    """Rule 6: the winner leads the next trick; after the fifth, settlement follows."""
    winners = (*s.winners, e.winner)
    taken = s.taken | sum(map(BIT.__getitem__, s.trick))
    if len(winners) < HAND:
        order = layout.trick_order(s.active, e.winner)
        return _new(
            State, (*s[:_HANDS], s.hands, order, (), -1, winners, *s[_WINNERS + 1 : _TAKEN], taken)
        )
    f: list[Any] = list(s)
    f[_TAKEN] = taken
    f[_PHASE] = "settling"
    f[_ORDER] = f[_TRICK] = ()
    f[_BEST] = -1
    f[_WINNERS] = winners
    return _new(State, f)


def _deal_settled(s: State, e: DealSettled) -> State:
    """Rule 7 applied (the payments are in the event) and rule 8: the deal passes right."""
    f: list[Any] = list(s)
    f[_PHASE] = "waiting_for_deal"
    f[_BALANCES] = tuple(e.balances)
    f[_POT] = e.pot
    f[_PAYMENTS] = tuple(e.payments)
    f[_OUTCOME] = e.outcome
    f[_DEALER] = layout.next_dealer(s.table.players, s.dealer)
    f[_QUEUE] = f[_ORDER] = ()
    return _new(State, f)


#: The state after an event (``MatchEnded`` too: ``domain.games.common``).
evolve = evolve_by(
    {
        DealStarted: _deal_started,
        Declared: _declared,
        CardsExchanged: _cards_exchanged,
        MoscaWon: _mosca_won,
        CardPlayed: _card_played,
        TrickCompleted: _trick_completed,
        DealSettled: _deal_settled,
    }
)
