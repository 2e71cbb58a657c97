"""The ceiling of the stack: Card Ledger's own app (its request hooks, headers and error
handling) with one more route that does nothing, served by the same gunicorn as
``make run``. ``bench/api_load.py`` measures recorded play against it."""

from __future__ import annotations

from flask import Flask, jsonify

from service.running.app import create_app


def create() -> Flask:
    app = create_app()

    def noop() -> tuple[object, int]:
        return jsonify({"version": 0, "events": []}), 201

    app.add_url_rule("/bench/noop", "bench_noop", noop, methods=["POST"])
    return app
