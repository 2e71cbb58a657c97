"""Hidden information (``docs/rules/common.md``) where an answer is not worked out anew for
its caller: a stored answer, replayed for an idempotency key. Every other answer, refusal,
deal history and page of every game, for every viewer at every step, is the contract's
(``tests/contract/test_over_http.py``), checked against what each viewer may know from the
organiser's log (``tests/contract/knowledge.py``).
"""

from __future__ import annotations

from flask.testing import FlaskClient

from domain.table import ORGANISER
from tests.contract.cards import cards_in
from tests.contract.checks import assert_may_know, assert_no_secret
from tests.contract.http import open_table
from tests.contract.matches import CASES

KEY = {"Idempotency-Key": "deal-1"}


def test_a_seat_replaying_the_organisers_idempotency_key_gets_no_hidden_card(
    client: FlaskClient,
) -> None:
    """A stored answer is the organiser's, with every hand in it: a seat that guesses the
    key of the organiser's ``{"type": "deal"}`` and sends it again must not be given it."""
    for case in {c.spec.id: c for c in CASES}.values():  # each game once
        walk = open_table(client, case, seed="replayed-secret")
        url = f"/tables/{walk.id}/actions"
        dealt = client.post(url, json={"type": "deal"}, headers=walk.headers(ORGANISER) | KEY)
        assert dealt.status_code == 201, dealt.get_json()
        walk.follow()
        assert walk.deal_at(walk.version) == 1
        hidden = set(walk.spec.deck) - walk.may_know(1, 1)
        assert hidden & cards_in(walk.spec, dealt.get_json()), "the organiser sees the hands"

        replay = client.post(url, json={"type": "deal"}, headers=walk.headers(1) | KEY)
        where = f"{case.spec.id}: the organiser's answer replayed to seat 1"
        assert_may_know(where, cards_in(walk.spec, replay.get_json()), walk.may_know(1, 1))
        assert_no_secret(where, replay.get_json(), walk.table)
        walk.follow()
        assert walk.deal_at(walk.version) == 1, "the replay dealt again"
