"""Driving tournaments through the HTTP API, as a club would: create, enter, seat a round,
play every table by random legal actions, read the standings.

Also an independent reckoning of the standings from what the tables say (their final
totals and rankings) and how the rounds were seated, for tests to compare with."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from domain.games import SPECS
from tests.factories import player_body, tournament_body
from tests.helpers import ADMIN_TOKEN

Json = dict[str, Any]
ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}

#: A short tournament of every registered game: its default variant at the smallest table
#: it seats, a one-deal match with its quick options.
GAME_SETUPS: dict[str, Json] = {
    spec.id: {
        "game": spec.id,
        "table_size": min(spec.players[spec.default_variant]),
        "target_score": None,
        "max_deals": 1,
        "rules": dict(spec.quick_options),
    }
    for spec in SPECS.values()
}


def created(response: TestResponse, status: int = 201) -> Json:
    body: Json = response.get_json()
    assert response.status_code == status, body
    return body


def new_tournament(client: FlaskClient, **overrides: Any) -> str:
    body = tournament_body(**overrides)
    return str(created(client.post("/tournaments", json=body, headers=ORGANISER))["id"])


def enter(client: FlaskClient, tournament: str, *names: str) -> list[Json]:
    return [
        created(
            client.post(f"/tournaments/{tournament}/entries", json={"name": n}, headers=ORGANISER)
        )
        for n in names
    ]


def register(client: FlaskClient, name: str) -> str:
    return str(
        created(client.post("/players", json=player_body(name=name), headers=ORGANISER))["id"]
    )


def enter_player(client: FlaskClient, tournament: str, player_id: str) -> Json:
    body = {"player_id": player_id}
    return created(client.post(f"/tournaments/{tournament}/entries", json=body, headers=ORGANISER))


def seat_round(client: FlaskClient, tournament: str) -> Json:
    return created(client.post(f"/tournaments/{tournament}/rounds", headers=ORGANISER))


def play_table(client: FlaskClient, table: str, rng: random.Random) -> Json:
    """Random legal actions (the organiser acts for every seat, bots included) until the
    match ends; the table's summary. Each action is appended at the version it was chosen
    at, and the match takes some: a table found finished already is an error."""
    actions = 0
    while True:
        response = client.get(f"/tables/{table}/state", headers=ORGANISER)
        state = created(response, 200)
        if state["status"] == "finished":
            summary = created(client.get(f"/tables/{table}"), 200)
            assert actions > 0 and summary["version"] == state["version"] > actions, summary
            return summary
        action = rng.choice(state["legal_actions"])
        answer = created(client.post(f"/tables/{table}/actions", json=action, headers=ORGANISER))
        assert answer["version"] == state["version"] + len(answer["events"]) > state["version"]
        actions += 1


def play_round(client: FlaskClient, tournament: str, rng: random.Random) -> tuple[Json, list[Json]]:
    """Seat a round and play all its tables: (the round as seated, the tables' summaries)."""
    seated = seat_round(client, tournament)
    return seated, [play_table(client, t["id"], rng) for t in seated["tables"]]


def standings(client: FlaskClient, tournament: str) -> Json:
    return created(client.get(f"/tournaments/{tournament}/standings"), 200)


@dataclass
class Reckoning:
    """Standings reckoned by hand from the tables and byes (no tie-breaks)."""

    points: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    score: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    tables: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    byes: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    def table(self, seats: list[Json], summary: Json) -> None:
        """n ranked people (no bots, no Lopaka): n-1 … 0 by total, ties share the mean."""
        people = [
            (s["entry"], summary["totals"][s["seat"]])
            for s in seats
            if s["entry"] is not None and summary["ranking"][s["seat"]] is not None
        ]
        n = len(people)
        for entry, total in people:
            above = sum(1 for _, t in people if t > total)
            tied = sum(1 for _, t in people if t == total)
            self.points[entry] += sum(n - 1 - p for p in range(above, above + tied)) / tied
            self.score[entry] += total
            self.tables[entry] += 1

    def bye(self, entry: int, worth: float) -> None:
        self.points[entry] += worth
        self.byes[entry] += 1

    def round(self, seated: Json, summaries: list[Json], bye_worth: float) -> None:
        for table, summary in zip(seated["tables"], summaries, strict=True):
            self.table(table["seats"], summary)
        for bye in seated["byes"]:
            self.bye(bye["entry"], bye_worth)

    def matches(self, rows: list[Json]) -> None:
        """The API's rows agree with the reckoning, and are in order: one row per entry,
        every entry reckoned among them."""
        entries = [row["entry"] for row in rows]
        assert rows and len(set(entries)) == len(entries), entries
        assert set(self.tables) | set(self.byes) <= set(entries), entries
        for row in rows:
            entry = row["entry"]
            assert row["match_points"] == self.points[entry], row
            assert row["score"] == self.score[entry], row
            assert row["tables"] == self.tables[entry], row
            assert row["byes"] == self.byes[entry], row
        keys = [(r["match_points"], r["score"], r["tiebreaks"]["buchholz"]) for r in rows]
        assert keys == sorted(keys, reverse=True)
        assert rows[0]["rank"] == 1
        for place, (before, row) in enumerate(pairwise(rows), start=2):
            assert row["rank"] in (before["rank"], place)  # shared, or its own place
