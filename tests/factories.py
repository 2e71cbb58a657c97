"""factory-boy factories for ``POST /tables`` bodies (``docs/api.md``, Tables).

``table_body()`` is a short standard 4-player match; ``players=3``, ``lopaka=True``,
``bright_house=True`` or any field as a keyword give the other tables the tests need.
"""

from __future__ import annotations

from typing import Any, cast

import factory

from domain.tournament.events import TournamentCreated


class SeatFactory(factory.DictFactory):
    """A person at a seat."""

    name = factory.Sequence(lambda n: f"Player {n}")


class TableBodyFactory(factory.DictFactory):
    """The body of ``POST /tables`` for The Bottle Imp: one deal, a known seed."""

    class Params:
        players = 4
        lopaka = factory.Trait(variant="lopaka", players=2)
        bright_house = factory.Trait(variant="bright-house", players=2)

    game = "bottle-imp"
    variant = "standard"
    seats = factory.LazyAttribute(lambda o: [SeatFactory() for _ in range(o.players)])
    target_score = 200
    max_deals = 1
    seed = factory.Sequence(lambda n: f"club-night-{n}")
    rules = factory.Dict({"first_dealer": 0})


def table_body(**overrides: Any) -> dict[str, Any]:
    """A ``POST /tables`` body (typed: factory-boy types a call as the factory class)."""
    return cast("dict[str, Any]", TableBodyFactory(**overrides))


# --- players and tournaments (``docs/api.md``, Tournaments) ---------------------------------------


class PlayerBodyFactory(factory.DictFactory):
    """The body of ``POST /players``."""

    name = factory.Sequence(lambda n: f"Member {n}")


def player_body(**overrides: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", PlayerBodyFactory(**overrides))


class TournamentBodyFactory(factory.DictFactory):
    """The body of ``POST /tournaments``: a two-round Swiss of one-deal Bottle Imp tables.

    Traits: ``bestia`` and ``oh_quay`` (short matches at the smallest table), ``round_robin``,
    ``random``, ``bots`` (bots fill the last table instead of byes).
    """

    class Params:
        bestia = factory.Trait(game="bestia", table_size=3, target_score=None, max_deals=1)
        oh_quay = factory.Trait(game="oh-quay", table_size=2, target_score=None, max_deals=1)
        round_robin = factory.Trait(pairing="round_robin")
        random = factory.Trait(pairing="random")
        bots = factory.Trait(fill_with_bots="random")

    name = factory.Sequence(lambda n: f"Club night {n}")
    game = "bottle-imp"
    variant = None
    table_size = 4
    target_score = 200
    max_deals = 1
    rounds = 2
    pairing = "swiss"
    fill_with_bots = None
    seed = factory.Sequence(lambda n: f"tournament-{n}")
    rules = factory.Dict({})

    @classmethod
    def _build(cls, model_class: Any, *args: Any, **kwargs: Any) -> Any:
        """Leave out the fields left at ``None`` (the server's defaults)."""
        given = {k: v for k, v in kwargs.items() if v is not None}
        return super()._build(model_class, *args, **given)

    _create = _build


def tournament_body(**overrides: Any) -> dict[str, Any]:
    """A ``POST /tournaments`` body."""
    return cast("dict[str, Any]", TournamentBodyFactory(**overrides))


class TournamentCreatedFactory(factory.Factory):
    """A ``TournamentCreated`` event, for domain tests that fold a tournament by hand."""

    class Meta:
        model = TournamentCreated

    name = factory.Sequence(lambda n: f"Club night {n}")
    game = "bottle-imp"
    variant = "standard"
    table_size = 4
    pairing = "swiss"
    seed = factory.Sequence(lambda n: f"tournament-{n}")
    rounds = 3
