"""Card Ledger's HTTP service: turns requests into domain actions and events into JSON."""

__version__ = "0.1.0"
