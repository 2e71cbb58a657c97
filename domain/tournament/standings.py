"""Match points and standings (``docs/rules/common.md``: tournaments apply their own tie-breaks).

Match points per table, by final place among the ranked players: with ``n`` ranked,
``n-1 … 0`` unless the tournament gives its own list; players sharing a place share
the points of the places they span equally. Bots and unranked seats (Lopaka) take no
points and push nobody down. Standings order: match points, total game score, the sum
of opponents' match points (Buchholz), head-to-head among those still equal; still
equal → the same rank ("1, 2, 2, 4"). An entry that withdrew before it played a table
or sat out a round has no result to rank: it is listed after everyone who has one, all
such entries sharing the rank after the last (``Row.unranked``), and it takes no part in
anyone's tie-breaks.

Points are counted in ``UNIT``ths so that shared places stay exact integers: a place
shared by up to eight players (the largest table) divides 840 evenly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

UNIT = 840  # lcm(1 … 8)


def units(points: float | int) -> int:
    """A number of match points in ``UNIT``ths (``1.5`` → 1260), rounded to the nearest."""
    return round(Fraction(str(points)) * UNIT)


def shown(value: int) -> int | float:
    """Units back as points: an int when whole, else rounded to 4 decimals (JSON and CSV
    print the same figure)."""
    whole, rest = divmod(value, UNIT)
    return whole if rest == 0 else round(value / UNIT, 4)


def default_points(ranked: int) -> tuple[int, ...]:
    """``n-1 … 0`` for ``n`` ranked players."""
    return tuple(range(ranked - 1, -1, -1))


def place_units(totals: Sequence[int], by_place: Sequence[int] | None = None) -> list[int]:
    """Match points (in units) of each ranked player from its total, higher first.

    A place shared by ``m`` players takes the mean of the ``m`` places it spans.
    """
    table = default_points(len(totals)) if by_place is None else by_place
    out = []
    for t in totals:
        above = sum(1 for o in totals if o > t)
        shared = sum(1 for o in totals if o == t)
        out.append(sum(table[above : above + shared]) * UNIT // shared)
    return out


def bye_units(table_size: int, by_place: Sequence[int] | None, bye_points: float | None) -> int:
    """What a bye is worth: the tournament's ``bye_points``, else the average match
    points of a full table (``(n-1)/2`` with the default points)."""
    if bye_points is not None:
        return units(bye_points)
    table = default_points(table_size) if by_place is None else by_place[:table_size]
    return sum(table) * UNIT // table_size


@dataclass(frozen=True, slots=True)
class Result:
    """A finished table as standings need it: entry per seat (``None``: bot), the final
    totals and the table's ranking (``None``: not ranked)."""

    seats: Sequence[int | None]
    totals: Sequence[int]
    ranking: Sequence[int | None]


def table_units(result: Result, by_place: Sequence[int] | None = None) -> dict[int, int]:
    """Match points (units) of each ranked entry at a finished table."""
    ranked = [
        (entry, result.totals[seat])
        for seat, entry in enumerate(result.seats)
        if entry is not None and result.ranking[seat] is not None
    ]
    earned = place_units([t for _, t in ranked], by_place)
    return {entry: pts for (entry, _), pts in zip(ranked, earned, strict=True)}


def unranked(withdrawn: bool, tables: int, byes: int) -> bool:
    """Withdrew before any result (no table played, no round sat out): nothing to rank."""
    return withdrawn and not tables and not byes


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the standings; points in units (``shown`` prints them)."""

    rank: int
    entry: int
    name: str
    player_id: str | None
    withdrawn: bool
    match_points: int
    score: int
    tables: int
    byes: int
    buchholz: int
    head_to_head: int | None  # None: not tied on the first three keys
    unranked: bool = False  # withdrew before any result: listed last, not ranked


@dataclass(frozen=True, slots=True)
class Standing:
    """An entry as the standings know it (name and flags come from the tournament)."""

    entry: int
    name: str
    player_id: str | None = None
    withdrawn: bool = False


def standings(
    entries: Iterable[Standing],
    results: Iterable[Result],
    byes: Iterable[int],
    *,
    bye_value: int,
    by_place: Sequence[int] | None = None,
) -> list[Row]:
    """The sorted standings from every finished table and every bye given."""
    people = {e.entry: e for e in entries}
    points = dict.fromkeys(people, 0)
    score = dict.fromkeys(people, 0)
    played = dict.fromkeys(people, 0)
    sat_out = dict.fromkeys(people, 0)
    met: dict[int, list[int]] = {e: [] for e in people}
    finished: list[tuple[dict[int, int], Result]] = []
    for result in results:
        earned = table_units(result, by_place)
        at_table = list(earned)
        for seat, entry in enumerate(result.seats):
            if entry in earned:
                points[entry] += earned[entry]
                score[entry] += result.totals[seat]
                played[entry] += 1
                met[entry].extend(o for o in at_table if o != entry)
        finished.append((earned, result))
    for entry in byes:
        points[entry] += bye_value
        sat_out[entry] += 1
    buchholz = {e: sum(points[o] for o in met[e]) for e in people}
    gone = {e for e, p in people.items() if unranked(p.withdrawn, played[e], sat_out[e])}
    ranked = [e for e in people if e not in gone]

    key = {e: (points[e], score[e], buchholz[e]) for e in ranked}
    tied = _tied_groups(key)
    h2h = _head_to_head(finished, key, tied)

    def order(e: int) -> tuple:
        if e in gone:
            return (1, 0, 0, 0, 0, people[e].name.casefold(), e)
        p, s, b = key[e]
        return (0, -p, -s, -b, -h2h.get(e, 0), people[e].name.casefold(), e)

    ordered = sorted(people, key=order)
    rows: list[Row] = []
    for i, e in enumerate(ordered):
        before = ordered[i - 1] if i else None
        if e in gone:
            same = before in gone
        else:
            same = before is not None and (key[e], h2h.get(e)) == (key[before], h2h.get(before))
        rank = rows[-1].rank if same else i + 1
        person = people[e]
        rows.append(
            Row(
                rank=rank,
                entry=e,
                name=person.name,
                player_id=person.player_id,
                withdrawn=person.withdrawn,
                match_points=points[e],
                score=score[e],
                tables=played[e],
                byes=sat_out[e],
                buchholz=buchholz[e],
                head_to_head=h2h.get(e),
                unranked=e in gone,
            )
        )
    return rows


def _tied_groups(key: Mapping[int, tuple]) -> dict[int, tuple]:
    """Entries sharing their (points, score, Buchholz) with someone else → that key."""
    count: dict[tuple, int] = {}
    for k in key.values():
        count[k] = count.get(k, 0) + 1
    return {e: k for e, k in key.items() if count[k] > 1}


def _head_to_head(
    finished: Iterable[tuple[dict[int, int], Result]],
    key: Mapping[int, tuple],
    tied: Mapping[int, tuple],
) -> dict[int, int]:
    """Among entries tied on the first three keys: +1 for each tied rival a player
    finished above at a shared table, -1 for each it finished below."""
    h2h = dict.fromkeys(tied, 0)
    for earned, result in finished:
        rivals = [
            (entry, result.totals[seat])
            for seat, entry in enumerate(result.seats)
            if entry in earned and entry in tied
        ]
        for i, (a, ta) in enumerate(rivals):
            for b, tb in rivals[i + 1 :]:
                if tied[a] != tied[b] or ta == tb:
                    continue
                better, worse = (a, b) if ta > tb else (b, a)
                h2h[better] += 1
                h2h[worse] -= 1
    return h2h
