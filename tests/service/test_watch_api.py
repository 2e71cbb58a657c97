"""Live updates through the Flask client (``docs/api.md``, "Live updates"): a table's and a
tournament's Server-Sent Events (each read by waiting for it, never by the clock), the
heartbeat and the bounded lifetime, the process's limit of open streams, and the
refusals."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.storage.db import get_database
from tests.factories import table_body
from tests.helpers import make_test_app
from tests.service.test_tables_api import assert_problem, bearer
from tests.service.tournament_play import (
    ORGANISER,
    created,
    enter,
    new_tournament,
    play_table,
    seat_round,
)

Event = tuple[str, Any]  # (event, data); a comment is ("comment", text)


class Stream:
    """An open event stream, read one event at a time (each read waits for it)."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.chunks = iter(response.response)
        self.buffer = ""

    def next(self) -> Event:
        while "\n\n" not in self.buffer:
            chunk = next(self.chunks)
            self.buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        block, self.buffer = self.buffer.split("\n\n", 1)
        if block.startswith(":"):
            return "comment", block[1:].strip()
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        if "event" not in fields:
            return self.next()  # the retry line
        return fields["event"], json.loads(fields["data"])

    def until(self, event: str) -> Any:
        """The data of the next ``event``, past any other."""
        while True:
            kind, data = self.next()
            if kind == event:
                return data

    def reaches(self, version: int) -> int:
        """Read ``version`` events until one says ``version`` (moves close together may
        come as one event); the version it says (never beyond)."""
        while True:
            seen = self.until("version")["version"]
            assert seen <= version
            if seen == version:
                return seen

    def ended(self) -> bool:
        try:
            self.next()
        except StopIteration:
            return True
        return False

    def close(self) -> None:
        self.response.close()


@contextmanager
def watching(client: FlaskClient, path: str, **kw: Any) -> Iterator[Stream]:
    response = client.get(path, buffered=False, **kw)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/event-stream"
    with closing(Stream(response)) as stream:
        yield stream


def open_table(client: FlaskClient) -> dict[str, Any]:
    return created(client.post("/tables", json=table_body(), headers=ORGANISER))


def act(client: FlaskClient, table: str) -> int:
    """One legal move by the organiser; the table's new version."""
    shown = created(client.get(f"/tables/{table}/state", headers=ORGANISER), 200)
    action = random.Random(shown["version"]).choice(shown["legal_actions"])
    return int(created(client.post(f"/tables/{table}/actions", json=action,
                                   headers=ORGANISER))["version"])  # fmt: skip


def test_a_watcher_hears_each_move_and_the_end(client: FlaskClient) -> None:
    table = open_table(client)
    with watching(client, f"/tables/{table['id']}/watch") as stream:
        assert stream.next() == ("version", {"version": 1})
        version = act(client, table["id"])
        assert stream.reaches(version) == version
        version = act(client, table["id"])
        assert stream.reaches(version) == version
        summary = play_table(client, table["id"], random.Random(5))
        assert summary["status"] == "finished"
        final = created(client.get(f"/tables/{table['id']}"), 200)["version"]
        assert stream.until("finished") == {"version": final}
        assert stream.ended()


@pytest.mark.integration
def test_a_watcher_hears_each_move_on_postgresql(postgres_url: str) -> None:
    app = make_test_app(postgres_url)
    try:
        test_a_watcher_hears_each_move_and_the_end(app.test_client())
    finally:
        get_database(app).engine.dispose()


def test_a_finished_table_says_so_at_once(client: FlaskClient) -> None:
    table = open_table(client)
    play_table(client, table["id"], random.Random(6))
    with watching(client, f"/tables/{table['id']}/watch") as stream:
        kind, data = stream.next()
        assert kind == "version"
        assert stream.next() == ("finished", data)
        assert stream.ended()


def test_a_seat_token_watches_as_it_reads(client: FlaskClient) -> None:
    table = open_table(client)
    token = table["seats"][0]["token"]
    with watching(client, f"/tables/{table['id']}/watch", headers=bearer(token)) as stream:
        assert stream.next() == ("version", {"version": 1})


def test_heartbeats_keep_it_open_and_it_ends_in_time(app: Flask, client: FlaskClient) -> None:
    app.config["LIVE_HEARTBEAT_SECONDS"] = 0.05
    app.config["LIVE_LIFETIME_SECONDS"] = 0.5
    table = open_table(client)
    with watching(client, f"/tables/{table['id']}/watch") as stream:
        assert stream.next() == ("version", {"version": 1})
        assert stream.next() == ("comment", "heartbeat")
        while True:  # its lifetime over, the stream ends (the browser connects again)
            try:
                assert stream.next() == ("comment", "heartbeat")
            except StopIteration:
                break


def test_a_process_holds_a_bounded_number_of_streams(app: Flask, client: FlaskClient) -> None:
    app.config["CARDLEDGER"] = dataclasses.replace(app.config["CARDLEDGER"], watchers=2)
    table = open_table(client)
    path = f"/tables/{table['id']}/watch"
    with watching(client, path), watching(client, path):
        refused = client.get(path, buffered=False)
        assert_problem(refused, 503, "too_many_watchers")
    with watching(client, path) as stream:  # the first two closed: room again
        assert stream.next()[0] == "version"


def test_a_tournament_watcher_hears_rounds_tables_and_the_end(client: FlaskClient) -> None:
    tournament = new_tournament(client, rounds=1, seed="watched")
    with watching(client, f"/tournaments/{tournament}/watch") as stream:
        assert stream.next()[0] == "version"
        enter(client, tournament, "Ann", "Bo", "Cy", "Dee")
        assert stream.reaches(5) == 5
        (table,) = seat_round(client, tournament)["tables"]
        assert stream.reaches(6) == 6
        moved = act(client, table["id"])
        assert stream.until("table") == {"table": table["id"], "version": moved}
        play_table(client, table["id"], random.Random(7))
        final = created(client.get(f"/tournaments/{tournament}"), 200)["version"]
        assert stream.until("finished") == {"version": final}
        assert stream.ended()


def test_refusals(client: FlaskClient) -> None:
    table = open_table(client)
    assert_problem(client.get(f"/tables/{table['id']}/watch", headers=bearer("nope")),
                   401, "unauthorized")  # fmt: skip
    assert_problem(client.get(f"/tables/{'0' * 32}/watch"), 404, "not_found")
    assert_problem(client.get(f"/tournaments/{'0' * 32}/watch"), 404, "not_found")
    tournament = new_tournament(client, seed="not a table")
    assert_problem(client.get(f"/tables/{tournament}/watch"), 404, "not_found")
    assert_problem(client.get(f"/tournaments/{table['id']}/watch"), 404, "not_found")


@pytest.mark.parametrize("path", ["/tables/{table}/watch", "/tournaments/{tournament}/watch"])
def test_the_stream_is_never_cached(client: FlaskClient, path: str) -> None:
    table = open_table(client)
    tournament = new_tournament(client, seed="cache")
    with watching(client, path.format(table=table["id"], tournament=tournament)) as stream:
        assert stream.response.headers["Cache-Control"] == "no-store"
        assert stream.next()[0] == "version"
