"""The language a page speaks: English, Spanish, Finnish or French (README.md, Languages).

Chosen per request, in this order: a ``?lang=xx`` link (which the answer keeps in the
``lang`` cookie), the cookie, the club's language of the tournament a seat slip or wall
belongs to (:func:`speak_club_language`), then the best match of the browser's
``Accept-Language``; English otherwise. The words come from gettext catalogues
(``service/web/translations``) through Flask-Babel; the API's codes and fields never change.
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import quote, urlencode

from flask import Flask, Response, g, has_request_context, request
from flask_babel import Babel, format_datetime, get_locale, refresh

#: The languages the pages speak, English first (the words' source).
LANGUAGES = ("en", "es", "fi", "fr")
#: Each language in its own words, for the switcher.
NAMES = {"en": "English", "es": "Español", "fi": "Suomi", "fr": "Français"}
COOKIE = "lang"
_YEAR = 365 * 24 * 3600


def _known(language: str | None) -> str | None:
    return language if language in LANGUAGES else None


def choose() -> str:
    """The language of this request's page (Flask-Babel's locale selector)."""
    if not has_request_context():
        return LANGUAGES[0]
    return (
        _known(request.args.get(COOKIE))
        or _known(request.cookies.get(COOKIE))
        or _known(g.get("club_language"))
        or request.accept_languages.best_match(LANGUAGES)
        or LANGUAGES[0]
    )


def speak_club_language(language: str | None) -> None:
    """A page of the tournament (its seat slips, its wall) speaks the club's language when
    the viewer chose none; Flask-Babel keeps a locale per request, so the choice is
    made again with it."""
    g.club_language = language
    refresh()


def current() -> str:
    """The language this page speaks."""
    return str(get_locale() or LANGUAGES[0])


def template_in(template: str, language: str) -> str:
    """A page written once per language (a game's rules): English is ``rules.html``, the
    others ``rules.<language>.html`` beside it."""
    if language == LANGUAGES[0]:
        return template
    stem, dot, extension = template.rpartition(".")
    return f"{stem}.{language}.{extension}" if dot else f"{template}.{language}"


def switch_url(language: str) -> str:
    """This page's address with ``?lang=`` set to ``language`` (every other query kept),
    always on this site: a path opened as ``//elsewhere`` is not linked as another host."""
    query = [(k, v) for k, v in request.args.items(multi=True) if k != COOKIE]
    path = quote("/" + request.path.lstrip("/"))
    return f"{path}?{urlencode([*query, (COOKIE, language)])}"


def when(moment: str) -> str:
    """A stored ISO moment as this language writes a date and time (English: as stored)."""
    if current() == LANGUAGES[0]:
        return moment[:16].replace("T", " ")
    return format_datetime(datetime.fromisoformat(moment), "short")


def _remember(response: Response) -> Response:
    """A ``?lang=`` link is remembered, so every later page speaks it too."""
    asked = _known(request.args.get(COOKIE))
    if asked and request.cookies.get(COOKIE) != asked:
        response.set_cookie(COOKIE, asked, max_age=_YEAR, samesite="Lax", httponly=True)
    return response


def install(app: Flask) -> None:
    """Flask-Babel on ``app``; templates get ``languages``, ``language``, ``switch_url``."""
    Babel(app, locale_selector=choose, default_domain="messages")
    app.config["LANGUAGES"] = LANGUAGES  # what a problem's detail may speak (problems.py)
    app.after_request(_remember)
    app.jinja_env.policies["ext.i18n.trimmed"] = True  # as babel.cfg extracts {% trans %}
    app.jinja_env.globals.update(
        languages=NAMES, language=current, switch_url=switch_url, when=when
    )
