"""Application errors: what the command layer raises when it refuses, knowing no HTTP.

Each has a stable machine-readable ``code`` (the API's problem ``code``) and a
``detail`` for people. Only the HTTP edge (``service.web.problems.register_error_handlers``)
turns one into a status: ``NotFound`` 404, ``Unauthorized`` 401, ``Forbidden`` 403,
``Conflict`` 409, ``Unprocessable`` 422, ``Unavailable`` 503.
"""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    """A refusal the caller may read: a stable ``code`` and a ``detail``."""

    default_code = "error"

    def __init__(
        self, detail: str, code: str | None = None, *, extra: dict[str, Any] | None = None
    ) -> None:
        super().__init__(detail)
        self.code = code or self.default_code
        self.detail = detail
        self.extra = extra or {}


class NotFound(ApplicationError):
    """No such table, tournament, player or job."""

    default_code = "not_found"


class Unauthorized(ApplicationError):
    """The caller said who they are not, where it must."""

    default_code = "unauthorized"


class Forbidden(ApplicationError):
    """The caller may not do this."""

    default_code = "forbidden"


class Conflict(ApplicationError):
    """Not now: the state of things refuses it (a damaged log, a closed registration)."""

    default_code = "conflict"


class Unprocessable(ApplicationError):
    """Well-formed but refused (an unknown player, a reused idempotency key)."""

    default_code = "unprocessable"


class Unavailable(ApplicationError):
    """Something the answer needs cannot be read now (a stored row that is not JSON)."""

    default_code = "unavailable"
