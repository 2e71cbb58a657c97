"""Domain errors: a broken rule carries a stable ``code`` the API maps to a status."""

from __future__ import annotations

from typing import Any

#: A fact a refusal names: a seat, a count, a card, a pile.
Fact = int | str


class RuleViolation(Exception):
    """An action the rules refuse.

    ``code`` is a stable machine word (``must_follow_suit``, ``not_your_turn`` …);
    ``message`` is a sentence for people (the API's English ``detail``), naming the card
    and the rule, and never revealing a card the acting seat may not see. ``facts`` are
    the same facts as named values, set where the rule is broken, so that a page can say
    the refusal in its own language without reading the English sentence:

    - ``seat``: the seat the refusal is about (a turn refused: the seat that tried;
      ``turn``: the seat whose turn it is), with ``pile`` (``"A"``/``"B"``) for a
      Bright House pile;
    - ``invalid_deal``'s ``fault`` says what is wrong with a recorded deal:
      ``count`` (``seat``, ``count``, and ``pile`` ``"A"``/``"B"``/``"quay"``/``"canal"``
      where the game deals several piles a seat), ``devil_count`` (``count``),
      ``dealt_twice`` (``card``), ``no_muestra``, ``muestra_not_dealers`` (``card``,
      ``seat``: the dealer), ``hands`` (``count``: one hand a seat);
    - any other code may name what its sentence names (``count``, ``card``).
    """

    def __init__(self, code: str, message: str, **facts: Fact) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.facts: dict[str, Fact] = facts

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (a job's refusal crossing processes) with its code and facts."""
        return (_rebuilt, (type(self), self.code, self.message, self.facts))

    def __repr__(self) -> str:
        facts = "".join(f", {name}={value!r}" for name, value in self.facts.items())
        return f"{type(self).__name__}({self.code!r}, {self.message!r}{facts})"


def _rebuilt(
    kind: type[RuleViolation], code: str, message: str, facts: dict[str, Fact]
) -> RuleViolation:
    return kind(code, message, **facts)


#: Codes that mean "not now" rather than "never": the API answers them with 409.
WRONG_TIME_CODES = frozenset({"wrong_phase", "match_finished"})
