"""A rule's refusal keeps its code, English sentence and facts wherever it goes: raised,
repeated in a page's words, or pickled across processes (a job's refusal)."""

from __future__ import annotations

import pickle

from domain.errors import RuleViolation
from domain.names import NameRefused


def test_a_refusal_pickles_with_its_code_message_and_facts() -> None:
    refused = RuleViolation("invalid_deal", "seat 1 must get 5 cards", fault="count", seat=1)
    back = pickle.loads(pickle.dumps(refused))
    assert type(back) is RuleViolation
    assert (back.code, back.message, back.facts) == (refused.code, refused.message, refused.facts)
    assert str(back) == "seat 1 must get 5 cards"


def test_a_subclass_pickles_as_itself_and_says_its_facts() -> None:
    refused = NameRefused("invalid_name", "a name needs a visible letter, digit or sign")
    back = pickle.loads(pickle.dumps(refused))
    assert type(back) is NameRefused and back.facts == {}
    shown = repr(RuleViolation("not_your_turn", "it is seat 0's turn", seat=2, turn=0))
    assert shown == "RuleViolation('not_your_turn', \"it is seat 0's turn\", seat=2, turn=0)"
