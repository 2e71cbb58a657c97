"""The console against hostile and careless input, through the Flask client (issue 18,
item 7): every form fuzzed as the API is, each form sent twice doing its work once, and
the organiser's session that replaces the token in the cookie.

``tests/integration/test_console_served.py`` sends the same forms to a real server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select, update

from service.running.app import create_app
from service.storage.db import get_database
from service.storage.models import form_keys, organiser_sessions
from service.web.pages.session import ORGANISER_COOKIE
from tests.helpers import ADMIN_TOKEN, make_test_app
from tests.pages.console_forms import HOSTILE, Form, forms
from tests.pages.consoles import csrf_of, form_keys_in, log_in, new_form_key, post, session_of
from tests.pages.tables import ORGANISER, open_table, state

#: The longest address a console redirect may name.
MAX_LOCATION = 2100


def text(response: Any) -> str:
    return response.get_data(as_text=True)


def entries(client: FlaskClient, tournament: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = client.get(f"/tournaments/{tournament}").get_json()["entries"]
    return found


def new_tournament(client: FlaskClient, *names: str, size: int = 3) -> str:
    body = {"name": "Club", "game": "bottle-imp", "table_size": size, "max_deals": 1}
    created = client.post("/tournaments", json=body, headers=ORGANISER).get_json()
    for name in names:
        response = client.post(f"/tournaments/{created['id']}/entries", json={"name": name},
                               headers=ORGANISER)  # fmt: skip
        assert response.status_code == 201, response.get_json()
    return str(created["id"])


def assert_answered_well(response: Any, what: str) -> None:
    """No 5xx; a redirect names a short address of this site; a refusal is a page."""
    assert response.status_code < 500, (what, response.status_code, text(response)[:500])
    if response.status_code in (301, 302, 303):
        location = response.headers["Location"]
        assert location.startswith("/") and len(location) <= MAX_LOCATION, (what, location[:200])
    for name, value in response.headers.items():
        assert len(value) <= 4096, (what, name, len(value))


# --- fuzzing every form ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FlaskClient, dict]]:
    """One app for the module, the organiser logged in, a table and a tournament to aim at."""
    path = tmp_path_factory.mktemp("fuzz") / "cardledger.db"
    app = make_test_app(f"sqlite:///{path}")
    client = log_in(app.test_client())
    table = open_table(client, "bottle-imp")
    tournament = new_tournament(client, "Ann", "Bo", "Cy")
    assert client.post(f"/tournaments/{tournament}/rounds", headers=ORGANISER).status_code == 201
    yield client, {"table": table.id, "tournament": tournament}
    get_database(app).engine.dispose()


def hostile_form(form: Form) -> st.SearchStrategy[dict[str, str]]:
    """The form's own fields, each kept, dropped or replaced by hostile text, and a few
    fields nobody asked for."""
    value = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=40))
    fields = {
        name: st.one_of(st.just(good), value, st.none()) for name, good in form.fields.items()
    }
    extra = st.dictionaries(st.sampled_from(["seat", "points", "name", "x", "game"]), value,
                            max_size=2)  # fmt: skip
    return st.builds(
        lambda kept, more: {**{k: v for k, v in kept.items() if v is not None}, **more},
        st.fixed_dictionaries(fields),
        extra,
    )


FORMS = forms()


@pytest.mark.parametrize("form", FORMS, ids=[f.path for f in FORMS])
def test_no_form_input_is_a_server_error(fuzzed: tuple[FlaskClient, dict], form: Form) -> None:
    """Every console form, fuzzed: hostile text in any field, fields left out or added,
    a path number too long for any seat. Each answer is a page (a 4xx refusal or a
    redirect to a short address), never a 5xx, and never an input echoed into a header."""
    client, ids = fuzzed
    path = form.path.format(**ids)

    @settings(max_examples=40, derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
    @given(hostile_form(form))
    def send(data: dict[str, str]) -> None:
        assert_answered_well(post(client, path, data), (path, data))

    send()


def test_hostile_queries_are_refused_by_the_lists_schema(fuzzed: tuple[FlaskClient, dict]) -> None:
    client, ids = fuzzed
    for query in ("status=²", "tables_after=" + "x" * 5000, "tournaments_after=\x00", "status="):
        assert_answered_well(client.get(f"/console?{query}"), query)
    for query in ("round=" + "9" * 5000, "round=²", "round=-3", "note=" + "x" * 100_000):
        response = client.get(f"/console/tournaments/{ids['tournament']}?{query}")
        assert response.status_code == 200, query
    assert client.get("/console?status=nope").status_code == 422


# --- names -----------------------------------------------------------------------------------


def test_the_console_refuses_names_as_the_api_does(client: FlaskClient) -> None:
    log_in(client)
    tournament = new_tournament(client, "Ann")
    path = f"/console/tournaments/{tournament}/entries"
    for name, code in (
        ("Ann\x00", "validation_error"),
        ("Ann\U000e0041", "invalid_name"),  # a tag character: what the pattern cannot say
        ("\u202eAnn", "validation_error"),
        ("Ann\u200b", "validation_error"),
        ("\u3164", "validation_error"),
        ("x" * 100_000, "validation_error"),
        ("\u0410nn", "confusable_name"),  # a Cyrillic A
        ("ANN", "duplicate_entry"),
    ):
        response = post(client, path, {"name": name})
        assert response.status_code == 422, (name, text(response)[:300])
        assert f'data-code="{code}"' in text(response), (name, code)
        api = client.post(path.removeprefix("/console"), json={"name": name}, headers=ORGANISER)
        assert api.status_code == 422 and api.get_json()["code"] in (code, "invalid_name"), name
    assert [e["name"] for e in entries(client, tournament)] == ["Ann"]
    assert post(client, path, {"name": "  Ann   Lee "}).status_code == 303
    assert entries(client, tournament)[-1]["name"] == "Ann Lee"  # stored in its normal form


def test_a_table_whose_names_look_alike_is_refused(client: FlaskClient) -> None:
    log_in(client)
    form = {"seat-0-kind": "person", "seat-0-who": "Ann", "seat-1-kind": "person",
            "seat-1-who": "\u0410nn", "seat-2-kind": "person", "seat-2-who": "Bo"}  # fmt: skip
    response = post(client, "/console/tables/new?game=bestia", form)
    assert response.status_code == 422
    assert 'data-code="confusable_name"' in text(response)


# --- each form does its work once ------------------------------------------------------------


def twice(client: FlaskClient, path: str, data: dict[str, str] | None = None) -> tuple[Any, Any]:
    key = new_form_key()
    return post(client, path, data, key=key), post(client, path, data, key=key)


def count_tables(client: FlaskClient) -> int:
    return len(client.get("/tables?limit=100").get_json()["tables"])


def test_a_new_table_sent_twice_opens_one(client: FlaskClient) -> None:
    log_in(client)
    before = count_tables(client)
    form = {"seat-0-kind": "person", "seat-0-who": "Ann", "seat-1-kind": "person",
            "seat-1-who": "Bo", "seat-2-kind": "bot:random"}  # fmt: skip
    first, second = twice(client, "/console/tables/new?game=bestia", form)
    assert first.status_code == second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]
    assert count_tables(client) == before + 1


def test_an_adjustment_sent_twice_is_recorded_once(client: FlaskClient) -> None:
    log_in(client)
    table = open_table(client)
    path = f"/console/tables/{table.id}/adjust"
    first, second = twice(client, path, {"seat": "2", "points": "-10", "reason": "slow play"})
    assert first.status_code == second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]
    events = client.get(f"/tables/{table.id}/events", headers=ORGANISER).get_json()["events"]
    assert [e["type"] for e in events].count("Adjusted") == 1
    assert state(client, table)["totals"][2] == -10
    again = post(client, path, {"seat": "2", "points": "-10", "reason": "slow play"})
    assert again.status_code == 303  # a new form (a new key) is a new ruling
    assert state(client, table)["totals"][2] == -20


def test_tournament_forms_sent_twice_act_once(client: FlaskClient) -> None:
    log_in(client)
    first, second = twice(client, "/console/tournaments/new?game=bottle-imp",
                          {"name": "Twice", "table_size": "3", "rounds": "2",
                           "max_deals": "1"})  # fmt: skip
    assert first.headers["Location"] == second.headers["Location"]
    tournament = re.findall(r"[0-9a-f]{32}", first.headers["Location"])[0]
    tournaments = client.get("/tournaments?limit=100").get_json()["tournaments"]
    assert [t["name"] for t in tournaments].count("Twice") == 1
    base = f"/console/tournaments/{tournament}"
    for name in ("Ann", "Bo", "Cy", "Di"):
        first, second = twice(client, f"{base}/entries", {"name": name})
        assert first.status_code == second.status_code == 303, text(second)[:300]
    assert [e["name"] for e in entries(client, tournament)] == ["Ann", "Bo", "Cy", "Di"]
    first, second = twice(client, f"{base}/entries/4/withdraw", {"sure": "yes"})
    assert first.status_code == second.status_code == 303  # not 409 entry_withdrawn
    first, second = twice(client, f"{base}/rounds")
    assert first.status_code == second.status_code == 303, text(second)[:300]
    assert len(client.get(f"/tournaments/{tournament}").get_json()["seatings"]) == 1


def test_shown_once_forms_sent_twice_issue_nothing_new(client: FlaskClient) -> None:
    log_in(client)
    table = open_table(client)
    first, second = twice(client, f"/console/tables/{table.id}/seats/1/token", {"sure": "yes"})
    assert first.status_code == 200 and second.status_code == 409
    assert 'data-code="form_already_sent"' in text(second)
    assert f'href="/console/tables/{table.id}"' in text(second)
    token = re.search(r"view\?token=([\w-]+)", text(first))
    assert token and token.group(1) not in text(second)
    headers = {"Authorization": f"Bearer {token.group(1)}"}
    assert client.get(f"/tables/{table.id}/state", headers=headers).status_code == 200

    tournament = new_tournament(client, "Ann", "Bo", "Cy")
    path = f"/console/tournaments/{tournament}/entries/1/token"  # a person's new link
    first, second = twice(client, path, {"sure": "yes"})
    assert first.status_code == 200 and second.status_code == 409
    token = re.search(r"/me\?token=([\w-]+)", text(first))
    assert token and "me?token=" not in text(second)
    headers = {"Authorization": f"Bearer {token.group(1)}"}  # the first one still opens
    assert client.get(f"/tournaments/{tournament}/me", headers=headers).status_code == 200


def test_a_refused_form_can_be_sent_again_and_a_key_serves_one_form(client: FlaskClient) -> None:
    log_in(client)
    tournament = new_tournament(client)
    path = f"/console/tournaments/{tournament}/entries"
    key = new_form_key()
    assert post(client, path, {"name": "\u3164"}, key=key).status_code == 422
    assert post(client, path, {"name": "Ann"}, key=key).status_code == 303  # nothing was done
    other = post(client, f"/console/tournaments/{tournament}/rounds", key=key)
    assert other.status_code == 409 and 'data-code="form_key_reused"' in text(other)
    keyless = client.post(path, data={"csrf": csrf_of(client), "name": "Bo"})
    assert keyless.status_code == 400
    assert [e["name"] for e in entries(client, tournament)] == ["Ann"]


def test_every_rendered_form_has_its_own_key(client: FlaskClient) -> None:
    log_in(client)
    tournament = new_tournament(client, "Ann", "Bo", "Cy")
    page = text(client.get(f"/console/tournaments/{tournament}"))
    keys = form_keys_in(page)
    assert len(keys) == page.count('method="post"') - 1  # every form but "Log out"
    assert len(set(keys)) == len(keys)
    assert keys != form_keys_in(text(client.get(f"/console/tournaments/{tournament}")))


def test_nothing_typed_reaches_a_header(client: FlaskClient) -> None:
    log_in(client)
    tournament = new_tournament(client)
    long_name = post(client, f"/console/tournaments/{tournament}/entries", {"name": "x" * 100_000})
    assert long_name.status_code == 422 and "Location" not in long_name.headers
    response = client.get(f"/console?token={ADMIN_TOKEN}&x={'y' * 5000}")
    assert response.status_code == 303 and response.headers["Location"] == "/console"


# --- the organiser's session -----------------------------------------------------------------


def sessions(app: Flask) -> int:
    with get_database(app).reading() as connection:
        return int(connection.scalar(select(func.count()).select_from(organiser_sessions)))


def test_the_cookie_holds_a_session_that_logging_out_ends_everywhere(
    app: Flask, client: FlaskClient
) -> None:
    table = open_table(client)
    log_in(client)
    session_id = session_of(client)
    assert session_id != ADMIN_TOKEN and sessions(app) == 1
    assert "Organiser: you see every card" in text(client.get(f"/tables/{table.id}/view"))
    page = text(client.get("/console"))
    assert 'id="logout"' in page
    assert client.post("/console/logout", data={}).status_code == 403  # CSRF: no forced logout
    out = client.post("/console/logout", data={"csrf": csrf_of(client)})
    assert out.status_code == 303 and out.headers["Location"] == "/"
    assert f"{ORGANISER_COOKIE}=;" in out.headers["Set-Cookie"]
    assert sessions(app) == 0
    # the old cookie, kept by a thief or a back-up, opens nothing any more
    stolen = app.test_client()
    stolen.set_cookie(ORGANISER_COOKIE, session_id)
    assert stolen.get("/console").status_code == 401
    assert "You see what lies face up" in text(stolen.get(f"/tables/{table.id}/view"))
    move = stolen.post(f"/tables/{table.id}/view/act", json={"type": "deal"},
                       headers={"If-Match": '"1"', "X-CSRF-Token": "x"})  # fmt: skip
    assert move.status_code == 401
    raw = app.test_client()  # the organiser token itself is no cookie either
    raw.set_cookie(ORGANISER_COOKIE, ADMIN_TOKEN)
    assert raw.get("/console").status_code == 401


def test_an_expired_session_or_a_changed_token_ends_it(app: Flask, client: FlaskClient) -> None:
    log_in(client)
    assert client.get("/console").status_code == 200
    with get_database(app).writing() as connection:
        connection.execute(update(organiser_sessions).values(expires_at="2000-01-01T00:00:00"))
    assert client.get("/console").status_code == 401
    log_in(client)
    # the same database, served with a new organiser token: every session it opened ends
    renewed = create_app(replace(app.config["CARDLEDGER"], admin_token="a-new-token"))
    other = renewed.test_client()
    other.set_cookie(ORGANISER_COOKIE, session_of(client))
    assert other.get("/console").status_code == 401
    assert client.get("/console").status_code == 200
    get_database(renewed).engine.dispose()


def test_form_keys_are_kept_hashed_with_their_answer(app: Flask, client: FlaskClient) -> None:
    log_in(client)
    key = new_form_key()
    post(client, "/console/tournaments/new?game=oh-quay",
         {"name": "Keys", "table_size": "2", "rounds": "1"}, key=key)  # fmt: skip
    with get_database(app).reading() as connection:
        rows = connection.execute(select(form_keys)).all()
    assert len(rows) == 1 and key not in rows[0].key_hash and '"redirect"' in rows[0].outcome
