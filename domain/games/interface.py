"""The typed game interface: what every game package provides, checked by mypy
(``make lint``) where the games are registered (``domain/games/__init__.py``).

A game is a package of pure functions over its own immutable state (``decide(state,
action) -> events``, ``evolve(state, event) -> state``) plus its ``SPEC``
(``domain/games/registry.py``); what every game does alike (the end of the match, the seed
and salt kept secret, directors' rulings) is shared (``domain/games/common.py``,
``domain.games.Rules``). ``docs/adding-a-game.md`` walks through each piece.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from domain.match import MatchRules
from domain.table import Table, Viewer

#: A card as the game writes it (``docs/rules/common.md``, Card notation).
Card = int | str


class GameRules(Protocol):
    """A game's rules module. ``state`` is the game's own immutable state; actions and
    events are its ``NamedTuple``s."""

    @property
    def GAME_ID(self) -> str:
        """The game's id in the API (``bottle-imp``)."""

    @property
    def DEFAULT_VARIANT(self) -> str: ...

    @property
    def EVENT_TYPES(self) -> Mapping[str, type]:
        """Every event the game records, by the name it is stored under."""

    @property
    def SPEC(self) -> object:
        """Its ``GameSpec`` (checked to be one as the game registers)."""

    def initial_state(self, table: Table, /) -> Any:
        """The table before its first deal, or ``RuleViolation`` for a table the rules refuse."""

    def decide(self, state: Any, action: Any, /) -> list[Any]:
        """The events ``action`` causes (the engine's own follow-ups included), or
        ``RuleViolation``."""

    def evolve(self, state: Any, event: Any, /) -> Any:
        """The state after ``event`` (``MatchEnded`` included: ``common.evolve_by``)."""

    def legal_actions(self, state: Any, seat: int, /) -> Sequence[Any]:
        """Every action ``seat`` may take now, each one ``decide`` accepts."""

    def to_act(self, state: Any, /) -> tuple[int, ...]:
        """The seats the table waits for."""

    def view(self, state: Any, viewer: Viewer = None, /, legal: bool = True) -> dict[str, Any]:
        """The state as ``viewer`` may see it, JSON-ready, with its legal actions (none
        when ``legal`` is false: a bot's observation makes them one at a time)."""

    def headline(self, state: Any, /) -> dict[str, Any]:
        """What a table's summary shows that play changes: ``view``'s ``status``, ``deal``,
        ``totals`` and ``ranking``, without the rest of the view."""

    def visible_events(self, events: Sequence[Any], viewer: Viewer = None, /) -> list[Any]:
        """The whole log as ``viewer`` may see it (``common.visible_events_by``)."""

    def parse(self, body: Mapping[str, Any], /) -> Any:
        """An action from its JSON body (``unknown_action``, ``invalid_action``)."""

    def body(self, action: Any, /) -> dict[str, Any]:
        """The JSON body of an action."""

    def action_of(self, event: Any, state: Any, /) -> Any | None:
        """The action ``event`` records, or ``None`` for one the engine causes itself."""

    def check_options(self, table: Table, /) -> None:
        """The table's variant and options, or ``RuleViolation`` (``options.check``)."""

    def default_match(self, players: int, /) -> MatchRules:
        """When a match stops when the table does not say."""

    def cards_of(self, mask: int, /) -> Sequence[Card]:
        """The cards of a hand as the state holds it."""

    def whereabouts(self, state: Any, /) -> Sequence[Card]:
        """Every card of the deal where it lies: each card of ``deck_of`` exactly once."""

    def deck_of(self, state: Any, /) -> Sequence[Card]:
        """The deck the table plays with."""
