"""Property tests of The Bottle Imp's rules engine (``docs/rules/bottle-imp.md``,
``docs/rules/common.md``).

Every example plays a whole match of random *legal* actions through ``decide``/``evolve``:
a seat drawn from ``to_act``, an entry drawn from ``legal_actions``, the events folded into
the state. The properties are then checked on every event, action or deal of that match.
Expectations are computed from the rules text, not from the engine's helpers.
What every game must do (replay through JSON, the same seed giving the same log, legal
actions accepted, hands withheld, matches ending ranked) is ``tests/contract/``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from functools import reduce
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import RuleViolation
from domain.events import MatchEnded, TableOpened, to_data
from domain.games import bottle_imp as g
from domain.games.bottle_imp.cards import BIT, COINS, DECK, START_CARD, SUIT, cards_of, coins
from domain.games.bottle_imp.model import (
    CardPlayed,
    ChooseOpen,
    Deal,
    DealScored,
    DealStarted,
    Discard,
    Pass,
    Play,
    State,
    TrickCompleted,
)
from domain.games.bottle_imp.places import undelivered
from domain.match import MatchRules
from domain.shuffle import shuffle
from domain.table import SeatSpec, Table
from tests.contract.cards import cards_in

VARIANTS = [("standard", 3), ("standard", 4), ("lopaka", 2), ("bright-house", 2)]
LOPAKA = 2  # Lopaka's seat in the lopaka variant
PILES = ("A", "B")
#: ``docs/api.md`` names some codes; the rest are the engine's documented rule codes.
DOCUMENTED_CODES = {
    "illegal_play", "must_follow_suit", "not_your_turn", "card_not_in_hand", "unknown_card",
    "wrong_phase", "match_finished", "unknown_seat", "lopaka_plays_itself", "unknown_hand",
    "wrong_hand", "card_was_received", "already_discarded", "already_passed", "same_card",
    "invalid_pass", "already_chosen", "not_in_this_variant", "invalid_deal",
}  # fmt: skip


def budget(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None)


# --- drawing and playing a match ------------------------------------------------------------


class Spec(NamedTuple):
    seed: str | int
    rng_seed: int
    max_deals: int
    target: int | None
    first_dealer: int


specs = st.builds(
    Spec,
    seed=st.one_of(st.text(max_size=12), st.integers()),
    rng_seed=st.integers(0, 2**32 - 1),
    max_deals=st.integers(3, 5),
    target=st.sampled_from([None, None, 120, 500]),
    first_dealer=st.integers(0, 3),
)


def make_table(variant: str, players: int, spec: Spec) -> Table:
    """The table of ``spec``; an integer seed is given as its decimal string (common.md)."""
    seed = str(spec.seed)
    return Table(
        game=g.GAME_ID,
        variant=variant,
        seats=tuple(SeatSpec(name=f"P{i}") for i in range(players)),
        match=MatchRules(spec.target, spec.max_deals),
        seed=seed,
        first_dealer=spec.first_dealer % players,
    )


class Step(NamedTuple):
    """One action of a match: the state it was taken in, and what it caused."""

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


def play_match(table: Table, rng: random.Random) -> Iterator[Step]:
    """A whole match of random legal actions."""
    state = g.initial_state(table)
    for _ in range(300 * (table.match.max_deals or 20)):
        if state.phase == "finished":
            return
        seats = g.to_act(state)
        assert seats, f"nobody to act in phase {state.phase}"
        seat = seats[rng.randrange(len(seats))]
        legal = g.legal_actions(state, seat)
        assert len(legal) > 0, f"seat {seat} is to act but has no legal action"
        action = legal[rng.randrange(len(legal))]
        events = g.decide(state, action)
        after = reduce(g.evolve, events, state)
        yield Step(state, seat, action, events, after)
        state = after
    raise AssertionError("the match did not end")


def run(table: Table, rng: random.Random) -> tuple[State, list[Any]]:
    """The final state and the event log (after ``TableOpened``) of a random match."""
    state, log = g.initial_state(table), []
    for step in play_match(table, rng):
        state = step.after
        log += step.events
    return state, log


# --- reading a state the rules' way -----------------------------------------------------------


def owner_of(variant: str, slot: int) -> int:
    """The seat playing a hand slot (bright-house: slots 2s, 2s+1 are seat s's A, B)."""
    return slot // 2 if variant == "bright-house" else slot


def is_public(state: State, slot: int) -> bool:
    """Lopaka's hand after the exchange; a bright-house pile once chosen open."""
    variant = state.table.variant
    if variant == "lopaka":
        return slot == LOPAKA and state.phase == "playing"
    if variant == "bright-house":
        return state.open_hands[slot // 2] == PILES[slot % 2]
    return False


def trick_winner(cards: tuple[int, ...], price: int) -> int:
    """Rule 4: the highest card below the price, else the highest card."""
    below = [c for c in cards if c < price]
    return max(below or cards)


def seats_in_trick(state: State, leader: int) -> tuple[int, ...]:
    """Who plays, in order, to a trick led by ``leader`` (rule 3 and the variants)."""
    t = state.table
    if t.variant == "bright-house":
        return (leader, 1 - leader, leader, 1 - leader)
    if t.variant == "lopaka":
        ring = (1 - state.dealer, LOPAKA, state.dealer)
        i = ring.index(leader)
        return ring[i:] + ring[:i]
    return tuple((leader + i) % t.players for i in range(t.players))


def lopaka_card(hand: tuple[int, ...], trick: tuple[int, ...], price: int) -> int:
    """Lopaka's fixed rules (docs/rules/bottle-imp.md, Variant lopaka, 3)."""
    if not trick:
        return max(hand)
    legal = [c for c in hand if SUIT[c] == SUIT[trick[0]]] or list(hand)
    winners = [c for c in legal if trick_winner((*trick, c), price) == c]
    return max(winners) if winners else min(legal)


# --- 2. deal scoring ----------------------------------------------------------------------


def assert_scored(before: State, e: DealScored) -> None:
    """Rule 6 and its invariants, from the state just before ``DealScored``."""
    seats = len(before.totals)
    devil = sum(COINS[c] for c in e.devil_trick)
    assert not any(before.hands), "the deal was scored with cards still in hand"
    assert sorted(before.devil) == list(e.devil_trick)
    assert (e.price, e.owner) == (before.price, before.owner)
    assert e.owner is not None
    assert e.price != START_CARD
    assert sum(coins(w) for w in before.won) + COINS[e.price] + devil == 126
    # A cheapest-case count: the p-1 cards below the final price p are in the devil's
    # trick or were beaten in one of at most 19-p bottle-buying tricks, so with tricks of
    # k cards and a devil's trick of d cards, p-1 <= d + (k-1)(19-p): 3 cards give p <= 14.
    per_trick = len(before.order)
    assert e.price <= (14 if per_trick == 3 else 15), f"final price {e.price}"
    expected = tuple(
        -devil if seat == e.owner else coins(before.won[seat]) for seat in range(seats)
    )
    assert e.scores == expected
    assert e.totals == tuple(t + s for t, s in zip(before.totals, e.scores, strict=True))


@pytest.mark.parametrize(("variant", "players"), VARIANTS)
@budget(120)
@given(spec=specs)
def test_every_deal_is_scored_by_rule_6(variant: str, players: int, spec: Spec) -> None:
    table = make_table(variant, players, spec)
    scored = 0
    for step in play_match(table, random.Random(spec.rng_seed)):
        for event, before, _after in fold(step.before, step.events):
            if isinstance(event, DealScored):
                assert_scored(before, event)
                scored += 1
    assert scored >= 1


# --- 4. hidden information ----------------------------------------------------------------


def hidden_from(state: State, viewer: int | None) -> set[int]:
    """The cards ``viewer`` (a seat, or ``None`` for the public) may not know now."""
    if state.phase in ("waiting_for_deal", "finished"):
        return set()  # a scored deal is public
    variant = state.table.variant
    secret: set[int] = set()
    known: set[int] = set()
    for slot, hand in enumerate(state.hands):
        if owner_of(variant, slot) == viewer:
            known.update(state.passes[slot] or ())
            continue
        if not is_public(state, slot):
            secret.update(cards_of(hand))
        secret.update(c for c in (state.discards[slot],) if c is not None)
        secret.update(undelivered(state, slot))
    if variant == "lopaka":
        secret.update(state.devil)
    return secret - known


def assert_nothing_leaks(state: State, deal_log: list[Any], fresh: int) -> None:
    """No view and no redacted log of the deal in progress shows a card hidden from it.

    ``fresh``: how many events at the end of ``deal_log`` are new. Played cards and
    completed tricks are public for good, so they are checked once, when new (the
    hidden set only shrinks during play); every other event is checked every time.
    """
    opened = TableOpened.of(state.table)
    for viewer in (*range(state.table.players), None):
        secret = hidden_from(state, viewer)
        if not secret:
            continue
        shown = cards_in(g.SPEC, g.view(state, viewer)) & secret
        assert not shown, f"view of {viewer!r} in {state.phase} shows {sorted(shown)}"
        visible = g.visible_events([opened, *deal_log], viewer)[1:]
        assert len(visible) == len(deal_log)
        for i, event in enumerate(visible):
            if i < len(visible) - fresh and isinstance(event, CardPlayed | TrickCompleted):
                continue
            shown = cards_in(g.SPEC, event) & secret
            assert not shown, f"{viewer!r} sees {sorted(shown)} in {event}"
            if isinstance(event, DealStarted):
                assert event.seed is None, "the deal seed is secret until the match ends"


@pytest.mark.parametrize(("variant", "players"), VARIANTS)
@budget(40)
@given(spec=specs)
def test_no_view_shows_a_hidden_card(variant: str, players: int, spec: Spec) -> None:
    table = make_table(variant, players, spec)
    deal_log: list[Any] = []
    for step in play_match(table, random.Random(spec.rng_seed)):
        for event in step.events:
            deal_log = [event] if isinstance(event, DealStarted) else [*deal_log, event]
        assert_nothing_leaks(step.after, deal_log, fresh=len(step.events))


# --- 5. legal actions are accepted, others refused -----------------------------------------


Refusal = tuple[Any, frozenset[str]]


def _codes(*codes: str) -> frozenset[str]:
    return frozenset(codes)


def refused_in_playing(state: State, rng: random.Random) -> list[Refusal]:
    variant = state.table.variant
    i = len(state.trick)
    seat, slot = state.turn[i], state.order[i]
    held = state.hands[slot]
    out: list[Refusal] = []
    not_held = [c for c in DECK if not held & BIT[c]]
    c = rng.choice(not_held)
    sibling = slot ^ 1 if variant == "bright-house" else None
    in_sibling = sibling is not None and state.hands[sibling] & BIT[c]
    out.append((Play(seat, c), _codes("wrong_hand" if in_sibling else "card_not_in_hand")))
    if state.trick:
        led = SUIT[state.trick[0]]
        mine = cards_of(held)
        off = [c for c in mine if SUIT[c] != led]
        if off and len(off) < len(mine):
            out.append((Play(seat, rng.choice(off)), _codes("must_follow_suit")))
    own = rng.choice(cards_of(held))
    for other in range(len(state.totals)):
        if other != seat:
            code = "lopaka_plays_itself" if variant == "lopaka" and other == LOPAKA else None
            out.append((Play(other, own), _codes(code or "not_your_turn")))
    out.append((Play(len(state.totals), own), _codes("unknown_seat")))
    for bad in (START_CARD, 0, 38, "7"):
        out.append((Play(seat, bad), _codes("unknown_card")))  # type: ignore[arg-type]
    wrong_pile = PILES[1 - slot % 2] if variant == "bright-house" else "A"
    out.append((Play(seat, own, wrong_pile), _codes("wrong_hand", "unknown_hand")))
    hand = PILES[slot % 2] if variant == "bright-house" else None
    out.append((Discard(seat, own, hand), _codes("wrong_phase")))
    return out


def refused_in_preparing(state: State, rng: random.Random) -> list[Refusal]:
    variant = state.table.variant
    bright = variant == "bright-house"
    out: list[Refusal] = []
    for slot, hand_mask in enumerate(state.hands):
        seat, hand = owner_of(variant, slot), (PILES[slot % 2] if bright else None)
        if variant == "lopaka" and seat == LOPAKA:
            out.append((Pass(seat, opponent=rng.choice(cards_of(hand_mask))),
                        _codes("lopaka_plays_itself")))  # fmt: skip
            continue
        dealt = cards_of(hand_mask & ~state.received[slot])
        c = rng.choice(dealt)
        foreign = rng.choice([x for x in DECK if not hand_mask & BIT[x]])
        if variant == "lopaka":
            out.append((Discard(seat, c), _codes("not_in_this_variant")))
        elif state.discards[slot] is not None:
            out.append((Discard(seat, c, hand), _codes("already_discarded")))
        else:
            out.append((Discard(seat, foreign, hand), _codes("card_not_in_hand")))
            if state.received[slot]:
                got = rng.choice(cards_of(state.received[slot]))
                out.append((Discard(seat, got, hand), _codes("card_was_received")))
        other = rng.choice([x for x in dealt if x != c] or [c])
        shaped = {
            "standard": Pass(seat, left=c, right=other),
            "lopaka": Pass(seat, opponent=c),
            "bright-house": Pass(seat, hand=hand, card=c),
        }[variant]
        if state.passes[slot] is not None:
            out.append((shaped, _codes("already_passed")))
            continue
        if variant == "standard":
            out.append((Pass(seat, left=c, right=c), _codes("same_card")))
            out.append((Pass(seat, left=c, right=foreign), _codes("card_not_in_hand")))
            out.append((Pass(seat, opponent=c), _codes("invalid_pass")))
        else:
            out.append((Pass(seat, left=c, right=other), _codes("invalid_pass")))
            elsewhere = (
                Pass(seat, opponent=foreign)
                if variant == "lopaka"
                else Pass(seat, hand=hand, card=foreign)
            )
            out.append((elsewhere, _codes("card_not_in_hand")))
    out.append((Discard(len(state.totals), DECK[0]), _codes("unknown_seat")))
    return out


def refused_actions(state: State, rng: random.Random) -> list[Refusal]:
    """Actions the rules refuse in ``state``, with the codes that say why."""
    if state.phase == "finished":
        return [(Deal(), _codes("match_finished")), (Play(0, DECK[0]), _codes("match_finished"))]
    bright = state.table.variant == "bright-house"
    phase = state.phase
    out: list[Refusal] = []
    if phase != "waiting_for_deal":
        out.append((Deal(), _codes("wrong_phase")))
    else:
        out.append((Deal(hands=((1, 2, 3),)), _codes("invalid_deal")))
    if phase != "playing":
        out.append((Play(0, DECK[0]), _codes("wrong_phase")))
    if phase != "preparing":
        out.append((Pass(0, opponent=DECK[0]), _codes("wrong_phase")))
        out.append((Discard(0, DECK[0], "A" if bright else None), _codes("wrong_phase")))
    if not bright:
        out.append((ChooseOpen(0, "A"), _codes("not_in_this_variant")))
    elif phase == "choosing":
        for seat, chosen in enumerate(state.open_hands):
            out.append((ChooseOpen(seat, "C"), _codes("unknown_hand")))
            if chosen is not None:
                out.append((ChooseOpen(seat, "A"), _codes("already_chosen")))
    else:
        out.append((ChooseOpen(0, "A"), _codes("wrong_phase")))
    if phase == "playing":
        out += refused_in_playing(state, rng)
    elif phase == "preparing":
        out += refused_in_preparing(state, rng)
    return out


def assert_legal_accepted(state: State, rng: random.Random) -> None:
    acting = set(g.to_act(state))
    for seat in range(len(state.totals)):
        legal = g.legal_actions(state, seat)
        assert (len(legal) > 0) == (seat in acting), f"seat {seat} in {state.phase}"
        for i in rng.sample(range(len(legal)), min(10, len(legal))):
            action = legal[i]
            assert g.parse(g.body(action)) == action
            events = g.decide(state, action)
            assert events, f"{action} caused no event"


def assert_refused(state: State, action: Any, codes: frozenset[str]) -> None:
    before = repr(state)
    with pytest.raises(RuleViolation) as refused:
        g.decide(state, action)
    code = refused.value.code
    assert code in codes, f"{action} in {state.phase}: {code} ({refused.value.message})"
    assert code in DOCUMENTED_CODES
    assert refused.value.message
    assert repr(state) == before, "a refused action changed the state"


@pytest.mark.parametrize(("variant", "players"), VARIANTS)
@budget(30)
@given(spec=specs)
def test_legal_actions_are_accepted_and_others_refused(
    variant: str, players: int, spec: Spec
) -> None:
    table = make_table(variant, players, spec)
    rng = random.Random(spec.rng_seed ^ 0x5EED)  # the checks' own draws
    last = g.initial_state(table)
    for step in play_match(table, random.Random(spec.rng_seed)):
        assert_legal_accepted(step.before, rng)
        for action, codes in refused_actions(step.before, rng):
            assert_refused(step.before, action, codes)
        last = step.after
    for action, codes in refused_actions(last, rng):
        assert_refused(last, action, codes)


@pytest.mark.parametrize(("variant", "players"), VARIANTS)
def test_a_play_by_a_seat_that_is_not_an_integer_is_refused(variant: str, players: int) -> None:
    """``_check_seat`` refuses non-integer seats; a play must too (JSON ``true`` is no seat)."""
    table = make_table(variant, players, Spec("non-int-seat", 0, 1, None, 0))
    for step in play_match(table, random.Random(0)):
        s = step.after
        if s.phase == "playing":
            seat = g.to_act(s)[0]
            card = g.legal_actions(s, seat)[0].card  # type: ignore[union-attr]
            for not_a_seat in (bool(seat), float(seat)):
                assert_refused(s, Play(not_a_seat, card), _codes("unknown_seat"))  # type: ignore[arg-type]
            return
    raise AssertionError("nobody played")


# --- 6. determinism -----------------------------------------------------------------------


def dealt_by_the_rules(state: State, deal_seed: str) -> tuple[Any, Any]:
    """Hands and devil's trick of a seeded deal, sorted, as rule 1 of each variant says."""
    t, dealer = state.table, state.dealer
    deck = shuffle(DECK, deal_seed)
    if t.variant == "bright-house":
        piles = [tuple(sorted(deck[i : i + 9])) for i in range(0, 36, 9)]
        hands: list[Any] = [None, None]
        hands[1 - dealer] = {"A": piles[0], "B": piles[2]}
        hands[dealer] = {"A": piles[1], "B": piles[3]}
        return tuple(hands), None
    if t.variant == "lopaka":
        ring: tuple[int, ...] = (1 - dealer, LOPAKA, dealer)
        dealt, devil = deck[:33], tuple(sorted(deck[33:]))
    else:
        ring = tuple((dealer + 1 + i) % t.players for i in range(t.players))
        dealt, devil = deck, None
    per_seat: list[list[int]] = [[] for _ in ring]
    for i, c in enumerate(dealt):
        per_seat[ring[i % len(ring)]].append(c)
    return tuple(tuple(sorted(h)) for h in per_seat), devil


@pytest.mark.parametrize(("variant", "players"), VARIANTS)
@budget(50)
@given(spec=specs)
def test_same_seed_and_choices_give_the_same_log(variant: str, players: int, spec: Spec) -> None:
    table = make_table(variant, players, spec)
    _final, log = run(table, random.Random(spec.rng_seed))
    state = g.initial_state(table)
    deals: list[DealStarted] = []
    for event in log:
        if isinstance(event, DealStarted):
            k = len(deals) + 1
            assert event.deal == k
            assert event.dealer == (table.first_dealer + k - 1) % players
            assert event.seed == f"{spec.seed}/{k}"
            expected = dealt_by_the_rules(state, event.seed)
            got_hands = tuple(
                {p: tuple(sorted(h[p])) for p in PILES} if isinstance(h, dict) else tuple(sorted(h))
                for h in event.hands
            )
            devil = tuple(sorted(event.devil)) if event.devil is not None else None
            assert (got_hands, devil) == expected
            deals.append(event)
        state = g.evolve(state, event)
    hands = [json.dumps(to_data(d)["hands"]) for d in deals]
    assert len(set(hands)) == len(hands), "two deals of one match dealt the same hands"


# --- 7. match end -------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "players"), VARIANTS)
@budget(120)
@given(spec=specs)
def test_the_match_ends_with_a_ranking(variant: str, players: int, spec: Spec) -> None:
    table = make_table(variant, players, spec)
    final, log = run(table, random.Random(spec.rng_seed))
    end = log[-1]
    assert isinstance(end, MatchEnded)
    assert isinstance(log[-2], DealScored)
    assert sum(isinstance(e, MatchEnded) for e in log) == 1
    ranked = range(players)

    def over(e: DealScored) -> bool:
        by_target = spec.target is not None and any(e.totals[s] >= spec.target for s in ranked)
        return e.deal >= spec.max_deals or by_target

    scored = [e for e in log if isinstance(e, DealScored)]
    assert [over(e) for e in scored] == [False] * (len(scored) - 1) + [True]
    assert end.totals == scored[-1].totals == final.totals
    assert final.phase == "finished" and final.ranking == end.ranking
    assert g.to_act(final) == ()
    assert all(len(g.legal_actions(final, s)) == 0 for s in range(len(final.totals)))
    for seat, place in enumerate(end.ranking):
        if variant == "lopaka" and seat == LOPAKA:
            assert place is None, "Lopaka is not ranked"
            continue
        assert place == 1 + sum(end.totals[o] > end.totals[seat] for o in ranked)
    assert len(end.ranking) == len(end.totals)
    assert min(p for p in end.ranking if p is not None) == 1


# --- the engine's own events follow the rules -----------------------------------------------


def assert_play_follows_rules(before: State, e: CardPlayed) -> None:
    i = len(before.trick)
    slot, seat = before.order[i], before.turn[i]
    assert e.seat == seat and before.hands[slot] & BIT[e.card], f"{e} out of turn or hand"
    mine = cards_of(before.hands[slot])
    if before.trick:
        led = SUIT[before.trick[0]]
        assert SUIT[e.card] == led or all(SUIT[c] != led for c in mine), f"{e} must follow"
    if before.table.variant == "lopaka" and seat == LOPAKA:
        assert e.card == lopaka_card(mine, before.trick, before.price), f"Lopaka played {e}"
    if before.table.variant == "bright-house":
        assert e.hand == PILES[slot % 2]
        assert PILES[slot % 2] == (before.open_hands[seat] if i < 2 else
                                   PILES[1 - PILES.index(before.open_hands[seat])])  # fmt: skip


def assert_trick_follows_rules(before: State, e: TrickCompleted) -> None:
    assert e.cards == before.trick and e.seats == before.turn
    assert e.seats == seats_in_trick(before, before.leader)
    best = trick_winner(e.cards, before.price)
    assert e.winner == e.seats[e.cards.index(best)]
    if best < before.price:
        assert (e.price, e.owner) == (best, e.winner)
    else:
        assert (e.price, e.owner) == (before.price, before.owner)


@pytest.mark.parametrize(("variant", "players"), VARIANTS)
@budget(80)
@given(spec=specs)
def test_plays_and_tricks_follow_rules_3_and_4(variant: str, players: int, spec: Spec) -> None:
    table = make_table(variant, players, spec)
    for step in play_match(table, random.Random(spec.rng_seed)):
        for event, before, after in fold(step.before, step.events):
            if isinstance(event, CardPlayed):
                assert_play_follows_rules(before, event)
            elif isinstance(event, TrickCompleted):
                assert_trick_follows_rules(before, event)
                if any(after.hands):
                    assert after.turn[0] == event.winner, "the trick's winner leads next"
            if before.phase != "playing" and after.phase == "playing":
                first = 1 - after.dealer if players == 2 else (after.dealer + 1) % players
                assert after.turn[0] == first, "the dealer's left (non-dealer) leads first"
