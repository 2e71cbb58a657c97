"""Card Ledger's HTTP service: turns requests into domain actions and events into JSON."""

from typing import Any

from service.version import __version__

__all__ = ["__version__", "create_app"]


def create_app(config: Any = None) -> Any:
    """What ``flask --app service`` looks for: ``service.running.app.create_app``, imported only
    when called so that importing ``service`` stays light."""
    from service.running.app import create_app as build

    return build(config)
