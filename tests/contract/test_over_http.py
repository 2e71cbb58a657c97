"""The contract over HTTP, for every registered game and variant: a one-deal match played
by the seats' own tokens through the API, and at every step, for every seat, the public and
the organiser, ``GET /state``, ``/events``, the deal's history, the export, the answer to
each action, each refusal and the table page (``GET /tables/{id}/view``, from the viewer's
own browser) hold no card the viewer may not know and no seed or salt; every legal action
offered is taken (201) and garbage is refused (4xx, nothing appended).

What a viewer may know comes from the organiser's log (``tests/contract/knowledge.py``),
not from the API's other answers, so an API leak cannot hide a page leak or itself.
"""

from __future__ import annotations

import random

import pytest
from flask.testing import FlaskClient

from domain.table import ORGANISER
from tests.contract.cards import cards_in
from tests.contract.checks import assert_may_know, who
from tests.contract.http import act, check_everyone, events_of, open_table
from tests.contract.matches import EVERY_VARIANT, Case


@pytest.mark.parametrize("case", EVERY_VARIANT)
def test_no_answer_nor_page_shows_a_viewer_what_it_may_not_know(
    client: FlaskClient, case: Case
) -> None:
    walk = open_table(client, case, seed=f"kept-secret-{case.id}")
    rng = random.Random(case.id)
    check_everyone(walk, records=True)
    while not walk.over:
        deal = walk.deal_at(walk.version)
        act(walk, rng)
        check_everyone(walk, records=walk.deal_at(walk.version) != deal or walk.over)
    organiser_log = events_of(walk, ORGANISER)
    for viewer in walk.viewers:
        assert events_of(walk, viewer) == organiser_log, f"{who(viewer)}: the match is over"
        for version in walk.versions:
            shown = walk.json(f"/tables/{walk.id}/state?version={version}", viewer)
            where = f"the state of version {version} for {who(viewer)}"
            allowed = walk.may_know(viewer, walk.deal_at(version), version)
            assert_may_know(where, cards_in(walk.spec, shown), allowed)
