"""Where `openapi.yaml` and the server once disagreed (issue 12, finding 8), each value is
judged the same by the spec (validated as JSON Schema, with ECMAScript regex semantics) and
by the server (a 422 `validation_error` or not). `test_contract.py` fuzzes the rest."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient

from service.web.openapi import render_spec
from tests.factories import player_body, table_body
from tests.helpers import ADMIN_TOKEN

ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
def spec_allows(app: Flask) -> Any:
    """Whether the spec's component `name` allows `body`."""
    components = yaml.safe_load(render_spec(app))["components"]

    def allows(name: str, body: Any) -> bool:
        schema = {"$ref": f"#/components/schemas/{name}", "components": components}
        return bool(jsonschema_rs.validator_for(schema).is_valid(body))

    return allows


def server_allows(response: Any) -> bool:
    """Not refused as malformed: a rule's refusal (`unknown_player` …) is the game's say."""
    return not (response.status_code == 422 and response.get_json()["code"] == "validation_error")


NAMES = {
    "plain": ("Ann", True),
    "accents and quotes": ("Zoë O'Brien", True),
    "spaces around": (" Eve ", True),  # " Bo " is Bo, already at the table below
    "an emoji": ("\U0001f0cf", True),
    "no-break space inside": ("Cy\u00a0Di", True),
    "empty": ("", False),
    "a space": (" ", False),
    "ideographic space": ("\u3000", False),
    "byte order mark": ("\ufeff", False),
    "file separator (Python's whitespace, not ECMAScript's)": ("\u001c", False),
    "trailing newline (Python's `$` would allow it)": ("Ann\n", False),
    "C1 control": ("A\u0085B", False),
    "NUL": ("A\u0000", False),
    "81 characters": ("x" * 81, False),
}


@pytest.mark.parametrize(("name", "valid"), NAMES.values(), ids=NAMES.keys())
def test_a_name_is_printable_text_to_the_spec_and_to_the_server(
    client: FlaskClient, spec_allows: Any, name: str, valid: bool
) -> None:
    assert spec_allows("PlayerCreate", {"name": name}) is valid
    assert spec_allows("Seat", {"name": name}) is valid
    registered = client.post("/players", json=player_body(name=name), headers=ORGANISER)
    assert registered.status_code == (201 if valid else 422), registered.get_json()
    seats = [{"name": name}, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di"}]
    opened = client.post("/tables", json=table_body(seats=seats), headers=ORGANISER)
    assert opened.status_code == (201 if valid else 422), opened.get_json()


SEEDS = {
    "text": ("club-night-7", True),
    "an integer": (7, True),
    "the least 64-bit integer": (-(2**63), True),
    "the greatest 64-bit integer": (2**63 - 1, True),
    "past 64 bits": (2**63, False),
    "below 64 bits": (-(2**63) - 1, False),
    "empty text": ("", False),
    "201 characters": ("s" * 201, False),
    "a fraction": (1.5, False),
    "a boolean": (True, False),
}


@pytest.mark.parametrize(("seed", "valid"), SEEDS.values(), ids=SEEDS.keys())
def test_a_seed_is_text_or_a_64_bit_integer_to_the_spec_and_to_the_server(
    client: FlaskClient, spec_allows: Any, seed: Any, valid: bool
) -> None:
    """The finding: the server took integer seeds that the spec called strings."""
    body = table_body(seed=seed)
    assert spec_allows("TableCreate", body) is valid
    response = client.post("/tables", json=body, headers=ORGANISER)
    assert response.status_code == (201 if valid else 422), response.get_json()


SEATS = {
    "a name": ({"name": "Ann"}, True),
    "a bot": ({"bot": "random"}, True),
    "a player": ({"player_id": "0" * 32}, True),
    "a player under a name": ({"name": "Ann", "player_id": "0" * 32}, True),
    "nothing": ({}, False),
    "a bot with a name": ({"bot": "random", "name": "Ann"}, False),
    "a bot for a player": ({"bot": "random", "player_id": "0" * 32}, False),
    "all three": ({"bot": "random", "name": "Ann", "player_id": "0" * 32}, False),
}


@pytest.mark.parametrize(("seat", "valid"), SEATS.values(), ids=SEATS.keys())
def test_a_seat_is_a_bot_alone_or_a_person_to_the_spec_and_to_the_server(
    client: FlaskClient, spec_allows: Any, seat: dict[str, str], valid: bool
) -> None:
    body = table_body(seats=[seat, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di"}])
    assert spec_allows("TableCreate", body) is valid
    assert server_allows(client.post("/tables", json=body, headers=ORGANISER)) is valid


ENTRIES = {
    "a guest": ({"name": "Ann"}, True),
    "a player": ({"player_id": "0" * 32}, True),
    "both": ({"name": "Ann", "player_id": "0" * 32}, False),
    "neither": ({}, False),
}


@pytest.mark.parametrize(("entry", "valid"), ENTRIES.values(), ids=ENTRIES.keys())
def test_an_entry_is_a_guest_or_a_player_to_the_spec_and_to_the_server(
    client: FlaskClient, spec_allows: Any, entry: dict[str, str], valid: bool
) -> None:
    tournament = client.post(
        "/tournaments",
        json={"name": "Club night", "game": "bottle-imp", "table_size": 4},
        headers=ORGANISER,
    ).get_json()
    assert spec_allows("EntryCreate", entry) is valid
    url = f"/tournaments/{tournament['id']}/entries"
    assert server_allows(client.post(url, json=entry, headers=ORGANISER)) is valid


PLAYER_IDS = {
    "as issued": ("0" * 32, True),
    "upper case": ("F" * 32, False),
    "short": ("abc", False),
    "with a NUL (PostgreSQL refuses it: once a 500)": ("0" * 31 + "\u0000", False),
}


@pytest.mark.parametrize(("player_id", "valid"), PLAYER_IDS.values(), ids=PLAYER_IDS.keys())
def test_a_player_id_is_32_hex_digits_to_the_spec_and_to_the_server(
    client: FlaskClient, spec_allows: Any, player_id: str, valid: bool
) -> None:
    """A well-formed id nobody has is the server's refusal (`unknown_player`), not the spec's."""
    assert spec_allows("Seat", {"player_id": player_id}) is valid
    assert spec_allows("EntryCreate", {"player_id": player_id}) is valid
    body = table_body(seats=[{"player_id": player_id}, {"name": "Bo"}, {"name": "Cy"}])
    response = client.post("/tables", json=body, headers=ORGANISER)
    expected = "unknown_player" if valid else "validation_error"
    assert (response.status_code, response.get_json()["code"]) == (422, expected)


@pytest.mark.parametrize("option", ["", "o" * 41])
def test_an_option_name_no_game_has_is_the_rules_refusal_not_a_malformed_body(
    client: FlaskClient, spec_allows: Any, option: str
) -> None:
    """OpenAPI 3.0 cannot bound an object's keys: the spec allows any name, so the server
    refuses a name too short or too long for any game as the games refuse unknown ones."""
    body = table_body(rules={option: True})
    assert spec_allows("TableCreate", body)
    response = client.post("/tables", json=body, headers=ORGANISER)
    assert (response.status_code, response.get_json()["code"]) == (422, "unknown_option")


def test_one_seat_is_malformed_as_no_game_plays_alone(
    client: FlaskClient, spec_allows: Any
) -> None:
    body = table_body(seats=[{"name": "Ann"}])
    assert not spec_allows("TableCreate", body)
    assert not server_allows(client.post("/tables", json=body, headers=ORGANISER))
