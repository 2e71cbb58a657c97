"""Domain errors: a broken rule carries a stable ``code`` the API maps to a status."""

from __future__ import annotations


class RuleViolation(Exception):
    """An action the rules refuse.

    ``code`` is a stable machine word (``must_follow_suit``, ``not_your_turn`` …);
    ``message`` is a sentence for people, naming the card and the rule, and never
    revealing a card the acting seat may not see.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.message!r})"


#: Codes that mean "not now" rather than "never": the API answers them with 409.
WRONG_TIME_CODES = frozenset({"wrong_phase", "match_finished"})
