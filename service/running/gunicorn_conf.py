"""gunicorn's settings for ``make run``: logs that never hold a token, and live streams that
end when their worker stops.

Tokens travel in ``Authorization: Bearer`` headers and, for pages opened on a phone, in
``?token=`` links. gunicorn's default access line prints the request line with its query
string and the ``Referer`` (a page's own address, token included), so this one has the path
without its query and no header but the user agent. gunicorn's error log can quote a
request line it could not parse, or the URI of a request that failed: a token in it is
blanked. Used as ``gunicorn -c python:service.running.gunicorn_conf``; flags after it still win.

Each worker listens on a socket of its own (``SO_REUSEPORT``): the kernel spreads new
connections over the workers. With gunicorn's one shared socket, whichever worker woke first
took every connection of a burst, so eight keep-alive clients all landed on one worker and
the other idled (measured: half the throughput of two workers).

The access line's atoms are made by ``AccessLog``, only those the line prints: gunicorn's
own logger made an atom of every header and environ key of every request.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from gunicorn import glogging, sock

reuse_port = True  # every worker's socket joins the same port (post_fork below)
accesslog = "-"  # stdout, next to make run's own messages
#: client, time, "METHOD /path HTTP/1.1", status, body bytes, milliseconds, user agent
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms "%(a)s"'


class AccessLog(glogging.Logger):
    """gunicorn's logger, making only the atoms ``access_log_format`` uses. gunicorn's own
    makes an atom of every request header, response header and WSGI environ key for every
    request: the access line took about a tenth of a worker's CPU under recorded play,
    mostly for those. The line is gunicorn's, atom for atom."""

    def atoms(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> dict:
        status = resp.status
        if isinstance(status, str):
            status = status.split(None, 1)[0]
        sent = getattr(resp, "sent", None)
        return {
            "h": environ.get("REMOTE_ADDR", "-"),
            "t": self.now(),
            "m": environ.get("REQUEST_METHOD"),
            "U": environ.get("PATH_INFO"),
            "H": environ.get("SERVER_PROTOCOL"),
            "s": status,
            "b": "-" if sent is None else str(sent),
            "M": request_time.seconds * 1000 + request_time.microseconds // 1000,
            "a": environ.get("HTTP_USER_AGENT", "-"),
        }


logger_class = AccessLog

_SECRET = re.compile(r"(?i)(token=|bearer\s+)[^\s&'\"]+")


class HideTokens(logging.Filter):
    """Blanks ``token=…`` and ``Bearer …`` in a message before any handler writes it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        hidden = _SECRET.sub(r"\1[hidden]", message)
        if hidden != message:
            record.msg, record.args = hidden, ()
        return True


def post_worker_init(worker: Any) -> None:
    """The workers parse requests and run the app: their error log gets the filter. The
    app's live streams (``service.web.api.watch``) learn when their worker stops serving,
    so a stopping server ends them at once instead of waiting out its graceful timeout."""
    worker.log.error_log.addFilter(HideTokens())
    config = getattr(worker.wsgi, "config", None)
    if config is not None:
        config["LIVE_SERVING"] = lambda: bool(worker.alive)


def when_ready(server: Any) -> None:
    """The master's TCP sockets are closed before any worker is forked (a socket nobody
    accepts on would still be handed its share of connections); their addresses are kept
    for ``post_fork``. Unix sockets stay shared: ``SO_REUSEPORT`` is TCP's."""
    addresses, kept = [], []
    for listener in server.LISTENERS:
        if isinstance(listener, sock.TCPSocket):  # TCP6Socket is one too
            addresses.append((type(listener), listener.sock.getsockname()))
            listener.close()
        else:
            kept.append(listener)
    server.cardledger_addresses, server.LISTENERS = addresses, kept


def post_fork(server: Any, worker: Any) -> None:
    """A new worker (a first one or a replacement) binds its own socket on each address."""
    own = [kind(address, server.cfg, server.log) for kind, address in server.cardledger_addresses]
    worker.sockets = [*worker.sockets, *own]
