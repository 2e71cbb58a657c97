"""``GET /tables/{id}/deals/{k}/replay``: a finished deal, event by event, every hand open,
each trick's winner, the bottle (or trump, or quays) at each step, the legal alternatives
of each play marked, a permalink per step; the steps built on the server from the same
deal history and views as the API."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.pages.tables import (
    KINDS,
    ORGANISER,
    embedded,
    finish,
    open_table,
    page_cards,
    play,
)
from tests.pages.tables import Table as OpenTable

Json = dict[str, Any]


def replay(client: FlaskClient, table: OpenTable, deal: int = 1, query: str = "") -> str:
    """The replay as a fresh browser sees it after following the link (a token link is
    exchanged for a cookie and the clean address)."""
    browser = client.application.test_client()
    url = f"/tables/{table.id}/deals/{deal}/replay"
    response = browser.get(f"{url}{query}", follow_redirects=True)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    assert response.request.path == url and response.request.query_string == b""
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


def history(client: FlaskClient, table: OpenTable, deal: int = 1) -> Json:
    response = client.get(f"/tables/{table.id}/deals/{deal}", headers=ORGANISER)
    assert response.status_code == 200
    return response.get_json()


def slots(pile: Json) -> list[Json]:
    return [s if isinstance(s, dict) else {"c": s} for s in pile["slots"]]


def marked(step: Json, mark: str, seat: int | None = None) -> list[Any]:
    """The cards of a step's scene carrying ``mark`` (in ``seat``'s hand piles only)."""
    scene = step["scene"]
    if seat is None:
        piles = scene["centre"] + [p for s in scene["seats"] for p in s["piles"]]
    else:
        piles = [p for p in scene["seats"][seat]["piles"] if "hand" in p["kind"]]
    return [s["c"] for p in piles for s in slots(p) if mark in s.get("m", "").split()]


@pytest.mark.parametrize("kind", KINDS)
def test_a_finished_deal_replays_every_event_of_its_history(client: FlaskClient, kind: str) -> None:
    table = open_table(client, kind)
    finish(client, table, seed=kind)
    page = replay(client, table)
    steps = embedded(page)["steps"]
    events = history(client, table)["events"]
    assert [s["v"] for s in steps] == [e["version"] for e in events]
    assert [s["type"] for s in steps] == [e["type"] for e in events]
    for step in steps:
        assert f'<li id="s-{step["v"]}"' in page
        assert f'href="#v={step["v"]}"' in page
        for seat in step["scene"]["seats"]:
            for pile in seat["piles"]:
                if "hand" in pile["kind"]:
                    assert None not in [s["c"] for s in slots(pile)], "every hand is open"
    assert "«" in page and "»" in page and "ArrowLeft" in page and "ArrowRight" in page


def test_each_play_shows_the_hand_before_it_with_the_legal_cards(client: FlaskClient) -> None:
    table = open_table(client)
    finish(client, table)
    steps = {s["v"]: s for s in embedded(replay(client, table))["steps"]}
    plays = [e for e in history(client, table)["events"] if e["type"] == "CardPlayed"]
    assert len(plays) == 32
    for event in plays:
        step, seat, card = steps[event["version"]], event["seat"], event["data"]["card"]
        legal = sorted(body["card"] for body in event["legal"])
        assert sorted(marked(step, "legal", seat)) == legal
        assert card in marked(step, "played", seat), "the card is still in the hand shown"
        trick = step["scene"]["centre"][0]
        assert slots(trick)[-1]["c"] == card
        assert "played" in slots(trick)[-1]["m"]
        assert step["text"][-1] == {"c": card}
        assert step["alts"].startswith(f"{len(legal)} legal choice") or len(legal) == 1


def test_each_trick_shows_its_winner_and_the_bottle(client: FlaskClient) -> None:
    table = open_table(client)
    finish(client, table)
    steps = {s["v"]: s for s in embedded(replay(client, table))["steps"]}
    names = ["Ann", "Bo", "Cy", "Di"]
    tricks = [e for e in history(client, table)["events"] if e["type"] == "TrickCompleted"]
    assert len(tricks) == 8
    for event in tricks:
        data, step = event["data"], steps[event["version"]]
        trick = step["scene"]["centre"][0]
        assert trick["label"] == f"Trick {data['trick']}"
        assert [s["c"] for s in slots(trick)] == data["cards"]
        assert [s["by"] for s in slots(trick)] == [names[s] for s in data["seats"]]
        (winner,) = marked(step, "winner")
        assert data["seats"][data["cards"].index(winner)] == data["winner"]
        assert trick["note"] == f"won by {names[data['winner']]}"
        owner = "nobody owns it yet" if data["owner"] is None else f"owner: {names[data['owner']]}"
        assert step["scene"]["facts"][0] == ["Bottle", f"price {data['price']}, {owner}"]
        assert step["text"][0].startswith(f"Trick {data['trick']}: {names[data['winner']]} wins")


def test_oh_quay_steps_show_quays_canals_and_the_launch_choices(client: FlaskClient) -> None:
    table = open_table(client, "oh-quay")
    finish(client, table)
    steps = {s["v"]: s for s in embedded(replay(client, table))["steps"]}
    events = history(client, table)["events"]
    loads = [e for e in events if e["type"] == "CargoLoaded"]
    launches = [e for e in events if e["type"] == "RaftLaunched"]
    assert loads and launches
    for event in loads[:10]:
        step = steps[event["version"]]
        assert marked(step, "played") == [event["data"]["card"]]
        assert "position" in step["alts"] or step["alts"] == "the only legal choice"
    for event in launches[:10]:
        step, seat = steps[event["version"]], event["seat"]
        longest = max(body["count"] for body in event["legal"])
        canal = [s["c"] for s in slots(step["scene"]["seats"][seat]["piles"][1])]
        assert marked(step, "legal", seat) == canal[:longest]
        assert set(event["data"]["cards"]) <= set(marked(step, "played", seat))
    labels = [p["label"] for p in steps[loads[0]["version"]]["scene"]["seats"][0]["piles"]]
    assert labels == ["Quay (top first)", "Canal (front first)", "Score pile"]


def test_the_first_step_is_drawn_on_the_server_and_faces_are_templates(
    client: FlaskClient,
) -> None:
    table = open_table(client)
    finish(client, table)
    page = replay(client, table)
    first = embedded(page)["steps"][0]
    scene_html = re.search(r'<div id="scene">(.*?)</div>\s*<h2>', page, re.S)
    assert scene_html
    dealt = [s["c"] for seat in first["scene"]["seats"] for s in slots(seat["piles"][0])]
    assert [int(c) for c in page_cards(scene_html.group(1))] == [19, *dealt]
    faces = re.search(r'<template id="faces">(.*?)</template>', page, re.S)
    assert faces
    assert sorted(int(c) for c in page_cards(faces.group(1))) == list(range(1, 38))


def test_a_replay_link_per_step_and_the_hand_record(client: FlaskClient) -> None:
    table = open_table(client)
    finish(client, table)
    page = replay(client, table)
    record = client.get(f"/tables/{table.id}/deals/1?format=text").get_data(as_text=True)
    assert record.startswith(f"Table {table.id}, deal 1 (dealer: seat 0)\n")  # the API's
    assert _record_of(page).splitlines()[0] == f"Table {table.id}, deal 1 (dealer: Ann)"
    names = ", ".join(seat["name"] for seat in table.body["seats"])
    assert f'<a href="/tables/{table.id}/view">{names}</a>' in page  # named as its page is
    # the page's own words (the hand record is the API's text, folded away for auditors)
    unfolded = re.sub(
        r"<script.*?</script>|<template.*?</template>|<details.*?</details>", "", page, flags=re.S
    )
    shown = re.sub(r"<[^>]+>", " ", unfolded)
    assert table.id[:6] not in shown and "version" not in shown  # no ids, no versions


def _record_of(page: str) -> str:
    found = re.search(r'<pre class="record">(.*?)</pre>', page, flags=re.S)
    assert found, page[-2000:]
    return html.unescape(found[1])


#: The record's own words in each language, and what English says there instead.
RECORD_WORDS = {
    "es": ("Mesa {id}, mano 1 (reparte: Ann)", "Reparto: ", "Puntuación: ", "[podía: "),
    "fi": ("Pöytä {id}, jako 1 (jakaja: Ann)", "Jaettu: ", "Pisteet: ", "[olisi voinut: "),
    "fr": (
        "Table {id}, donne 1 (donneur\u00a0: Ann)",
        "Distribué\u00a0: ",
        "Score\u00a0: ",
        "[possible\u00a0: ",
    ),
}


@pytest.mark.parametrize("language", sorted(RECORD_WORDS))
def test_the_hand_record_on_a_page_speaks_its_language_and_the_api_english(
    client: FlaskClient, language: str
) -> None:
    table = open_table(client)
    finish(client, table)
    english = client.get(f"/tables/{table.id}/deals/1?format=text").get_data(as_text=True)
    browser = client.application.test_client()
    url = f"/tables/{table.id}/deals/1/replay"
    page = browser.get(url, headers={"Accept-Language": language}).get_data(as_text=True)
    assert f'<html lang="{language}"' in page
    record = _record_of(page)
    heading, dealt, score, could = RECORD_WORDS[language]
    lines, api = record.splitlines(), english.split("\n\n", 2)
    assert lines[0] == heading.format(id=table.id)
    assert lines[1].startswith(dealt) and lines[1][len(dealt) :] == api[0].splitlines()[1][7:]
    assert lines[-1].startswith(score) and could in record
    said_in_english = ("Dealt:", "Score:", "could:", "dealer:", "organiser", "engine", "seat ")
    assert [w for w in said_in_english if w in record] == []
    # the same events, each on its line, with the same notation after who recorded it
    in_api = api[1].splitlines()
    assert len(lines[3:-2]) == len(in_api)
    for mine, theirs in zip(lines[3:-2], in_api, strict=True):
        found = re.match(r"(v\d+) +[a-z ]+?\d* +([A-Z]\w+) +(.*?)(?:   \[could: .*)?$", theirs)
        assert found, theirs
        version, kind, data = found.groups()
        assert mine.startswith(version + " ") and f" {kind} " in mine, (mine, theirs)
        assert mine.split("   [")[0].endswith(data), (mine, theirs)
    assert english.startswith(f"Table {table.id}, deal 1 (dealer: seat 0)\nDealt: ")


def test_a_seat_and_the_public_may_replay_a_scored_deal(client: FlaskClient) -> None:
    table = open_table(client)
    finish(client, table)
    public = embedded(replay(client, table))["steps"][0]["scene"]["seats"]
    dealt = history(client, table)["dealt"]["hands"]
    assert [[s["c"] for s in slots(seat["piles"][0])] for seat in public] == dealt
    seat_page = replay(client, table, query=f"?token={table.tokens[0]}")
    assert f'href="/tables/{table.id}/view"' in seat_page
    assert str(table.tokens[0]) not in seat_page


def test_the_organiser_may_replay_a_deal_being_played(client: FlaskClient) -> None:
    table = open_table(client)
    now = play(client, table, lambda s: s["phase"] == "playing")
    page = replay(client, table, query="?token=test-organiser-token")
    steps = embedded(page)["steps"]
    assert steps[-1]["v"] == now["version"]
    assert "Organiser's view of a deal still being played." in page


def test_an_unknown_deal_is_a_404_page(client: FlaskClient) -> None:
    table = open_table(client)
    response = client.get(f"/tables/{table.id}/deals/1/replay")
    assert response.status_code == 404
    assert "no deal 1" in response.get_data(as_text=True)


def test_every_version_of_a_deal_can_be_viewed(client: FlaskClient) -> None:
    """Including the moment after a trick's last card, before the engine completes it."""
    table = open_table(client)
    now = finish(client, table)
    for version in range(1, now["version"] + 1):
        response = client.get(f"/tables/{table.id}/state?version={version}", headers=ORGANISER)
        assert response.status_code == 200, version
