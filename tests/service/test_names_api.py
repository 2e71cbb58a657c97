"""Names through the JSON API (``domain.names``): stored in their normal form, refused when
they show nothing or look like a name already at the table, in the tournament or among the
registered players."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.helpers import ADMIN_TOKEN

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
CYRILLIC_ANN = "\u0410nn"


def post(client: FlaskClient, path: str, body: dict) -> tuple[int, dict]:
    response = client.post(path, json=body, headers=ORGANISER)
    return response.status_code, response.get_json()


def test_registered_players_may_not_look_alike(client: FlaskClient) -> None:
    status, ann = post(client, "/players", {"name": "  Ann  "})
    assert status == 201 and ann["name"] == "Ann"
    for name in (CYRILLIC_ANN, "ANN", "\uff21nn"):
        status, problem = post(client, "/players", {"name": name})
        assert (status, problem["code"]) == (422, "confusable_name"), name
        assert "'Ann'" in problem["detail"]
    assert post(client, "/players", {"name": "Anne"})[0] == 201


def test_names_that_show_nothing_are_refused(client: FlaskClient) -> None:
    for name, code in (("\u200b", "validation_error"), ("\u3164", "validation_error"),
                       ("Ann\u202e", "validation_error"), ("\U000e0020", "invalid_name"),
                       ("\u0301", "invalid_name"), ("\ufdfa" * 10, "invalid_name")):  # fmt: skip
        status, problem = post(client, "/players", {"name": name})
        assert (status, problem["code"]) == (422, code), (name, problem)


def test_seats_at_one_table_may_not_look_alike(client: FlaskClient) -> None:
    _, player = post(client, "/players", {"name": "Bo"})
    seats = [{"name": "Ann"}, {"player_id": player["id"]}, {"name": "B0"}]
    status, problem = post(client, "/tables", {"game": "bestia", "seats": seats})
    assert (status, problem["code"]) == (422, "confusable_name")
    seats[2] = {"name": "Cy"}
    assert post(client, "/tables", {"game": "bestia", "seats": seats})[0] == 201


def test_entries_of_one_tournament_may_not_look_alike(client: FlaskClient) -> None:
    body = {"name": "Club", "game": "oh-quay", "table_size": 2}
    _, tournament = post(client, "/tournaments", body)
    path = f"/tournaments/{tournament['id']}/entries"
    assert post(client, path, {"name": "Ann"})[0] == 201
    status, problem = post(client, path, {"name": CYRILLIC_ANN})
    assert (status, problem["code"]) == (422, "confusable_name")
    status, problem = post(client, "/tournaments", {**body, "name": "\u2800"})
    assert (status, problem["code"]) == (422, "validation_error")
