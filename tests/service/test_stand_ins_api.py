"""Seats taken over through the API (docs/api.md, "Seats taken over"): the organiser hands
an absent person's seat to a bot and back; the log records it, the bots play the seat, the
person's token only looks, and the seat still counts for its person in the standings.

The app runs its jobs eagerly: a bot left to move plays inside the request that woke it.
"""

from __future__ import annotations

import json
import random
from typing import Any

from flask.testing import FlaskClient

from tests.helpers import ORGANISER, OpenTable, assert_problem, bearer, export_of, open_table
from tests.service.tournament_play import enter, new_tournament, seat_round

Json = dict[str, Any]
LEFT_EARLY = {"bot": "random", "reason": "left early"}


def take_over(client: FlaskClient, table: str, seat: int, body: Json = LEFT_EARLY) -> Any:
    return client.post(f"/tables/{table}/seats/{seat}/bot", json=body, headers=ORGANISER)


def hand_back(client: FlaskClient, table: str, seat: int) -> Any:
    return client.delete(f"/tables/{table}/seats/{seat}/bot", headers=ORGANISER)


def state(client: FlaskClient, table: OpenTable, seat: int) -> Json:
    response = client.get(f"/tables/{table.id}/state", headers=table.seat(seat))
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def recorded_by(client: FlaskClient, table: str) -> list[tuple[str, str, Json]]:
    """Each event of the organiser's export after the opening: (type, who, data)."""
    lines = [json.loads(line) for line in export_of(client, table).splitlines()[2:]]
    return [(line["type"], line["by"], line["data"]) for line in lines]


def test_a_seat_handed_to_a_bot_is_played_by_it_and_refused_to_its_person(
    client: FlaskClient,
) -> None:
    table = open_table(client)  # Ann, Bo, Cy, Di; Ann deals
    dealt = client.post(f"/tables/{table.id}/actions", json={"type": "deal"}, headers=table.seat(0))
    assert dealt.status_code == 201
    assert 1 in state(client, table, 1)["to_act"]  # Bo is to prepare

    taken = take_over(client, table.id, 1, {"bot": "heuristic", "reason": "left early"})
    assert taken.status_code == 201, taken.get_json()
    version = taken.get_json()["version"]
    assert taken.get_json() == {"table": table.id, "seat": 1, "bot": "heuristic",
                                "reason": "left early", "version": version}  # fmt: skip
    # the takeover's commit woke the bots: the heuristic bot prepared Bo's seat at once
    bo = state(client, table, 1)  # Bo's token still looks at the seat
    assert 1 not in bo["to_act"] and bo["version"] > version
    (takeover, first, *_) = recorded_by(client, table.id)[1:]
    assert takeover == ("SeatTakenOver", "organiser",
                        {"seat": 1, "bot": "heuristic", "reason": "left early"})  # fmt: skip
    assert first[1] == "bot heuristic seat 1" and first[2]["seat"] == 1

    refused = client.post(f"/tables/{table.id}/actions", json={"type": "play", "seat": 1,
                          "card": 1}, headers=table.seat(1))  # fmt: skip
    problem = assert_problem(refused, 409, "seat_taken_over")
    assert "heuristic bot" in problem["detail"] and "organiser" in problem["detail"]
    assert client.get(f"/tables/{table.id}").get_json()["version"] == bo["version"]

    # everyone sees the takeover in the log, as it is
    for headers in ({}, table.seat(0), table.seat(1), ORGANISER):
        events = client.get(f"/tables/{table.id}/events", headers=headers).get_json()["events"]
        shown = [e for e in events if e["type"] == "SeatTakenOver"]
        assert [e["data"] for e in shown] == [takeover[2]]


def test_a_seat_handed_back_is_its_persons_again(client: FlaskClient) -> None:
    table = open_table(client)
    assert take_over(client, table.id, 1).status_code == 201
    discard = {"type": "discard", "seat": 1, "card": 5}
    assert_problem(
        client.post(f"/tables/{table.id}/actions", json=discard, headers=table.seat(1)),
        409,
        "seat_taken_over",
    )
    back = hand_back(client, table.id, 1)
    assert back.status_code == 200, back.get_json()
    assert back.get_json() == {"table": table.id, "seat": 1, "bot": None, "reason": None,
                               "version": 3}  # fmt: skip
    dealt = client.post(f"/tables/{table.id}/actions", json={"type": "deal"}, headers=table.seat(0))
    assert dealt.status_code == 201
    bo = state(client, table, 1)
    assert 1 in bo["to_act"]  # no bot moved for Bo: he acts himself
    acted = client.post(
        f"/tables/{table.id}/actions", json=bo["legal_actions"][0], headers=table.seat(1)
    )
    assert acted.status_code == 201, acted.get_json()
    kinds = [(kind, by) for kind, by, _ in recorded_by(client, table.id)]
    assert kinds[:2] == [("SeatTakenOver", "organiser"), ("SeatReturned", "organiser")]
    assert not [by for _, by in kinds if by.startswith("bot")]
    assert kinds[-1][1] == "seat 1"


def test_each_refusal_has_its_status_and_code(client: FlaskClient) -> None:
    table = open_table(client, seats=[{"name": "Ann"}, {"bot": "random"}, {"name": "Cy"}])
    url = f"/tables/{table.id}/seats"
    assert_problem(client.post(f"{url}/0/bot", json=LEFT_EARLY), 401, "unauthorized")
    assert_problem(
        client.post(f"{url}/0/bot", json=LEFT_EARLY, headers=table.seat(0)), 403, "forbidden"
    )
    assert_problem(client.delete(f"{url}/0/bot", headers=table.seat(2)), 403, "forbidden")
    assert_problem(take_over(client, "0" * 32, 0), 404, "not_found")
    assert_problem(hand_back(client, "0" * 32, 0), 404, "not_found")
    assert_problem(take_over(client, table.id, 3), 422, "unknown_seat")
    assert_problem(hand_back(client, table.id, 3), 422, "unknown_seat")
    assert_problem(take_over(client, table.id, 1), 422, "bot_seat")
    assert_problem(hand_back(client, table.id, 0), 422, "not_taken_over")
    for body, field in [
        ({"bot": "genius", "reason": "gone"}, "bot"),
        ({"bot": "random"}, "reason"),
        ({"bot": "random", "reason": "   "}, "reason"),
        ({"bot": "random", "reason": "x" * 501}, "reason"),
        ({"reason": "gone"}, "bot"),
        ({**LEFT_EARLY, "seat": 0}, "seat"),
    ]:
        problem = assert_problem(take_over(client, table.id, 0, body), 422, "validation_error")
        assert field in problem["errors"], problem
    assert take_over(client, table.id, 0).status_code == 201
    assert_problem(take_over(client, table.id, 0), 422, "already_taken_over")
    kinds = [kind for kind, _, _ in recorded_by(client, table.id)]
    assert kinds.count("SeatTakenOver") == 1 and "SeatReturned" not in kinds


def test_a_finished_table_takes_neither(client: FlaskClient) -> None:
    two_bots = [{"name": "Ann"}, {"bot": "random"}]
    table = open_table(client, "oh-quay", seats=two_bots, rules={"max_turns": 4})
    ann = state(client, table, 0)
    while ann["status"] != "finished":  # Ann plays her first legal move each time
        client.post(f"/tables/{table.id}/actions", json=ann["legal_actions"][0],
                    headers=table.seat(0))  # fmt: skip
        ann = state(client, table, 0)
    assert_problem(take_over(client, table.id, 0), 409, "match_finished")
    assert_problem(hand_back(client, table.id, 0), 409, "match_finished")


def test_the_standings_count_a_seat_a_bot_played_for_its_person(client: FlaskClient) -> None:
    """Bo and Cy leave; their seats, played by bots, still earn their places for them,
    and their personal links may look but not act."""
    tournament = new_tournament(client, table_size=3, rounds=1)
    entries = {e["name"]: e for e in enter(client, tournament, "Ann", "Bo", "Cy")}
    (seated,) = seat_round(client, tournament)["tables"]
    table = seated["id"]
    seat_of = {s["name"]: s["seat"] for s in seated["seats"]}
    ann = bearer(entries["Ann"]["token"])
    bo = bearer(entries["Bo"]["token"])
    for name in ("Bo", "Cy"):
        assert take_over(client, table, seat_of[name]).status_code == 201
    # Bo's personal link acts as his seat's token: it looks, but acts no more
    assert client.get(f"/tables/{table}/state", headers=bo).status_code == 200
    refused = client.post(f"/tables/{table}/actions", json={"type": "deal"}, headers=bo)
    assert_problem(refused, 409, "seat_taken_over")
    rng = random.Random(5)
    while (now := client.get(f"/tables/{table}/state", headers=ann).get_json())["status"] != (
        "finished"
    ):
        assert now["legal_actions"], now  # the bots never leave Ann waiting on their seats
        acted = client.post(f"/tables/{table}/actions", json=rng.choice(now["legal_actions"]),
                            headers=ann)  # fmt: skip
        assert acted.status_code == 201, acted.get_json()
    assert client.get(f"/tables/{table}/state", headers=bo).status_code == 200
    assert_problem(hand_back(client, table, seat_of["Bo"]), 409, "match_finished")
    ranking = client.get(f"/tables/{table}").get_json()["ranking"]
    rows = client.get(f"/tournaments/{tournament}/standings").get_json()["rows"]
    assert {r["player"] for r in rows} == {"Ann", "Bo", "Cy"}
    assert all(r["tables"] == 1 for r in rows)
    by_place = {r["player"]: r["match_points"] for r in rows}
    best = [name for name, seat in seat_of.items() if ranking[seat] == 1]
    assert all(by_place[name] == max(by_place.values()) for name in best)
    assert sum(by_place.values()) == 3  # 2 + 1 + 0 among three people: no bot took any
    by = {who for _, who, _ in recorded_by(client, table)}
    assert {f"bot random seat {seat_of['Bo']}", f"bot random seat {seat_of['Cy']}"} <= by
