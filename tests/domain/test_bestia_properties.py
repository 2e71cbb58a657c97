"""Property tests of Bestia's rules engine (``docs/rules/bestia.md``, ``docs/rules/common.md``).

Every example plays a whole match of random *legal* actions through ``decide``/``evolve``
at a random table (3–8 players, either deck, random options), seeded or recorded: a
seat from ``to_act``, an entry of ``legal_actions`` (declaring ``play`` with a drawn
bias so that deals get played), the events folded into the state. Recorded deals are
dealt by the test and their exchanges draw cards the test picks by the rules text.
The properties are checked on every event, action or deal. Expectations come from the
rules text (a small independent model below), not from the engine's helpers.
What every game must do (replay through JSON, the same seed giving the same log, legal
actions accepted, hands withheld, matches ending ranked) is ``tests/contract/``.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import RuleViolation
from domain.events import MatchEnded, TableOpened, to_data
from domain.games import bestia as g
from domain.games.bestia.model import (
    CardPlayed,
    CardsExchanged,
    Deal,
    DealSettled,
    DealStarted,
    Declare,
    Exchange,
    MoscaWon,
    Play,
    State,
    TrickCompleted,
)
from domain.match import MatchRules
from domain.shuffle import shuffle
from domain.table import ORGANISER, SeatSpec, Table

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = "CDHS"
#: Codes the engine documents (docs/api.md's and Bestia's rule codes).
DOCUMENTED_CODES = {
    "must_follow_suit", "must_beat", "must_trump", "must_overtrump", "must_undertrump",
    "not_your_turn", "card_not_in_hand", "unknown_card", "wrong_phase", "match_finished",
    "unknown_seat", "invalid_deal", "invalid_call", "invalid_exchange", "too_many_cards",
    "card_not_available", "unknown_action",
}  # fmt: skip


def budget(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None)


# --- the rules text as a small model (cards as names) ---------------------------------------------


def rank(card: str) -> int:
    return RANKS.index(card[:-1])


def deck_of(players: int, kind: str) -> list[str]:
    """Canonical order: suits C D H S, ranks 2 … A; short: A down to 7 for 3 players,
    one more rank per extra player."""
    lowest = 0 if kind == "full" else RANKS.index("7") - (players - 3)
    return [r + s for s in SUITS for r in RANKS if RANKS.index(r) >= lowest]


class Model(NamedTuple):
    """Trump suit and the pánfilo rule: everything rule 6 needs."""

    trump: str
    panfilo: bool
    must_undertrump: bool = False

    def is_trump(self, c: str) -> bool:
        return c[-1] == self.trump or (self.panfilo and c == "JC")

    def suit(self, c: str) -> str:
        return self.trump if self.is_trump(c) else c[-1]

    def power(self, c: str) -> int:
        return 13 if self.panfilo and c == "JC" else rank(c)

    def winning(self, trick: list[str]) -> str:
        trumps = [c for c in trick if self.is_trump(c)]
        if trumps:
            return max(trumps, key=self.power)
        return max((c for c in trick if self.suit(c) == self.suit(trick[0])), key=self.power)

    def legal(self, hand: list[str], trick: list[str]) -> set[str]:
        if not trick:
            return set(hand)
        led, win = self.suit(trick[0]), self.winning(trick)
        follow = [c for c in hand if self.suit(c) == led]
        if follow:  # asistir, and matar unless a trump of another suit leads the trick
            if self.suit(win) == led:
                return {c for c in follow if self.power(c) > self.power(win)} or set(follow)
            return set(follow)
        trumps = [c for c in hand if self.is_trump(c)]
        if not trumps:
            return set(hand)
        if not self.is_trump(win):
            return set(trumps)  # fallar
        higher = {c for c in trumps if self.power(c) > self.power(win)}  # pisar
        return higher or (set(trumps) if self.must_undertrump else set(hand))


def model_of(state: State) -> Model:
    o = {**state.table.options}
    assert state.trumps is not None
    return Model("CDHS"[state.trumps.suit], o.get("panfilo", True), o.get("must_undertrump", False))


def option(state: State, name: str) -> Any:
    defaults = {"ante": 2, "max_exchange": 4, "panfilo": True, "multiple_bestia": "flat",
                "trick_pay": "one", "panfilo_bonus": 1, "deck": "short"}  # fmt: skip
    return state.table.options.get(name, defaults[name])


# --- drawing and playing a match ------------------------------------------------------------------


class Spec(NamedTuple):
    players: int
    options: dict[str, Any]
    seed: str | int
    rng_seed: int
    max_deals: int
    target: int | None
    first_dealer: int
    p_play: float
    recorded: bool


options_st = st.fixed_dictionaries(
    {},
    optional={
        "deck": st.sampled_from(["short", "full"]),
        "ante": st.integers(0, 4),
        "max_exchange": st.integers(0, 5),
        "panfilo": st.booleans(),
        "must_undertrump": st.booleans(),
        "multiple_bestia": st.sampled_from(["flat", "doubling"]),
        "trick_pay": st.sampled_from(["one", "fifth"]),
        "panfilo_bonus": st.integers(0, 3),
    },
)

specs = st.builds(
    Spec,
    players=st.integers(3, 8),
    options=options_st,
    seed=st.one_of(st.text(max_size=10), st.integers()),
    rng_seed=st.integers(0, 2**32 - 1),
    max_deals=st.integers(2, 5),
    target=st.sampled_from([None, None, None, 8, 30]),
    first_dealer=st.integers(0, 7),
    p_play=st.sampled_from([0.5, 0.8, 0.95]),
    recorded=st.sampled_from([False, False, True]),
)


def make_table(spec: Spec) -> Table:
    seed = str(spec.seed)
    return Table(
        game=g.GAME_ID,
        variant="standard",
        seats=tuple(SeatSpec(name=f"P{i}") for i in range(spec.players)),
        match=MatchRules(spec.target, spec.max_deals),
        seed=seed,
        first_dealer=spec.first_dealer % spec.players,
        options=dict(spec.options),
    )


def recorded_deal(state: State, rng: random.Random) -> Deal:
    """A physical deal: a random order of the deck, five each, a muestra of the dealer's."""
    cards = deck_of(state.table.players, option(state, "deck"))
    rng.shuffle(cards)
    hands = tuple(tuple(cards[5 * s : 5 * s + 5]) for s in range(state.table.players))
    return Deal(hands=hands, muestra=rng.choice(hands[state.dealer]))


def recorded_exchange(state: State, seat: int, rng: random.Random) -> Exchange:
    """Discard up to max_exchange; draw from the unseen stock while it lasts, then from
    the laid-aside cards (never one's own discards)."""
    hand = g.cards_of(state.hands[seat])
    discard = rng.sample(hand, rng.randint(0, option(state, "max_exchange")))
    stock = list(state.stock)
    take = min(len(discard), len(stock))
    drawn = rng.sample(stock, take)
    laid = g.cards_of(state.laid_aside)
    drawn += rng.sample(laid, len(discard) - take)
    return Exchange(seat, tuple(discard), tuple(drawn))


def choose(state: State, seat: int, rng: random.Random, spec: Spec) -> Any:
    legal = g.legal_actions(state, seat)
    assert len(legal) > 0, f"seat {seat} is to act in {state.phase} but has no legal action"
    if state.phase == "declaring":
        return Declare(seat, "play" if rng.random() < spec.p_play else "pass")
    if spec.recorded and state.phase == "waiting_for_deal":
        return recorded_deal(state, rng)
    if spec.recorded and state.phase == "exchanging":
        return recorded_exchange(state, seat, rng)
    return legal[rng.randrange(len(legal))]


class Step(NamedTuple):
    before: State
    seat: int
    action: Any
    events: list[Any]
    after: State


def fold(state: State, events: list[Any]) -> Iterator[tuple[Any, State, State]]:
    """``(event, state before it, state after it)`` for each event."""
    for event in events:
        after = g.evolve(state, event)
        yield event, state, after
        state = after


def play_match(spec: Spec, table: Table | None = None) -> Iterator[Step]:
    table = table or make_table(spec)
    rng = random.Random(spec.rng_seed)
    state = g.initial_state(table)
    for _ in range(200 * spec.max_deals):
        if state.phase == "finished":
            return
        (seat,) = g.to_act(state)
        action = choose(state, seat, rng, spec)
        events = g.decide(state, action)
        after = state
        for _event, _before, after in fold(state, events):  # noqa: B007
            pass
        yield Step(state, seat, action, events, after)
        state = after
    raise AssertionError("the match did not end")


def events_of(spec: Spec) -> Iterator[tuple[Any, State, State]]:
    for step in play_match(spec):
        yield from fold(step.before, step.events)


# --- 1. chips: balances + pot = 0, and the payments explain every change --------------------------


def expected_payments(deal: list[tuple[Any, State, State]]) -> list[dict[str, Any]]:
    """Rule 7 (and 3, 5) computed from the deal's events, as payment lines."""
    started_before = deal[0][1]
    started: DealStarted = deal[0][0]
    state = deal[-1][1]  # just before DealSettled
    n = state.table.players
    ring = [(started.dealer - 1 - i) % n for i in range(n)]
    lines = [{"from": p, "to": "pot", "chips": started.ante, "reason": "ante"} for p in ring]
    lines = [line for line in lines if line["chips"]]
    pot = started_before.pot + started.ante * n
    active = [p for p in ring if state.calls[p] == "play"]

    def pay(frm: Any, to: Any, chips: int, reason: str) -> None:
        nonlocal pot
        if chips > 0:
            lines.append({"from": frm, "to": to, "chips": chips, "reason": reason})
            pot += chips if to == "pot" else -chips if frm == "pot" else 0

    won = [e for e, _, _ in deal if isinstance(e, MoscaWon)]
    winners = [e.winner for e, _, _ in deal if isinstance(e, TrickCompleted)]
    if won:
        for seat in won[0].seats:
            pay("pot", seat, pot // len(won[0].seats), "mosca")
    elif len(active) == 1:
        pay("pot", active[0], pot, "uncontested")
    elif len(active) > 1:
        at_end = pot
        for seat in active:
            if seat not in winners:
                pay(seat, "pot", pot if option(state, "multiple_bestia") == "doubling" else at_end,
                    "bestia")  # fmt: skip
        if len(set(winners)) == 1:
            pay("pot", winners[0], pot, "capot")
        else:
            unit = pot // 5 if option(state, "trick_pay") == "fifth" else 1
            for seat in winners:
                pay("pot", seat, min(unit, pot), "trick")
        first_lead = next(before for e, before, _ in deal if isinstance(e, CardPlayed))
        holders = [p for p in active if "JC" in g.cards_of(first_lead.hands[p])]
        if option(state, "panfilo") and holders:
            for seat in ring:
                if seat != holders[0]:
                    pay(seat, holders[0], option(state, "panfilo_bonus"), "panfilo")
    return lines


def deals_of(spec: Spec) -> Iterator[list[tuple[Any, State, State]]]:
    """Each deal's (event, before, after) triples, DealStarted to DealSettled."""
    deal: list[tuple[Any, State, State]] = []
    for triple in events_of(spec):
        if isinstance(triple[0], DealStarted):
            deal = []
        deal.append(triple)
        if isinstance(triple[0], DealSettled):
            yield deal


@budget(200)
@given(spec=specs)
def test_chips_balance_and_every_deal_is_paid_by_the_rules(spec: Spec) -> None:
    settled = 0
    for deal in deals_of(spec):
        for _event, _before, after in deal:
            assert sum(after.balances) + after.pot == 0
        before, end = deal[0][1], deal[-1][0]
        change = Counter[Any]()
        for line in end.payments:
            assert line["chips"] > 0 and line["reason"] in {
                "ante", "bestia", "trick", "capot", "mosca", "panfilo", "uncontested"}  # fmt: skip
            change[line["from"]] -= line["chips"]
            change[line["to"]] += line["chips"]
        for seat in range(spec.players):
            assert end.balances[seat] - before.balances[seat] == change[seat]
        assert end.pot - before.pot == change["pot"]
        assert list(end.payments) == expected_payments(deal)
        settled += 1
    assert settled >= 1


# --- 4. hidden information ------------------------------------------------------------------------


def secret_from(state: State, viewer: int | None, deal_log: list[Any]) -> set[str]:
    """The cards ``viewer`` (a seat, or ``None``) may not know now, by the rules text."""
    if state.phase in ("waiting_for_deal", "finished"):
        return set()  # a settled deal is public
    hidden = {c for seat, h in enumerate(state.hands) if seat != viewer for c in g.cards_of(h)}
    hidden |= set(state.stock) | set(g.cards_of(state.laid_aside))
    started = deal_log[0]
    assert isinstance(started, DealStarted)
    known = {started.muestra}
    if viewer is not None:
        known |= set(started.hands[viewer])  # a passer still knows the hand laid aside
    for e in deal_log:
        if isinstance(e, CardsExchanged) and e.seat == viewer:
            known |= {*e.discarded, *e.drawn}
        elif isinstance(e, MoscaWon):
            known |= {c for hand in e.cards for c in hand}
    return hidden - known


def cards_in(value: Any, out: set[str]) -> None:
    """Every card-like string anywhere in a JSON-ish value."""
    if isinstance(value, list | tuple):
        for v in value:
            cards_in(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            cards_in(v, out)
    elif isinstance(value, str) and value[:-1] in RANKS and value[-1:] in SUITS:
        out.add(value)


@budget(40)
@given(spec=specs)
def test_no_view_or_event_shows_a_hidden_card(spec: Spec) -> None:
    table = make_table(spec)
    opened = TableOpened.of(table)
    deal_log: list[Any] = []
    for step in play_match(spec):
        for event in step.events:
            deal_log = [event] if isinstance(event, DealStarted) else [*deal_log, event]
        state = step.after
        if not state.deal:
            continue
        for viewer in (*range(spec.players), None):
            secret = secret_from(state, viewer, deal_log)
            v = g.view(state, viewer)
            assert json.loads(json.dumps(v)) == v, "a view is JSON-ready"
            shown: set[str] = set()
            cards_in(v, shown)
            assert not shown & secret, f"{viewer!r} sees {sorted(shown & secret)} in the view"
            if viewer is None:
                assert v["legal_actions"] == []
            visible = g.visible_events([opened, *deal_log], viewer)[1:]
            assert len(visible) == len(deal_log)
            for event in visible:
                seen: set[str] = set()
                cards_in(to_data(event), seen)
                assert not seen & secret, f"{viewer!r} sees {sorted(seen & secret)} in {event}"
                if isinstance(event, DealStarted) and state.phase != "finished":
                    assert event.seed is None, "the deal seed is secret until the match ends"
        assert g.view(state, ORGANISER)["hands"] == [g.cards_of(h) for h in state.hands]


# --- 5. legal actions are accepted, others refused ------------------------------------------------


Refusal = tuple[Any, frozenset[str]]


def codes(*names: str) -> frozenset[str]:
    return frozenset(names)


def refused_actions(state: State, rng: random.Random) -> list[Refusal]:
    """Actions the rules refuse in ``state``, with the codes that say why."""
    n = state.table.players
    deck = deck_of(n, option(state, "deck"))
    if state.phase == "finished":
        return [(Deal(), codes("match_finished")), (Play(0, deck[0]), codes("match_finished"))]
    out: list[Refusal] = [(Declare(n, "play"), codes("unknown_seat", "wrong_phase"))]
    phase = state.phase
    if phase != "waiting_for_deal":
        out.append((Deal(), codes("wrong_phase")))
    else:
        out.append((Deal(hands=(tuple(deck[:5]),)), codes("invalid_deal")))
        out.append((Deal(muestra=deck[0]), codes("invalid_deal")))
    if phase != "declaring":
        out.append((Declare(0, "play"), codes("wrong_phase")))
    if phase != "exchanging":
        out.append((Exchange(0, ()), codes("wrong_phase")))
    if phase != "playing":
        out.append((Play(0, deck[0]), codes("wrong_phase")))
    (seat,) = g.to_act(state) or (None,)
    if seat is None:
        return out
    others = [p for p in range(n) if p != seat]
    held = g.cards_of(state.hands[seat])
    foreign = [c for c in deck if c not in held]
    outside = [r + s for s in SUITS for r in RANKS if r + s not in deck]
    if phase == "declaring":
        out.append((Declare(rng.choice(others), "play"), codes("not_your_turn")))
        out.append((Declare(seat, rng.choice(["fold", "PLAY", None, 1])), codes("invalid_call")))
    elif phase == "exchanging":
        out.append((Exchange(rng.choice(others), ()), codes("not_your_turn")))
        out.append((Exchange(seat, (rng.choice(foreign),)), codes("card_not_in_hand")))
        out.append((Exchange(seat, "2H"), codes("invalid_exchange")))
        limit = option(state, "max_exchange")
        if limit >= 2:
            out.append((Exchange(seat, (held[0], held[0])), codes("invalid_exchange")))
        if limit < 5:
            out.append((Exchange(seat, tuple(held)), codes("too_many_cards")))
        if outside:
            out.append((Exchange(seat, (rng.choice(outside),)), codes("unknown_card")))
        if state.seeded:
            out.append((Exchange(seat, (), ()), codes("invalid_exchange")))
        else:
            out.append((Exchange(seat, ()), codes("invalid_exchange")))
            if held and limit:
                drawn = (held[-1],)
                out.append((Exchange(seat, (held[0],), drawn), codes("card_not_available")))
    elif phase == "playing":
        out.append((Play(rng.choice(others), held[0]), codes("not_your_turn")))
        out.append((Play(seat, rng.choice(foreign)), codes("card_not_in_hand")))
        out.append((Play(seat, 7), codes("unknown_card")))  # type: ignore[arg-type]
        out.append((Play(True, held[0]), codes("unknown_seat")))  # type: ignore[arg-type]
        if outside:
            out.append((Play(seat, rng.choice(outside)), codes("unknown_card")))
        legal = {a.card for a in g.legal_actions(state, seat)}  # type: ignore[union-attr]
        illegal = [c for c in held if c not in legal]
        if illegal:
            out.append((Play(seat, rng.choice(illegal)), codes(
                "must_follow_suit", "must_beat", "must_trump", "must_overtrump",
                "must_undertrump")))  # fmt: skip
    return out


def assert_refused(state: State, action: Any, allowed: frozenset[str]) -> None:
    before = repr(state)
    with pytest.raises(RuleViolation) as refused:
        g.decide(state, action)
    code = refused.value.code
    assert code in allowed, f"{action} in {state.phase}: {code} ({refused.value.message})"
    assert code in DOCUMENTED_CODES and refused.value.message
    assert repr(state) == before, "a refused action changed the state"


@budget(60)
@given(spec=specs)
def test_legal_actions_are_accepted_and_others_refused(spec: Spec) -> None:
    rng = random.Random(spec.rng_seed ^ 0x5EED)
    last = None
    for step in play_match(spec):
        state = step.before
        acting = set(g.to_act(state))
        for seat in range(spec.players):
            legal = g.legal_actions(state, seat)
            assert (len(legal) > 0) == (seat in acting), f"seat {seat} in {state.phase}"
            for i in rng.sample(range(len(legal)), min(6, len(legal))):
                action = legal[i]
                assert g.parse(json.loads(json.dumps(g.body(action)))) == action
                assert g.decide(state, action), f"{action} caused no event"
        for action, allowed in refused_actions(state, rng):
            assert_refused(state, action, allowed)
        last = step.after
    assert last is not None
    for action, allowed in refused_actions(last, rng):
        assert_refused(last, action, allowed)


# --- 6. determinism and the seeded deal -----------------------------------------------------------


def dealt_by_the_rules(table: Table, dealer: int, deal_seed: str) -> tuple[Any, str, tuple]:
    """Rule 2: shuffle the canonical deck, five each one at a time from the dealer's right
    anticlockwise; the dealer's last card is the muestra; the rest is the stock."""
    n = table.players
    cards = shuffle(deck_of(n, table.options.get("deck", "short")), deal_seed)
    hands: list[list[str]] = [[] for _ in range(n)]
    for i in range(5 * n):
        hands[(dealer - 1 - i) % n].append(cards[i])
    order = deck_of(n, "full")
    return (
        tuple(tuple(sorted(h, key=order.index)) for h in hands),
        cards[5 * n - 1],
        tuple(cards[5 * n :]),
    )


@budget(50)
@given(spec=specs.filter(lambda s: not s.recorded))
def test_same_seed_and_choices_give_the_same_log(spec: Spec) -> None:
    table = make_table(spec)
    log = [e for step in play_match(spec) for e in step.events]
    n = spec.players
    deals = [e for e in log if isinstance(e, DealStarted)]
    for k, started in enumerate(deals, start=1):
        dealer = (table.first_dealer - (k - 1)) % n  # the deal passes to the right
        assert (started.deal, started.dealer, started.seed) == (k, dealer, f"{spec.seed}/{k}")
        hands, muestra, stock = dealt_by_the_rules(table, dealer, started.seed)
        assert (started.hands, started.muestra, started.stock) == (hands, muestra, stock)
        assert muestra in started.hands[dealer] and started.trump == muestra[-1]
    # Rule 4: draws from the top of the stock; an empty stock is renewed from the
    # laid-aside cards in canonical order, shuffled with ".../restock", ".../restock2" …
    state = g.initial_state(table)
    renewals = 0
    for e in log:
        if isinstance(e, DealStarted):
            renewals = 0
        elif isinstance(e, CardsExchanged) and e.restock is None:
            assert e.drawn == state.stock[: len(e.drawn)]
        elif isinstance(e, CardsExchanged):
            renewals += 1
            pool = g.cards_of(state.laid_aside)  # canonical order, without e's own discards
            suffix = str(renewals) if renewals > 1 else ""
            assert e.restock == tuple(shuffle(pool, f"{spec.seed}/{state.deal}/restock{suffix}"))
            assert not set(e.restock) & set(e.discarded)
            assert e.drawn == (*state.stock, *e.restock[: len(e.drawn) - len(state.stock)])
        state = g.evolve(state, e)


# --- 7. plays, tricks and moscas follow the rules -------------------------------------------------


def moscas(state: State) -> list[tuple[tuple[bool, list[int]], int]]:
    m = model_of(state)
    found = []
    for seat in state.active:
        hand = g.cards_of(state.hands[seat])
        suits = {m.suit(c) for c in hand}
        if len(hand) == 5 and len(suits) == 1:
            found.append(((suits == {m.trump}, sorted(map(m.power, hand), reverse=True)), seat))
    return found


@budget(250)
@given(spec=specs)
def test_plays_tricks_and_moscas_follow_the_rules(spec: Spec) -> None:
    for step in play_match(spec):
        triples = list(fold(step.before, step.events))
        for i, (event, before, after) in enumerate(triples):
            if isinstance(event, CardPlayed):
                m = model_of(before)
                hand = g.cards_of(before.hands[event.seat])
                trick = [g.cards_of(1 << c)[0] for c in before.trick]
                legal = {a.card for a in g.legal_actions(before, event.seat)}  # type: ignore[union-attr]
                assert legal == m.legal(hand, trick), f"{hand} to {trick} under {m}"
                assert event.card in legal
            elif isinstance(event, TrickCompleted):
                cards = list(event.cards)
                assert event.winner == event.seats[cards.index(model_of(before).winning(cards))]
                assert event.seats == before.order and len(event.seats) == len(before.active)
                if after.phase == "playing":
                    assert after.order[0] == event.winner, "the trick's winner leads next"
            if before.phase != "playing" and after.phase == "playing":
                # Rule 6: the first player in to the dealer's right leads …
                ring = [(after.dealer - 1 - k) % spec.players for k in range(spec.players)]
                assert after.order[0] == next(p for p in ring if after.calls[p] == "play")
                # … unless rule 5's best mosca takes the pot first.
                found = moscas(after)
                following = triples[i + 1][0] if i + 1 < len(triples) else None
                if found:
                    best = max(k for k, _ in found)
                    assert isinstance(following, MoscaWon)
                    assert sorted(following.seats) == sorted(p for k, p in found if k == best)
                    assert isinstance(triples[i + 2][0], DealSettled)
                else:
                    assert following is None


# --- 8. the match ends with a ranking -------------------------------------------------------------


@budget(200)
@given(spec=specs)
def test_the_match_ends_with_a_ranking(spec: Spec) -> None:
    log = [(e, after) for e, _before, after in events_of(spec)]
    end, final = log[-1]
    assert isinstance(end, MatchEnded) and isinstance(log[-2][0], DealSettled)
    assert sum(isinstance(e, MatchEnded) for e, _ in log) == 1
    settled = [e for e, _ in log if isinstance(e, DealSettled)]

    def over(e: DealSettled) -> bool:
        reached = spec.target is not None and max(e.balances) >= spec.target
        return e.deal >= spec.max_deals or reached

    assert [over(e) for e in settled] == [False] * (len(settled) - 1) + [True]
    assert end.totals == settled[-1].balances == final.balances
    assert final.phase == "finished" and final.ranking == end.ranking
    assert g.to_act(final) == () and all(not g.legal_actions(final, s) for s in range(spec.players))
    for seat, place in enumerate(end.ranking):
        assert place == 1 + sum(t > end.totals[seat] for t in end.totals)
    v = g.view(final, None)
    assert v["status"] == "finished" and v["ranking"] == list(end.ranking)
    assert v["pot"] == -sum(final.balances)
