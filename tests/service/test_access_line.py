"""``make run``'s access line (``service.running.gunicorn_conf``): its logger makes only the
atoms the line uses, and the line is the one gunicorn's own logger writes, atom for atom
(whatever the request, the response and the environ hold)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, ClassVar

import pytest
from gunicorn import glogging
from gunicorn.config import Config

from service.running import gunicorn_conf


class Response:
    def __init__(self, status: Any, sent: int | None, headers: list[tuple[str, str]]) -> None:
        self.status, self.sent, self.headers = status, sent, headers


class Request:
    headers: ClassVar = [("HOST", "127.0.0.1:8000"), ("AUTHORIZATION", "Bearer secret")]


def environ(**more: str) -> dict[str, Any]:
    return {
        "REMOTE_ADDR": "127.0.0.1",
        "REQUEST_METHOD": "POST",
        "RAW_URI": "/tables/abc/actions?x=1",
        "PATH_INFO": "/tables/abc/actions",
        "QUERY_STRING": "x=1",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_USER_AGENT": 'curl/8.5 "quoted"',
        "wsgi.input": object(),
        **more,
    }


def line(logger: glogging.Logger, *args: Any) -> str:
    atoms = glogging.SafeAtoms(logger.atoms(*args))
    return gunicorn_conf.access_log_format % atoms


@pytest.mark.parametrize(
    ("response", "request_environ", "took"),
    [
        (Response("201 CREATED", 312, [("Content-Type", "application/json")]), environ(),
         timedelta(microseconds=4_321)),
        (Response(404, 0, []), environ(REQUEST_METHOD="GET"), timedelta(seconds=2, microseconds=7)),
        (Response("500 INTERNAL SERVER ERROR", None, []),
         {k: v for k, v in environ().items() if k not in ("HTTP_USER_AGENT", "REMOTE_ADDR")},
         timedelta(0)),
    ],
)  # fmt: skip
def test_the_access_line_is_gunicorns_own(
    response: Response, request_environ: dict[str, Any], took: timedelta
) -> None:
    ours, theirs = gunicorn_conf.AccessLog(Config()), glogging.Logger(Config())
    ours.now = theirs.now = lambda: "[06/Dec/2026:05:44:36 +0000]"
    args = (response, Request(), request_environ, took)
    assert line(ours, *args) == line(theirs, *args)
    assert set(ours.atoms(*args)) == {"h", "t", "m", "U", "H", "s", "b", "M", "a"}


def test_make_runs_gunicorn_config_takes_the_lean_logger() -> None:
    """The module read as gunicorn reads ``-c python:…`` (each setting it names, validated)."""
    config = Config()
    named = {k: v for k, v in vars(gunicorn_conf).items() if k in config.settings}
    for name, value in named.items():
        config.set(name, value)
    assert {"logger_class", "access_log_format", "accesslog", "reuse_port"} <= set(named)
    assert config.logger_class is gunicorn_conf.AccessLog
