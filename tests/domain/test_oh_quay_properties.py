"""Property tests of Oh Quay's rules engine (``docs/rules/oh-quay.md``, ``docs/rules/common.md``).

Every example plays a whole match of random *legal* actions through ``decide``/``evolve``:
the seat from ``to_act``, an entry drawn from ``legal_actions``, the events folded into the
state. The properties are then checked on every event, action or game of that match.
Expectations are computed from the rules text, not from the engine's helpers.
What every game must do (replay through JSON, the same seed giving the same log, legal
actions accepted, hands withheld, matches ending ranked) is ``tests/contract/``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from itertools import pairwise
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import RuleViolation
from domain.events import MatchEnded, TableOpened, to_data
from domain.games import oh_quay as g
from domain.games.oh_quay.model import (
    CargoLoaded,
    Deal,
    DealScored,
    DealStarted,
    Launch,
    Load,
    RaftCardTaken,
    RaftLaunched,
    RaftScored,
    State,
    Take,
)
from domain.match import MatchRules
from domain.shuffle import shuffle
from domain.table import ORGANISER, SeatSpec, Table

# docs/rules/oh-quay.md, "The deck", written out again so the checks do not trust the engine.
SUITS_OF: dict[str, set[str]] = {
    **{f"ace-{s}": {s} for s in ("moons", "suns", "waves", "leaves", "wyrms", "knots")},
    "author": {"moons", "knots"}, "desert": {"suns", "wyrms"}, "origin": {"waves", "leaves"},
    "journey": {"moons", "waves"}, "painter": {"suns", "knots"}, "savage": {"leaves", "wyrms"},
    "mountain": {"moons", "suns"}, "sailor": {"waves", "leaves"}, "battle": {"wyrms", "knots"},
    "forest": {"moons", "leaves"}, "discovery": {"suns", "waves"}, "soldier": {"wyrms", "knots"},
    "lunatic": {"moons", "waves"}, "penitent": {"suns", "wyrms"}, "market": {"leaves", "knots"},
    "chance-meeting": {"moons", "leaves"}, "castle": {"suns", "knots"}, "cave": {"waves", "wyrms"},
    "diplomat": {"moons", "suns"}, "mill": {"waves", "leaves"}, "betrayal": {"wyrms", "knots"},
    "pact": {"moons", "suns"}, "darkness": {"waves", "wyrms"}, "merchant": {"leaves", "knots"},
    "huntress": {"moons"}, "bard": {"suns"}, "sea": {"waves"}, "end": {"leaves"},
    "calamity": {"wyrms"}, "windfall": {"knots"},
}  # fmt: skip
RANK_OF = {c: 1 if c.startswith("ace-") else 0 for c in SUITS_OF}
for _rank, _names in enumerate(
    [("author", "desert", "origin"), ("journey", "painter", "savage"),
     ("mountain", "sailor", "battle"), ("forest", "discovery", "soldier"),
     ("lunatic", "penitent", "market"), ("chance-meeting", "castle", "cave"),
     ("diplomat", "mill", "betrayal"), ("pact", "darkness", "merchant"),
     ("huntress", "bard", "sea", "end", "calamity", "windfall")],
    start=2,
):  # fmt: skip
    for _c in _names:
        RANK_OF[_c] = _rank
CARDS = frozenset(SUITS_OF)
#: The engine's documented refusal codes.
DOCUMENTED_CODES = {
    "wrong_phase", "match_finished", "not_your_turn", "unknown_seat", "unknown_card",
    "unknown_quay", "empty_quay", "invalid_position", "invalid_count", "invalid_keep",
    "not_a_raft", "keep_required", "card_not_in_raft", "invalid_deal", "no_seed",
}  # fmt: skip


def budget(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None)


def is_raft(cards: tuple[str, ...]) -> bool:
    """All share a suit; ranks strictly increase from the front."""
    common = set.intersection(*(SUITS_OF[c] for c in cards))
    ranks = [RANK_OF[c] for c in cards]
    return bool(common) and all(a < b for a, b in pairwise(ranks))


# --- drawing and playing a match ------------------------------------------------------------


class Spec(NamedTuple):
    seed: str | int
    rng_seed: int
    max_deals: int
    max_turns: int | None
    first_player: int | None
    first_dealer: int


specs = st.builds(
    Spec,
    seed=st.one_of(st.text(max_size=12), st.integers()),
    rng_seed=st.integers(0, 2**32 - 1),
    max_deals=st.sampled_from([2, 2, 3, 1]),
    max_turns=st.sampled_from([None, None, None, None, None, 1, 2, 9, 40]),  # None: 200
    first_player=st.sampled_from([None, None, 0, 1]),
    first_dealer=st.integers(0, 1),
)


def make_table(spec: Spec) -> Table:
    """The table of ``spec``; an integer seed is given as its decimal string (common.md)."""
    options: dict[str, int] = {}
    if spec.max_turns is not None:
        options["max_turns"] = spec.max_turns
    if spec.first_player is not None:
        options["first_player"] = spec.first_player
    return Table(
        game=g.GAME_ID,
        variant=g.DEFAULT_VARIANT,
        seats=(SeatSpec(name="Ann"), SeatSpec(bot="random")),
        match=MatchRules(None, spec.max_deals),
        seed=str(spec.seed),
        first_dealer=spec.first_dealer,
        options=options,
    )


def cap(spec: Spec) -> int:
    return spec.max_turns if spec.max_turns is not None else 200


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
    """A whole match of random legal actions; it must end within the turn caps."""
    state = g.initial_state(table)
    max_turns = table.options.get("max_turns", 200)
    deals = table.match.max_deals or 50  # a target alone: games go on until it is reached
    # per turn: a load, a launch and at most one take; plus a deal per game
    for _ in range(deals * (3 * max_turns + 1) + 1):  # + 1: see the final state
        if state.phase == "finished":
            return
        seats = g.to_act(state)
        assert len(seats) == 1, f"to_act is {seats} in phase {state.phase}"
        seat = seats[0]
        legal = g.legal_actions(state, seat)
        assert len(legal) > 0, f"seat {seat} is to act but has no legal action"
        action = legal[rng.randrange(len(legal))]
        events = g.decide(state, action)
        after = state
        for _event, _before, after in fold(state, events):  # noqa: B007
            pass
        yield Step(state, seat, action, events, after)
        state = after
    raise AssertionError("the match did not end within max_turns per game")


def run(table: Table, rng: random.Random) -> tuple[State, list[Any]]:
    """The final state and the event log (after ``TableOpened``) of a random match."""
    state, log = g.initial_state(table), []
    for step in play_match(table, rng):
        state = step.after
        log += step.events
    return state, log


# --- 1. cards are conserved ---------------------------------------------------------------


# --- 2. each move and each game follows the rules -------------------------------------------


def assert_event_follows_rules(event: Any, before: State, after: State) -> None:
    kind = type(event)
    if kind is CargoLoaded:
        quay = event.seat if event.from_ == "own" else 1 - event.seat
        assert event.card == before.quays[quay][0], "a load takes the quay's top card"
        assert after.canals[event.seat][event.position] == event.card
        assert after.quays[quay] == before.quays[quay][1:]
    elif kind is RaftLaunched:
        canal = before.canals[event.seat]
        assert event.cards == canal[: len(event.cards)], "a launch takes the canal's front"
        assert len(event.cards) == 1 or is_raft(event.cards)
        assert event.kept in event.cards
        assert after.quays[event.seat][-1] == event.kept, "kept: bottom of the own quay"
    elif kind is RaftCardTaken:
        assert event.seat == 1 - before.player and event.card != before.kept
        assert event.card in before.raft
        assert after.quays[event.seat][-1] == event.card, "taken: bottom of the taker's quay"
    elif kind is RaftScored:
        assert len(event.cards) == len(before.raft) - 2
        assert after.piles[event.seat][-len(event.cards) :] == event.cards


@budget(300)
@given(spec=specs)
def test_every_game_ends_and_is_scored_by_the_rules(spec: Spec) -> None:
    """A game ends after a launch empties a canal (the emptier scores the opponent's canal
    too) or after ``max_turns`` turns (score piles only); the loser starts the next."""
    table = make_table(spec)
    turns = 0
    games: list[DealScored] = []
    starters: list[int] = []
    for step in play_match(table, random.Random(spec.rng_seed)):
        for event, before, after in fold(step.before, step.events):
            assert_event_follows_rules(event, before, after)
            if isinstance(event, DealStarted):
                starters.append(event.starter)
                turns = 0
            elif isinstance(event, RaftLaunched):
                turns += 1
                if len(event.cards) == 2:  # the last card of a two-card raft: automatic
                    assert step.events[step.events.index(event) + 1] == RaftCardTaken(
                        1 - event.seat, next(c for c in event.cards if c != event.kept)
                    )
            elif isinstance(event, DealScored):
                assert turns <= cap(spec)
                emptied = [s for s in (0, 1) if not before.canals[s]]
                if emptied:
                    assert event.emptied_by == emptied[0]
                else:
                    assert event.emptied_by is None and turns == cap(spec)
                piles = [len(p) for p in before.piles]
                assert event.scores == tuple(
                    piles[s] + (len(before.canals[1 - s]) if s == event.emptied_by else 0)
                    for s in (0, 1)
                )
                previous = games[-1].totals if games else (0, 0)
                assert event.totals == tuple(
                    a + b for a, b in zip(previous, event.scores, strict=True)
                )
                games.append(event)
    assert len(games) == spec.max_deals
    first = spec.first_player if spec.first_player is not None else spec.first_dealer
    assert starters[0] == first
    for k in range(1, len(starters)):
        a, b = games[k - 1].scores
        assert starters[k] == (1 - starters[k - 1] if a == b else (0 if a < b else 1))


# --- 4. hidden information ----------------------------------------------------------------


class Knowledge:
    """What each seat has seen in the game in progress, followed from the events alone.

    ``seen[v]``: cards seat ``v`` ever saw this game (its canal at the deal, every top of
    the opponent's quay, every card it loaded, every launched card). ``known[s]``: cards
    in seat ``s``'s canal that ``s`` loaded from its own quay, whose top faced the opponent.
    """

    def __init__(self) -> None:
        self.seen: list[set[str]] = [set(), set(), set()]  # seats 0, 1 and the public (2)
        self.known: list[set[str]] = [set(), set()]

    def update(self, event: Any, after: State) -> None:
        kind = type(event)
        if kind is DealStarted:
            self.seen = [set(event.canals[0]), set(event.canals[1]), set()]
            self.known = [set(), set()]
        elif kind is CargoLoaded:
            self.seen[event.seat].add(event.card)
            if event.from_ == "own":
                self.known[event.seat].add(event.card)
            else:
                self.known[event.seat].discard(event.card)
        elif kind is RaftLaunched:
            for v in range(3):
                self.seen[v].update(event.cards)
            self.known[event.seat] -= set(event.cards)
        for v in (0, 1):
            top = after.quays[1 - v][:1]
            self.seen[v].update(top)


def may_not_show(state: State, k: Knowledge, viewer: int | None) -> set[str]:
    """Cards the view of ``viewer`` must not show now (docs/rules/oh-quay.md, Hidden info):
    every quay card but the top of the opponent's quay, the opponent's canal but the cards
    it loaded from its own quay; of the public, every quay and canal card. The cards of the
    launch in progress are public."""
    if state.phase in ("waiting_for_deal", "finished"):
        return set()  # a scored game is public
    secret = {c for q in state.quays for c in q}
    if viewer is None:
        secret |= {c for canal in state.canals for c in canal}
    else:
        opponent = 1 - viewer
        secret -= set(state.quays[opponent][:1])
        secret |= set(state.canals[opponent]) - k.known[opponent]
    return secret - set(state.raft)


def _cards_in(value: Any, out: set[str]) -> None:
    """Every card id in a JSON value made of lists, dicts and scalars."""
    if isinstance(value, list | tuple):
        for v in value:
            _cards_in(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _cards_in(v, out)
    elif isinstance(value, str) and value in CARDS:
        out.add(value)


def view_cards(v: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    for key in ("hands", "canals", "quays", "score_piles", "launch", "legal_actions"):
        _cards_in(v[key], out)
    return out


def event_cards(event: Any) -> set[str]:
    out: set[str] = set()
    _cards_in(list(to_data(event).values()), out)
    return out


def assert_nothing_leaks(state: State, k: Knowledge, game_log: list[Any], whole_log: bool) -> None:
    """No view of ``state`` shows a card its viewer may not see now; with ``whole_log``,
    the game's log redacted for each viewer shows no card the viewer never saw."""
    opened = TableOpened.of(state.table)
    for viewer in (0, 1, None):
        v = g.view(state, viewer)
        shown = view_cards(v) & may_not_show(state, k, viewer)
        assert not shown, f"view of {viewer!r} in {state.phase} shows {sorted(shown)}"
        if viewer is not None and state.phase not in ("waiting_for_deal", "finished"):
            top = state.quays[viewer][:1]
            assert v["quays"][viewer]["top"] is None, "a seat never sees its own quay's top"
            assert v["canals"][viewer] == list(state.canals[viewer])
            opp = 1 - viewer
            assert v["quays"][opp]["top"] == (state.quays[opp][0] if state.quays[opp] else None)
            assert v["canals"][opp] == [
                c if c in k.known[opp] else None for c in state.canals[opp]
            ], "known cards of the opponent's canal are shown in place, and only those"
            assert not set(top) & view_cards(v) - set(state.raft)
        if not whole_log or state.phase in ("waiting_for_deal", "finished"):
            continue
        visible = g.visible_events([opened, *game_log], viewer)[1:]
        assert len(visible) == len(game_log)
        never_seen = CARDS - k.seen[2 if viewer is None else viewer]
        for event in visible:
            shown = event_cards(event) & never_seen
            assert not shown, f"{viewer!r} sees {sorted(shown)} in {event}"
            if isinstance(event, DealStarted | TableOpened):
                assert event.seed is None, "the seed is secret until the match ends"


@budget(80)
@given(spec=specs)
def test_no_view_shows_a_hidden_card(spec: Spec) -> None:
    knowledge = Knowledge()
    game_log: list[Any] = []
    sample = random.Random(spec.rng_seed ^ 0x1EAF)  # which logs to redact: the check is O(n)
    for step in play_match(make_table(spec), random.Random(spec.rng_seed)):
        for event, _before, after in fold(step.before, step.events):
            knowledge.update(event, after)
            if isinstance(event, DealStarted):
                game_log = []
            game_log.append(event)
        assert_nothing_leaks(step.after, knowledge, game_log, sample.random() < 0.1)
    assert g.visible_events([TableOpened.of(step.after.table), *game_log], 0)[0].seed is not None


# --- 5. legal actions are accepted, others refused -----------------------------------------


Refusal = tuple[Any, frozenset[str]]


def _codes(*codes: str) -> frozenset[str]:
    return frozenset(codes)


def refused_in_turn(state: State, rng: random.Random) -> list[Refusal]:
    """Refusals while ``state.player`` loads or launches, or the opponent takes."""
    player, other = state.player, 1 - state.player
    canal = state.canals[player]
    n = len(canal)
    out: list[Refusal] = [
        (Load(2, "own", 0), _codes("unknown_seat", "wrong_phase")),
        (Deal(), _codes("wrong_phase")),
    ]
    if state.phase == "loading":
        full = "own" if state.quays[player] else "opponent"
        out += [
            (Load(other, "own", 0), _codes("not_your_turn")),
            (Load(player, "mine", 0), _codes("unknown_quay")),
            (Load(player, full, rng.choice([-1, n + 1, "0"])), _codes("invalid_position")),
            (Launch(player, 1), _codes("wrong_phase")),
            (Take(other, rng.choice(sorted(CARDS))), _codes("wrong_phase")),
        ]
        for source, quay in (("own", player), ("opponent", other)):
            if not state.quays[quay]:
                out.append((Load(player, source, 0), _codes("empty_quay")))
    elif state.phase == "launching":
        longest = max(a.count_ for a in g.legal_actions(state, player))
        out += [
            (Launch(other, 1), _codes("not_your_turn")),
            (Launch(player, rng.choice([0, n + 1, True])), _codes("invalid_count")),
            (Launch(player, 1, canal[0]), _codes("invalid_keep")),
            (Load(player, "own", 0), _codes("wrong_phase")),
        ]
        if longest < n:
            out.append((Launch(player, longest + 1, canal[0]), _codes("not_a_raft")))
        if longest >= 2:
            outside = rng.choice(sorted(CARDS - set(canal[:longest])))
            out += [
                (Launch(player, longest), _codes("keep_required")),
                (Launch(player, longest, outside), _codes("card_not_in_raft")),
                (Launch(player, longest, "the-fool"), _codes("unknown_card")),
            ]
    elif state.phase == "taking":
        outside = rng.choice(sorted(CARDS - set(state.raft)))
        out += [
            (Take(player, state.raft[0]), _codes("not_your_turn")),
            (Take(other, state.kept), _codes("card_not_in_raft")),
            (Take(other, outside), _codes("card_not_in_raft")),
            (Take(other, "joker"), _codes("unknown_card")),
            (Load(player, "own", 0), _codes("wrong_phase")),
        ]
    return out


def refused_actions(state: State, rng: random.Random) -> list[Refusal]:
    """Actions the rules refuse in ``state``, with the codes that say why."""
    if state.phase == "finished":
        return [(a, _codes("match_finished")) for a in (Deal(), Load(0, "own", 0), Take(1, "sea"))]
    if state.phase == "waiting_for_deal":
        return [
            (Deal(quays=(("sea",),), canals=()), _codes("invalid_deal")),
            (Load(state.starter, "own", 0), _codes("wrong_phase")),
            (Launch(state.starter, 1), _codes("wrong_phase")),
        ]
    return refused_in_turn(state, rng)


def assert_refused(state: State, action: Any, codes: frozenset[str]) -> None:
    before = repr(state)
    with pytest.raises(RuleViolation) as refused:
        g.decide(state, action)
    code = refused.value.code
    assert code in codes, f"{action} in {state.phase}: {code} ({refused.value.message})"
    assert code in DOCUMENTED_CODES
    assert refused.value.message
    assert repr(state) == before, "a refused action changed the state"


@budget(80)
@given(spec=specs)
def test_legal_actions_are_accepted_and_others_refused(spec: Spec) -> None:
    rng = random.Random(spec.rng_seed ^ 0x5EED)  # the checks' own draws
    last = None
    for step in play_match(make_table(spec), random.Random(spec.rng_seed)):
        state = step.before
        acting = set(g.to_act(state))
        for seat in (0, 1):
            legal = g.legal_actions(state, seat)
            assert (len(legal) > 0) == (seat in acting), f"seat {seat} in {state.phase}"
            assert len(set(legal)) == len(legal), "no action is listed twice"
            for action in legal:
                assert g.parse(json.loads(json.dumps(g.body(action)))) == action
                assert g.decide(state, action), f"{action} caused no event"
        for action, codes in refused_actions(state, rng):
            assert_refused(state, action, codes)
        last = step.after
    assert last is not None and last.phase == "finished"
    for action, codes in refused_actions(last, rng):
        assert_refused(last, action, codes)
    assert g.to_act(last) == () and not g.legal_actions(last, 0) and not g.legal_actions(last, 1)


# --- 6. determinism and the match's end -------------------------------------------------------


@budget(150)
@given(spec=specs)
def test_same_seed_and_choices_give_the_same_log(spec: Spec) -> None:
    table = make_table(spec)
    final, log = run(table, random.Random(spec.rng_seed))
    deals = [e for e in log if isinstance(e, DealStarted)]
    for k, started in enumerate(deals, start=1):
        assert started.deal == k and started.seed == f"{spec.seed}/{k}"
        deck = shuffle(sorted(CARDS, key=g.DECK.index), started.seed)
        s, o = started.starter, 1 - started.starter
        assert started.quays[s] == tuple(deck[0:9]) and started.canals[s] == tuple(deck[9:18])
        assert started.quays[o] == tuple(deck[18:27]) and started.canals[o] == tuple(deck[27:])
    end = log[-1]
    assert isinstance(end, MatchEnded) and isinstance(log[-2], DealScored)
    assert sum(isinstance(e, MatchEnded) for e in log) == 1
    assert end.totals == log[-2].totals == final.totals
    assert end.ranking == tuple(1 + sum(t > x for t in end.totals) for x in end.totals)
    assert final.phase == "finished" and final.ranking == end.ranking
    assert g.view(final, ORGANISER)["status"] == "finished"
