"""Bots: pure functions that choose an action from what one seat may see.

A bot is, per game, ``choose(view, rng) -> action body``. ``view`` is the seat's
*observation*: ``rules.view(state, seat)`` (a JSON-ready dict whose ``legal_actions``
are complete bodies), plus ``log``, the events of the current deal as that seat may
see them (``rules.visible_events``), so a bot can remember what was played, and ``match``,
when the match ends (``domain.bots.observation``). A bot
never receives the state itself, so it cannot peek at a hidden card; and its only
source of chance is ``rng``, seeded from (the table's deal key, version, seat), so a
replay makes the same choices; the deal key holds the table's secret salt
(docs/rules/common.md, "Bots' dice"), so a guessable seed predicts no bot's choice.

``BOTS`` maps a name to a :class:`Bot`; ``bot(name)`` raises ``unknown_bot``.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from domain.bots.common import random_choice
from domain.errors import RuleViolation
from domain.games import SPECS

View = Mapping[str, Any]
Chooser = Callable[[View, random.Random], dict[str, Any]]


class Bot(NamedTuple):
    """A named strategy: one chooser per game id."""

    name: str
    description: str
    choosers: Mapping[str, Chooser]

    def chooser(self, game_id: str) -> Chooser:
        try:
            return self.choosers[game_id]
        except KeyError:
            raise RuleViolation(
                "unknown_bot", f"the {self.name} bot does not play {game_id!r}"
            ) from None

    def choose(self, game_id: str, view: View, rng: random.Random) -> dict[str, Any]:
        """The action body this bot takes, as the seat whose ``view`` it is."""
        return self.chooser(game_id)(view, rng)


#: Each registered game's bot module (``GameSpec.bots``): its ``heuristic`` and ``montecarlo``.
_GAMES = {game_id: importlib.import_module(spec.bots) for game_id, spec in SPECS.items()}

BOTS: dict[str, Bot] = {
    "random": Bot(
        "random",
        "uniform over the legal actions",
        dict.fromkeys(_GAMES, random_choice),
    ),
    "heuristic": Bot(
        "heuristic",
        "plays by the strategy notes of each game's rules",
        {game_id: module.heuristic for game_id, module in _GAMES.items()},
    ),
    "montecarlo": Bot(
        "montecarlo",
        "determinized Monte Carlo search over the hidden cards, a budget of playouts a move",
        {game_id: module.montecarlo for game_id, module in _GAMES.items()},
    ),
}
BOT_NAMES: tuple[str, ...] = tuple(BOTS)


def bot(name: object) -> Bot:
    """The bot called ``name``, or ``unknown_bot`` (the API answers 422)."""
    found = BOTS.get(name) if isinstance(name, str) else None
    if found is None:
        raise RuleViolation(
            "unknown_bot", f"there is no bot {name!r}; choose one of {', '.join(BOTS)}"
        )
    return found


def decision_rng(seed: str, version: int, seat: int) -> random.Random:
    """The RNG of one decision: the table's deal key ``"{salt}:{seed}"`` (a simulated
    match's bare seed: no secret to keep), the version the decision is taken at, and the
    seat. A string seed is hashed with SHA-512 by
    ``random.Random``, so every process and platform draws the same numbers."""
    return Dice(f"{seed}/bot/{version}/{seat}")


class Dice(random.Random):
    """``random.Random(text)``, seeded when first drawn from: the heuristics draw nothing,
    and hashing the text (SHA-512) was a tenth of a simulated decision's time. The draws
    are ``random.Random(text)``'s, call for call."""

    def __init__(self, text: str) -> None:  # Random.__init__ would seed now
        self.text: str | None = text
        self.gauss_next = None

    def _seed_once(self) -> None:
        if self.text is not None:
            super().seed(self.text)
            self.text = None

    def random(self) -> float:
        self._seed_once()
        return super().random()

    def getrandbits(self, k: int, /) -> int:
        self._seed_once()
        return super().getrandbits(k)

    def getstate(self) -> tuple[Any, ...]:
        self._seed_once()
        return super().getstate()

    def seed(self, *args: Any, **kwargs: Any) -> None:
        self.text = None
        super().seed(*args, **kwargs)


__all__ = ["BOTS", "BOT_NAMES", "Bot", "Chooser", "Dice", "View", "bot", "decision_rng"]
