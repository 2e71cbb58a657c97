"""What every game's rules do alike, so that a game says only what is its own.

- ``evolve``: each event is folded by the game's own fold for its type, and the end of the
  match (``MatchEnded``) the same way in every game: the phase ``finished``, the ranking.
- ``visible_events``: the organiser sees the whole log; anyone else sees what the game's
  own redaction leaves of its cards, and no seed or salt until the match ends (the table's
  seed and salt, and each deal's seed, which holds the salt: ``docs/rules/common.md``,
  "Hidden information").
- ``headline_of``: what a table's summary shows that play changes, alike in every game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Protocol

from domain.events import MatchEnded
from domain.table import ORGANISER, Viewer

Fold = Callable[[Any, Any], Any]
#: A game's redaction of its cards for a viewer other than the organiser: the whole log
#: (``TableOpened`` first), each event as that viewer may see it.
HideCards = Callable[[Sequence[Any], Viewer], list[Any]]


class VisibleEvents(Protocol):
    """A game's ``visible_events(events, viewer)``."""

    def __call__(self, events: Sequence[Any], viewer: Viewer = None, /) -> list[Any]: ...


#: A table's status by its phase: ``in_deal`` for every other phase.
STATUS: Final = {"waiting_for_deal": "waiting_for_deal", "finished": "finished"}


def headline_of(
    phase: str, deal: int, totals: Sequence[int], ranking: Sequence[int | None] | None
) -> dict[str, Any]:
    """A game's ``headline``: what a table's summary shows that play changes, as every view
    shows it to anyone (``status``, ``deal``, ``totals``, ``ranking``: no hidden card)."""
    return {
        "status": STATUS.get(phase, "in_deal"),
        "deal": deal,
        "totals": list(totals),
        "ranking": None if ranking is None else list(ranking),
    }


#: Fields no one but the organiser sees before the match ends.
SECRETS = ("seed", "salt")


def _match_ended(state: Any, event: MatchEnded) -> Any:
    return state._replace(phase="finished", ranking=tuple(event.ranking))


def evolve_by(folds: Mapping[type, Fold]) -> Fold:
    """A game's ``evolve`` from its folds by event type, ``MatchEnded``'s added."""
    table = {**folds, MatchEnded: _match_ended}

    def evolve(state: Any, event: Any) -> Any:
        """The state after ``event``."""
        return table[type(event)](state, event)

    return evolve


_SECRET_FIELDS: dict[type, tuple[str, ...]] = {}


def _without_secrets(event: Any) -> Any:
    kind = type(event)
    fields = _SECRET_FIELDS.get(kind)
    if fields is None:
        fields = _SECRET_FIELDS[kind] = tuple(f for f in SECRETS if f in kind._fields)
    return event._replace(**dict.fromkeys(fields)) if fields else event


def visible_events_by(hide_cards: HideCards) -> VisibleEvents:
    """A game's ``visible_events`` from its own redaction of cards."""

    def visible_events(events: Sequence[Any], viewer: Viewer = None) -> list[Any]:
        """The whole log as ``viewer`` may see it: hidden cards replaced by ``None``, and
        the seed and salt until the match ends. Needs the whole log, because what an event
        reveals depends on what came after it."""
        if viewer == ORGANISER:
            return list(events)
        shown = hide_cards(events, viewer)
        if any(type(e) is MatchEnded for e in events):
            return shown
        return [_without_secrets(e) for e in shown]

    return visible_events
