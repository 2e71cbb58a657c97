"""What a bot is shown: one seat's observation, made as cheaply as the bot lets it be.

``observe`` is the document every bot receives (``domain.bots``): the seat's view, its seat
number, ``match`` (when the match ends: the table's public settings) and ``log``, the current
deal's events as that seat may see them. ``Observation`` is
the same document, read-only, that makes its two dear parts only when a bot reads them:

- ``log``: redacting and converting the deal's events again at every decision; the
  heuristics never read it;
- ``legal_actions``: a body per legal action, made when looked at. Before its first trick
  a Bottle Imp seat may discard or pass: 144 actions, of which the heuristic reads one.

Both were most of a simulated match's time (``bench/simulations.py``). An ``Observation``
equals ``observe``'s dict key for key, so a bot decides the same from either
(``tests/domain/test_bots_observation.py`` checks it at every decision of seeded matches).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, overload

from domain.events import event_type, to_data

Body = dict[str, Any]


def current_deal(rules: Any, events: Sequence[Any]) -> Sequence[Any]:
    """The events of the current deal: from the event the game declares as starting a deal
    (``rules.spec.landmarks``) on, empty before one."""
    started = rules.spec.landmarks.deal_started
    for i in range(len(events) - 1, -1, -1):
        if type(events[i]) is started:
            return events[i:]
    return ()


def observe(rules: Any, state: Any, seat: int, deal_events: Sequence[Any]) -> dict[str, Any]:
    """What ``seat`` knows, JSON-ready: its view, its seat number, the match's length and
    ``log``, the current deal's events as this seat may see them (hidden cards already
    ``None``).

    This is all a bot ever receives: the state stays here.
    """
    view = rules.view(state, seat)
    shown = rules.visible_events(list(deal_events), seat) if deal_events else []
    view["seat"] = seat
    view["match"] = match_of(state)
    view["log"] = [{"type": event_type(e), "data": to_data(e)} for e in shown]
    return view


def match_of(state: Any) -> dict[str, int | None]:
    """When the match ends (public, as the table's settings are): a bot that plays to
    win the match weighs a deal by the deals left."""
    match = state.table.match
    return {"target_score": match.target_score, "max_deals": match.max_deals}


class LegalBodies(Sequence[Body]):
    """The seat's legal actions as JSON bodies, each made when first read (and kept)."""

    __slots__ = ("_actions", "_body", "_made")

    def __init__(self, actions: Sequence[Any], body: Callable[[Any], Body]) -> None:
        self._actions = actions
        self._body = body
        self._made: list[Body | None] = [None] * len(actions)

    def __len__(self) -> int:
        return len(self._made)

    @overload
    def __getitem__(self, i: int) -> Body: ...
    @overload
    def __getitem__(self, i: slice) -> list[Body]: ...
    def __getitem__(self, i: int | slice) -> Body | list[Body]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self._made)))]
        made = self._made[i]  # IndexError as a list's
        if made is None:
            made = self._made[i] = self._body(self._actions[i])
        return made

    def __iter__(self) -> Iterator[Body]:
        for i in range(len(self._made)):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalBodies | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # as a list's


class Observation(Mapping[str, Any]):
    """``observe``'s document for ``seat``, read-only, with ``log`` and ``legal_actions``
    made only when a bot reads them (``LegalBodies``: one body at a time)."""

    __slots__ = ("_events", "_legal", "_log", "_rules", "_seat", "_state", "_view")

    def __init__(self, rules: Any, state: Any, seat: int, deal_events: Sequence[Any]) -> None:
        view = rules.view(state, seat, legal=False)
        del view["legal_actions"]
        view["seat"] = seat
        view["match"] = match_of(state)
        self._view: dict[str, Any] = view
        self._rules, self._state, self._seat = rules, state, seat
        self._events = tuple(deal_events)  # the caller's list grows after the decision
        self._log: list[dict[str, Any]] | None = None
        self._legal: LegalBodies | None = None

    @property
    def log(self) -> list[dict[str, Any]]:
        if self._log is None:
            events = self._events
            shown = self._rules.visible_events(list(events), self._seat) if events else []
            self._log = [{"type": event_type(e), "data": to_data(e)} for e in shown]
        return self._log

    @property
    def legal_actions(self) -> LegalBodies:
        """What the view's ``legal_actions`` holds for a seat: a body per legal action."""
        if self._legal is None:
            rules = self._rules
            self._legal = LegalBodies(rules.legal_actions(self._state, self._seat), rules.body)
        return self._legal

    def __getitem__(self, key: str) -> Any:
        if key == "legal_actions":
            return self.legal_actions
        if key == "log":
            return self.log
        return self._view[key]

    def __contains__(self, key: object) -> bool:
        return key in ("legal_actions", "log") or key in self._view

    def __iter__(self) -> Iterator[str]:
        yield from self._view
        yield "legal_actions"
        yield "log"

    def __len__(self) -> int:
        return len(self._view) + 2

    def as_dict(self) -> dict[str, Any]:
        """The plain JSON document (``observe``), every part made."""
        document = dict(self._view)
        document["legal_actions"] = list(self.legal_actions)
        document["log"] = self.log
        return document
