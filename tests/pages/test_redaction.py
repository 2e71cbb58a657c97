"""Pages never show what the viewer may not see (``docs/api.md``, Pages; ``docs/rules/common.md``,
Hidden information): what one viewer sees of a table in play, drawn face up or face down.

That no page of any game, for any viewer at any step, names a card the viewer may not know
is the contract's (``tests/contract/test_over_http.py``), checked against the organiser's
log rather than against the API's own ``GET /state``.
"""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from service.web.pages.session import csrf_token
from tests.pages.tables import (
    KINDS,
    Table,
    backs,
    embedded,
    finish,
    open_page,
    open_table,
    page_cards,
    play,
)


def table_page(client: FlaskClient, table: Table, viewer: int | str | None) -> str:
    response = open_page(client, table, viewer)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    return response.get_data(as_text=True)


@pytest.mark.parametrize("kind", KINDS)
def test_a_page_carries_its_viewers_csrf_token_and_never_its_token(
    client: FlaskClient, kind: str
) -> None:
    table = open_table(client, kind)
    play(client, table, lambda s: s["status"] == "in_deal")
    for viewer in [None, *(seat for seat, token in enumerate(table.tokens) if token)]:
        page = table_page(client, table, viewer)
        token = table.token(viewer)
        assert embedded(page)["live"]["csrf"] == (csrf_token(token) if token else None)
        assert token is None or token not in page, f"seat {viewer}'s token is in its page"


def test_a_seat_sees_its_own_hand_and_backs_for_the_others(client: FlaskClient) -> None:
    table = open_table(client)
    now = play(client, table, lambda s: s["phase"] == "playing")
    for seat in range(4):
        page = table_page(client, table, seat)
        drawn = page_cards(page)
        assert {str(c) for c in now["hands"][seat]} <= set(drawn)
        passed = {str(c) for c in now["passes"][seat]}  # now in its neighbours' hands
        for other in set(range(4)) - {seat}:
            assert not ({str(c) for c in now["hands"][other]} - passed) & set(drawn)
        others = sum(len(now["hands"][o]) for o in range(4) if o != seat)
        assert backs(page) == others + len(now["devil_trick"])


def test_the_organiser_sees_every_hand(client: FlaskClient) -> None:
    table = open_table(client)
    now = play(client, table, lambda s: s["phase"] == "playing")
    page = table_page(client, table, "organiser")
    assert {str(c) for hand in now["hands"] for c in hand} <= set(page_cards(page))
    assert backs(page) == 0


def test_the_public_sees_no_hand_until_the_deal_is_scored(client: FlaskClient) -> None:
    table = open_table(client)
    now = play(client, table, lambda s: s["phase"] == "playing")
    page = table_page(client, table, None)
    assert not {str(c) for hand in now["hands"] for c in hand} & set(page_cards(page))
    finish(client, table)
    page = table_page(client, table, None)
    assert backs(page) == 0  # a scored deal is public: the devil's trick lies open
    assert len(set(page_cards(page))) > 4


@pytest.mark.parametrize("token", ["not-a-token", "x" * 40])
def test_an_unknown_token_gets_a_401_page(client: FlaskClient, token: str) -> None:
    table = open_table(client)
    for url in (f"/tables/{table.id}/view", f"/tables/{table.id}/deals/1/replay"):
        response = client.get(f"{url}?token={token}")
        assert "Set-Cookie" not in response.headers
        assert response.status_code == 401
        assert response.mimetype == "text/html"
        assert "unauthorized" in response.get_data(as_text=True)


def test_a_seat_token_of_another_table_gets_a_401_page(client: FlaskClient) -> None:
    table, other = open_table(client), open_table(client)
    response = client.get(f"/tables/{table.id}/view?token={other.tokens[0]}")
    assert response.status_code == 401


def test_a_live_deal_replay_is_refused_to_all_but_the_organiser(client: FlaskClient) -> None:
    table = open_table(client)
    play(client, table, lambda s: s["phase"] == "playing")
    for viewer in (None, 0, 1):
        response = open_page(client, table, viewer, "/deals/1/replay")
        assert response.status_code == 403, viewer
        assert not page_cards(response.get_data(as_text=True))
    response = open_page(client, table, "organiser", "/deals/1/replay")
    assert response.status_code == 200


def test_the_replay_of_a_scored_deal_holds_only_that_deal(client: FlaskClient) -> None:
    """Deal 1's replay opens to everyone once scored, while deal 2 is still played: its
    steps end with deal 1, so deal 2's hidden hands cannot be in it."""
    table = open_table(client, max_deals=2)
    now = play(client, table, lambda s: s["deal"] == 2 and s["phase"] == "playing")
    response = client.get(f"/tables/{table.id}/deals/1/replay")
    assert response.status_code == 200
    steps = embedded(response.get_data(as_text=True))["steps"]
    history = client.get(f"/tables/{table.id}/deals/1").get_json()
    assert [s["v"] for s in steps] == [e["version"] for e in history["events"]]
    assert steps[-1]["v"] < now["version"]
    assert steps[-1]["type"] == "DealScored"
    assert client.get(f"/tables/{table.id}/deals/2/replay").status_code == 403
    page = table_page(client, table, None)
    assert f"/tables/{table.id}/deals/1/replay" in page
    assert f"/tables/{table.id}/deals/2/replay" not in page
