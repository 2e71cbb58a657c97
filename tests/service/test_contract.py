"""Fuzz every documented route from the served `openapi.yaml`: responses must match the spec,
no request may cause a server error, what the spec forbids is refused and what it allows is
accepted (only a game's rules may refuse a well-formed request, see `RULES_DECIDE`).

`make test` runs a fixed, derandomized sample on SQLite: the same requests every run, so the
test cannot be flaky (about a minute here). `make fuzz` sets ``CARDLEDGER_FUZZ_EXAMPLES=N``: N
requests per operation drawn from the seed it prints (``pytest --hypothesis-seed=<seed>``
repeats a run), on SQLite and on PostgreSQL, which refuses text SQLite stores (a NUL).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, settings
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from service.storage.db import get_database
from tests.helpers import ADMIN_TOKEN, make_test_app

#: Operations where a game's rules, or what is already recorded, may refuse a request the spec
#: allows: which variants, rule options, seat counts and table sizes a game takes, whether an
#: action is legal now, whether a log verifies, a player unknown or already entered, whether a
#: table has that seat and a person sits there (a new seat token, a seat handed to a bot and
#: back, the match not over), whether a name looks like
#: one already there or breaks what the name rule says beyond its pattern (`confusable_name`,
#: `invalid_name`, ``domain.names``). There, and
#: only there, a 422 with such a `code` is no disagreement; a `validation_error` always is.
RULES_DECIDE = {
    "POST /players",
    "POST /simulations",
    "POST /tables",
    "POST /tables/import",
    "POST /tables/{table_id}/actions",
    "POST /tables/{table_id}/seats/{seat}/bot",
    "DELETE /tables/{table_id}/seats/{seat}/bot",
    "POST /tables/{table_id}/seats/{seat}/token",
    "POST /tournaments",
    "POST /tournaments/{tournament_id}/entries",
}
FUZZ_EXAMPLES = int(os.environ.get("CARDLEDGER_FUZZ_EXAMPLES") or 0)
#: Examples per operation in `make test`, besides schemathesis' boundary (coverage) cases.
EXAMPLES = 40
ORGANISER = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
DATABASES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)]


@schemathesis.serializer("application/x-ndjson")
def _json_lines(_ctx: object, value: object) -> bytes:
    """Exports are JSON Lines; the fuzzer sends whatever string it drew, as text."""
    return value.encode() if isinstance(value, str) else str(value).encode()


@pytest.fixture(params=DATABASES if FUZZ_EXAMPLES else DATABASES[:1])
def app(request: pytest.FixtureRequest, sqlite_url: str) -> Iterator[Flask]:
    """SQLite; when fuzzing, PostgreSQL too (skipped locally when it is absent)."""
    url = sqlite_url if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    app = make_test_app(url)
    app.config["LIVE_LIFETIME_SECONDS"] = 0  # an event stream's first events, then its end
    yield app
    get_database(app).engine.dispose()


@pytest.fixture
def api_schema(app: Flask) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_wsgi("/openapi.yaml", app)


@pytest.fixture
def api_schema_on_resources(app: Flask) -> schemathesis.BaseSchema:
    """The spec with every id in a path pinned to a player, table (dealt), tournament (four
    entries) and job that exist, so requests get past the 404 to their bodies and queries."""
    client = app.test_client()

    def post(path: str, body: dict[str, Any]) -> Any:
        response = client.post(path, json=body, headers=ORGANISER)
        assert response.status_code in {201, 202}, response.get_json()
        return response.get_json()

    player = post("/players", {"name": "Ann"})["id"]
    seats = [{"player_id": player}, {"name": "Bo"}, {"bot": "random"}, {"name": "Di"}]
    table = post("/tables", {"game": "bottle-imp", "seats": seats, "seed": 7})["id"]
    post(f"/tables/{table}/actions", {"type": "deal"})
    tournament = post("/tournaments", {"name": "Club", "game": "bottle-imp", "table_size": 4})
    for name in ("Ann", "Bo", "Cy", "Di"):
        post(f"/tournaments/{tournament['id']}/entries", {"name": name})
    simulation = {"game": "oh-quay", "seats": ["random"] * 2, "matches": 1, "seed": 1}
    job = post("/simulations", {**simulation, "max_deals": 1})["job"]
    loaded = schemathesis.openapi.from_wsgi("/openapi.yaml", app)
    ids = {"player_id": player, "table_id": table, "tournament_id": tournament["id"], "job_id": job}
    loaded.config.update(parameters={f"path.{name}": value for name, value in ids.items()})
    return loaded


schema = schemathesis.pytest.from_fixture("api_schema")
on_resources = schemathesis.pytest.from_fixture("api_schema_on_resources").include(path_regex=r"\{")
#: `make test`: the same sample every run; `make fuzz`: FUZZ_EXAMPLES from the given seed.
fuzzing = settings(
    max_examples=FUZZ_EXAMPLES or EXAMPLES,
    derandomize=not FUZZ_EXAMPLES,
    deadline=None,
    # a busy 2-core machine; names (a pattern) and seats (anyOf) are partly drawn by filtering
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    database=None if not FUZZ_EXAMPLES else settings.default.database,
)


@fuzzing
@schema.parametrize()
def test_api_matches_its_contract(case: schemathesis.Case) -> None:
    """As the organiser, who may call everything; ids in paths are drawn (mostly 404)."""
    call_and_check(case)


@fuzzing
@on_resources.parametrize()
def test_api_matches_its_contract_on_existing_resources(case: schemathesis.Case) -> None:
    """The routes with an id in their path, at resources that exist. A boundary case drawn
    with a bad id had it replaced by the pinned one: it no longer breaks the spec there."""
    path = case.meta.components.get(ParameterLocation.PATH) if case.meta else None
    call_and_check(case, [negative_data_rejection] if path and path.mode.is_negative else [])


def call_and_check(case: schemathesis.Case, excluded: list[Any] | None = None) -> None:
    response = case.call(headers=ORGANISER)
    excluded = list(excluded or [])
    if refused_by_the_rules(case, response):
        excluded.append(positive_data_acceptance)
    case.validate_response(
        response,
        headers=ORGANISER,
        excluded_checks=excluded,
        transport_kwargs={"headers": ORGANISER},
    )


def refused_by_the_rules(case: schemathesis.Case, response: schemathesis.Response) -> bool:
    """A 422 whose `code` names a rule (`unknown_variant`, `illegal_action` …), where rules
    decide; a 422 `validation_error` means the server refused what the spec allows."""
    if case.operation.label not in RULES_DECIDE or response.status_code != 422:
        return False
    return response.json().get("code") != "validation_error"


#: schemathesis leaves out the operation it read the spec from unless it is asked for by name.
spec_document = schema.include(operation_id="getOpenApi")


@spec_document.parametrize()
def test_the_served_spec_is_what_it_says(case: schemathesis.Case) -> None:
    """`GET /openapi.yaml` answers the YAML document its own entry describes (the response
    checks fail otherwise, as they did while the entry called it a string)."""
    case.call_and_validate()
