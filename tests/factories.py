"""factory-boy factories for ``POST /tables`` bodies (``api.md``, Tables).

``table_body()`` is a short standard 4-player match; ``players=3``, ``lopaka=True``,
``bright_house=True`` or any field as a keyword give the other tables the tests need.
"""

from __future__ import annotations

from typing import Any, cast

import factory


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
