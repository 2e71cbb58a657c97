"""The events of a game that the rest of Card Ledger recognises, declared by the game.

A deal's history (``domain/audit.py``), the table page (``service/web/pages/tableview.py``),
the replay (``service/web/pages/replay.py`` and its words) find where a deal starts, where
it is scored and where a trick is completed through the game's :class:`Landmarks`
(``GameSpec.landmarks``), never by an event's name written out.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The fields each landmark's event carries, as the readers above use them.
FIELDS = {
    "deal_started": ("deal", "seed"),
    "deal_scored": ("deal",),
    "trick_completed": ("trick", "seats", "cards", "winner"),
}


@dataclass(frozen=True, slots=True)
class Landmarks:
    """``deal_started``: a deal (an Oh Quay game) was dealt, its number ``deal`` and its deal
    ``seed`` (``None`` when recorded); ``deal_scored``: the deal ``deal`` was scored and its
    hidden cards are public (Bestia's ``DealSettled``); ``trick_completed``: a trick was
    taken, ``seats`` and ``cards`` in play order and its ``winner`` (none in a game without
    tricks). Each is the event's class, one of the game's ``EVENT_TYPES``."""

    deal_started: type
    deal_scored: type
    trick_completed: type | None = None

    def __post_init__(self) -> None:
        for role, fields in FIELDS.items():
            kind = getattr(self, role)
            missing = [f for f in fields if kind is not None and f not in kind._fields]
            if missing:
                raise ValueError(f"{role} {kind.__name__} has no field {', '.join(missing)}")

    def starts_deal(self, kind: str) -> bool:
        """Whether an event's type (its class name, as stored) begins a deal."""
        return kind == self.deal_started.__name__

    def scores_deal(self, kind: str) -> bool:
        """Whether an event's type scores (settles) a deal."""
        return kind == self.deal_scored.__name__

    def completes_trick(self, kind: str) -> bool:
        """Whether an event's type completes a trick."""
        return self.trick_completed is not None and kind == self.trick_completed.__name__
