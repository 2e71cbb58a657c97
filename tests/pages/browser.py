"""A real server and the system's Chromium, for the browser tests and the README screenshot.

Playwright drives Debian's ``chromium`` (``make test`` and ``.ci/run`` install it when
missing); Playwright's own browser downloads are never used.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from flask import Flask
from werkzeug.serving import WSGIRequestHandler, make_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def chromium_path() -> str | None:
    """``$CHROMIUM``, else Debian's ``chromium`` on the PATH."""
    return os.environ.get("CHROMIUM") or shutil.which("chromium")


def launch(playwright: Playwright) -> Browser:
    path = chromium_path()
    if path is None:
        raise FileNotFoundError("no chromium on the PATH (apt-get install chromium)")
    return playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)


class _Quiet(WSGIRequestHandler):
    """No access log: a page polls several times a second."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


@contextmanager
def serve(app: Flask) -> Iterator[str]:
    """Serve ``app`` on a free loopback port in a thread; yields its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=_Quiet)
    thread = threading.Thread(target=server.serve_forever, name="page-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)
