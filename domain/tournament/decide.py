"""The tournament decider: commands in, events out, ``RuleViolation`` for what the
tournament's rules refuse (the service maps the codes to HTTP statuses).

Seating a round is two steps because its tables are streams of their own: ``plan_round``
decides who sits where (pure, from the seed), the service opens those tables, and
``round_seated`` records the round with their ids, all in one transaction.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any, NamedTuple

from domain.errors import RuleViolation
from domain.games import game
from domain.match import MatchRules
from domain.names import confusable, lookalike
from domain.shuffle import deal_key
from domain.table import SeatSpec, Table
from domain.tournament import pairing
from domain.tournament.events import (
    EntryAdded,
    EntryReturned,
    EntryWithdrawn,
    RoundSeated,
    TableFinished,
    TournamentCreated,
    TournamentFinished,
)
from domain.tournament.standings import Result, Row, Standing, bye_units, standings
from domain.tournament.state import Tournament

MAX_SEATS = 8  # the largest table any of our games seats (Bestia)


class AddEntry(NamedTuple):
    name: str
    player_id: str | None = None


class WithdrawEntry(NamedTuple):
    entry: int


class ReturnEntry(NamedTuple):
    """Undo a withdrawal: the entry is seated again from the next round."""

    entry: int


class FinishTable(NamedTuple):
    """A table's ``MatchEnded``, reported to the tournament that seated it."""

    table: str
    totals: tuple[int, ...]
    ranking: tuple[int | None, ...]


class FinishTournament(NamedTuple):
    pass


def table_sizes(game_id: str, variant: str, rules: Mapping[str, Any]) -> tuple[int, ...]:
    """The table sizes the game's engine accepts for this variant and rules: asked of the
    engine itself (``check_options`` and ``initial_state``), so a new game or variant
    needs no table here. The Bottle Imp: standard 3–4, lopaka and bright-house 2;
    Bestia 3–8; Oh Quay 2."""
    return tuple(n for n in range(2, MAX_SEATS + 1) if _refusal(game_id, variant, rules, n) is None)


def _probe(game_id: str, variant: str, rules: Mapping[str, Any], seats: int) -> None:
    rules_module = game(game_id)
    table = Table(
        game=game_id,
        variant=variant,
        seats=tuple(SeatSpec(name=f"probe {i}") for i in range(seats)),
        match=MatchRules(target_score=None, max_deals=1),
        seed="probe",
        options=dict(rules),
    )
    rules_module.check_options(table)
    rules_module.initial_state(table)


def _refusal(
    game_id: str, variant: str, rules: Mapping[str, Any], seats: int
) -> RuleViolation | None:
    try:
        _probe(game_id, variant, rules, seats)
    except RuleViolation as refused:
        return refused
    return None


def create(spec: Mapping[str, Any], salt: str | None = None) -> TournamentCreated:
    """Check a new tournament's settings against the game and record them, with the
    secret ``salt`` the service drew for it (``docs/rules/common.md``, "Deterministic
    shuffling", rule 1: never a client's)."""
    game_id = spec["game"]
    rules_module = game(game_id)  # unknown_game
    variant = spec.get("variant") or rules_module.DEFAULT_VARIANT
    rules = dict(spec.get("rules") or {})
    if "first_dealer" in rules:
        raise RuleViolation(
            "invalid_rules", "a tournament draws each table's first dealer from its seed"
        )
    size = spec["table_size"]
    refused = _refusal(game_id, variant, rules, size)
    if refused is not None:
        sizes = table_sizes(game_id, variant, rules)
        if not sizes:
            raise refused  # the variant or the rules themselves are refused
        raise RuleViolation(
            "invalid_table_size",
            f"{game_id} ({variant}) seats {' or '.join(map(str, sizes))} at a table, not {size}",
        )
    target, deals = spec.get("target_score"), spec.get("max_deals")
    if target is not None or deals is not None:
        MatchRules(target, deals)  # invalid_match
    if spec.get("pairing") not in pairing.PAIRINGS:
        raise RuleViolation("invalid_pairing", f"pairing is one of {', '.join(pairing.PAIRINGS)}")
    by_place = spec.get("match_points")
    if by_place is not None:
        by_place = tuple(by_place)
        if len(by_place) < size:
            raise RuleViolation(
                "invalid_match_points", f"match_points needs a value for each of {size} places"
            )
        if any(a < b for a, b in pairwise(by_place)):
            raise RuleViolation(
                "invalid_match_points", "match_points never grow from one place to the next"
            )
    rounds = spec.get("rounds")
    if rounds is not None and rounds < 1:
        raise RuleViolation("invalid_rounds", "a tournament plays at least one round")
    return TournamentCreated(
        name=spec["name"],
        game=game_id,
        variant=variant,
        table_size=size,
        pairing=spec["pairing"],
        seed=str(spec["seed"]),
        rounds=rounds,
        rules=rules,
        target_score=target,
        max_deals=deals,
        fill_with_bots=spec.get("fill_with_bots"),
        bye_points=spec.get("bye_points"),
        match_points=by_place,
        salt=salt,
        language=spec.get("language"),
    )


def _open(state: Tournament) -> None:
    if state.finished:
        raise RuleViolation("tournament_finished", "the tournament is finished")


def _same_name(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def decide(state: Tournament, command: Any) -> list[Any]:
    """The events a command causes."""
    if type(command) is AddEntry:
        _open(state)
        name = " ".join(command.name.split())
        if not name:
            raise RuleViolation("validation_error", "an entry needs a name")
        for e in state.entries.values():
            if _same_name(e.name, name) or (command.player_id and e.player_id == command.player_id):
                raise RuleViolation(
                    "duplicate_entry", f"{name!r} has already entered (entry {e.entry})"
                )
        clash = lookalike(name, [e.name for e in state.entries.values()])
        if clash is not None:  # a name that reads as another entry's (``domain.names``)
            raise confusable(name, clash, "in this tournament")
        return [EntryAdded(len(state.entries) + 1, name, command.player_id)]
    if type(command) is WithdrawEntry:
        entry = state.entries.get(command.entry)
        if entry is None:
            raise RuleViolation("unknown_entry", f"there is no entry {command.entry}")
        _open(state)
        if entry.withdrawn:
            raise RuleViolation("entry_withdrawn", f"entry {entry.entry} has already withdrawn")
        return [EntryWithdrawn(entry.entry)]
    if type(command) is ReturnEntry:
        entry = state.entries.get(command.entry)
        if entry is None:
            raise RuleViolation("unknown_entry", f"there is no entry {command.entry}")
        _open(state)
        if not entry.withdrawn:
            raise RuleViolation("entry_not_withdrawn", f"{entry.name} has not withdrawn")
        return [EntryReturned(entry.entry)]
    if type(command) is FinishTable:
        return _finish_table(state, command)
    if type(command) is FinishTournament:
        _open(state)
        if state.in_progress:
            raise RuleViolation("round_in_progress", "the current round is still being played")
        return [TournamentFinished(state.rounds_played)]
    raise TypeError(f"not a tournament command: {command!r}")


def _finish_table(state: Tournament, command: FinishTable) -> list[Any]:
    """Record a table's result; the last table of the last planned round ends it all."""
    seated = state.table(command.table)
    if seated is None:
        raise RuleViolation("unknown_table", f"table {command.table} is not in this tournament")
    played = state.rounds[seated.round - 1]
    if command.table in played.results:
        return []  # already recorded: a match ends once
    events: list[Any] = [
        TableFinished(command.table, seated.round, command.totals, command.ranking)
    ]
    last = len(played.results) + 1 == len(played.tables)
    planned = state.config.rounds
    if last and planned is not None and seated.round >= planned and not state.finished:
        events.append(TournamentFinished(seated.round))
    return events


def results(state: Tournament) -> list[Result]:
    """Every finished table, in the order played."""
    out = []
    for played in state.rounds:
        for seated in played.tables:
            done = played.results.get(seated.table)
            if done is not None:
                out.append(Result(seated.seats, done.totals, done.ranking))
    return out


def standings_of(state: Tournament) -> list[Row]:
    """The sorted standings rows of the tournament now."""
    config = state.config
    return standings(
        (Standing(e.entry, e.name, e.player_id, e.withdrawn) for e in state.entries.values()),
        results(state),
        (entry for played in state.rounds for entry in played.byes),
        bye_value=bye_units(config.table_size, config.match_points, config.bye_points),
        by_place=config.match_points,
    )


def plan_round(state: Tournament) -> pairing.Seating:
    """Who sits where in the next round (the service opens the tables)."""
    _open(state)
    if state.in_progress:
        raise RuleViolation("round_in_progress", "the current round has unfinished tables")
    config = state.config
    active = state.active()
    ranks: dict[int, int] = dict.fromkeys(active, 1)
    if config.pairing == "swiss":
        ranks = {row.entry: row.rank for row in standings_of(state) if not row.withdrawn}
    byes_had: dict[int, int] = {}
    for played in state.rounds:
        for entry in played.byes:
            byes_had[entry] = byes_had.get(entry, 0) + 1
    return pairing.seat(
        config.pairing,
        ranks,
        config.table_size,
        seed=deal_key(config.seed, config.salt),  # secret until the end, like the cards
        round_number=len(state.rounds) + 1,
        history=[[t.seats for t in played.tables] for played in state.rounds],
        byes_had=byes_had,
        fill_with_bots=config.fill_with_bots is not None,
        rounds=config.rounds,
    )


def table_specs(state: Tournament, seating: pairing.Seating) -> list[dict[str, Any]]:
    """``POST /tables`` bodies for a planned round: names (and players) at their seats,
    the first dealer drawn, and a deal seed derived from the tournament's (secret) deal key.
    Each table also draws its own salt when it is opened, like any table."""
    config = state.config
    number = len(state.rounds) + 1
    specs = []
    for t, (seats, dealer) in enumerate(
        zip(seating.tables, seating.first_dealers, strict=True), start=1
    ):
        specs.append(
            {
                "game": config.game,
                "variant": config.variant,
                "seats": [_seat(state, entry, config.fill_with_bots) for entry in seats],
                "target_score": config.target_score,
                "max_deals": config.max_deals,
                "seed": table_seed(deal_key(config.seed, config.salt), number, t),
                "rules": {**config.rules, "first_dealer": dealer},
            }
        )
    return specs


def table_seed(key: str, round_number: int, table: int) -> str:
    """A table's deal seed: SHA-256 of ``"{key}/round-{r}/table-{t}"``, hex, where ``key``
    is the tournament's deal key ``"{salt}:{seed}"`` (``shuffle.deal_key``; the bare seed
    in a tournament recorded before salts). Salted, so a guessable tournament seed does
    not give the tables' seeds away (``docs/rules/common.md``, "Deterministic shuffling", rule
    1). One-way, because a finished table reveals its seed: that must not reveal the
    tournament's key, or with it the deals of every table still to play. Once the
    tournament is finished and its seed and salt shown, anyone can recompute each table's
    seed and re-deal (with that table's own revealed salt)."""
    return hashlib.sha256(f"{key}/round-{round_number}/table-{table}".encode()).hexdigest()


def _seat(state: Tournament, entry: int | None, bot: str | None) -> dict[str, Any]:
    if entry is None:
        return {"bot": bot or "random"}
    person = state.entries[entry]
    return {"name": person.name, **({"player_id": person.player_id} if person.player_id else {})}


def round_seated(
    state: Tournament, seating: pairing.Seating, table_ids: Sequence[str]
) -> RoundSeated:
    """The planned round, recorded with the ids of the tables opened for it."""
    return RoundSeated(
        len(state.rounds) + 1,
        tuple(
            {"table": table_id, "seats": tuple(seats), "first_dealer": dealer}
            for table_id, seats, dealer in zip(
                table_ids, seating.tables, seating.first_dealers, strict=True
            )
        ),
        seating.byes,
    )
