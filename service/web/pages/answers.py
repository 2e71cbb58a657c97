"""How every page answers: HTML that no shared cache keeps (a page may carry a seat's hand
or a seat's link), and a refusal as an error page with the status and code the API would
give it."""

from __future__ import annotations

from flask import Blueprint, Response, render_template

from domain.errors import RuleViolation
from service.core.refusals import ApplicationError
from service.web.pages.refusals import said_by_code, worded
from service.web.problems import ApiError, status_of


def html(page: str, status: int = 200) -> Response:
    response = Response(page, status=status, mimetype="text/html")
    response.headers["Cache-Control"] = "no-store"
    return response


def error_page(status: int, code: str, detail: str, back: str | None = None) -> Response:
    """The refusal in words, with its status and stable code (and a way ``back``)."""
    page = render_template("pages/error.html", status=status, code=code, detail=detail, back=back)
    return html(page, status)


def _api_error(error: ApiError) -> Response:
    return error_page(error.status, error.code, error.detail)


def _refusal(error: ApplicationError) -> Response:
    """The command layer's refusals, at the status the API gives them."""
    return error_page(status_of(error), error.code, said_by_code(error.code, error.detail))


def _broken_rule(error: RuleViolation) -> Response:
    return error_page(422, error.code, worded(error))


def answer_errors_with_pages(blueprint: Blueprint, *, rules: bool = False) -> None:
    """This blueprint's ``ApiError`` and ``ApplicationError`` (and, with ``rules``, a
    broken rule) are answered with an error page, not a problem+json."""
    blueprint.register_error_handler(ApiError, _api_error)
    blueprint.register_error_handler(ApplicationError, _refusal)
    if rules:
        blueprint.register_error_handler(RuleViolation, _broken_rule)
