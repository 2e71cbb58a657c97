"""What a viewer may know at each version of a table's log, worked out independently of
the game's ``view`` and ``visible_events`` (``docs/rules/common.md``, Hidden information).

From the organiser's log, folded step by step, each game's sight (``sights/``) says what
each seat and the public has in front of it after each event, and what the event itself
shows everyone. Knowledge only grows: a card once seen stays known (a seat remembers the
card it passed, a spectator the cards played). It is kept per deal, since every deal
deals the same deck again: once deal 1 is scored all its cards are public, yet deal 2's
hands are not. The organiser knows everything.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Set
from types import ModuleType
from typing import Any

from domain.games.registry import GameSpec
from domain.table import ORGANISER, Viewer
from tests.contract.cards import Card
from tests.contract.matches import Match
from tests.contract.sights import sight_of


class Knowledge:
    """Per viewer (``None``: the public) and deal, the version each card was first seen."""

    def __init__(self, spec: GameSpec, seats: int, sight: ModuleType | None = None) -> None:
        self.sight = sight or sight_of(spec)
        self.seats = seats
        self.first_seen: dict[tuple[Viewer, int], dict[Card, int]] = defaultdict(dict)

    @classmethod
    def of(cls, match: Match, sight: ModuleType | None = None) -> Knowledge:
        known = cls(match.spec, len(match.table.seats), sight)
        for version in match.versions:
            known.learn(version, match.log[version - 1], match.state(version))
        return known

    def learn(self, version: int, event: Any, after: Any) -> None:
        """What ``event`` showed and what lies in sight in the state it led to."""
        deal = int(after.deal)
        public = self.sight.revealed(event, after) | self.sight.in_sight(after, None)
        self._note(None, deal, public, version)
        for seat in range(self.seats):
            self._note(seat, deal, self.sight.in_sight(after, seat), version)

    def _note(self, viewer: Viewer, deal: int, cards: Set[Card], version: int) -> None:
        seen = self.first_seen[viewer, deal]
        for card in cards:
            seen.setdefault(card, version)

    def may_know(self, version: int, viewer: Viewer, deal: int) -> frozenset[Card] | None:
        """The cards of ``deal`` that ``viewer`` has seen by ``version``; ``None``: all."""
        if viewer == ORGANISER:
            return None
        viewers = (None,) if viewer is None else (None, viewer)
        return frozenset(
            card
            for who in viewers
            for card, at in self.first_seen.get((who, deal), {}).items()
            if at <= version
        )

    def in_sight(self, after: Any, viewer: Viewer) -> set[Card]:
        """What the rules put in front of ``viewer`` in ``after`` (the organiser: what any
        seat or the public has in front of it): a view must show at least this."""
        if viewer == ORGANISER:
            viewers: list[int | None] = [None, *range(self.seats)]
            return set().union(*(self.sight.in_sight(after, v) for v in viewers))
        public = self.sight.in_sight(after, None)
        return public if viewer is None else public | self.sight.in_sight(after, viewer)
