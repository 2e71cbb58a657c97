"""Card Ledger's HTTP service: turns requests into domain actions and events into JSON."""

from typing import Any

__version__ = "0.1.0"


def create_app(config: Any = None) -> Any:
    """What ``flask --app service`` looks for: ``service.app.create_app``, imported only
    when called so that importing ``service`` stays light."""
    from service.app import create_app as build

    return build(config)
