"""Every page in English, Spanish, Finnish and French (README.md, Languages; issue 22).

The catalogues: ``messages.pot`` holds every word the code and templates mark (extracted
again here and compared), and each language's ``messages.po`` translates every one of them,
nothing fuzzy, every plural form given, the placeholders and the spaces at the ends kept,
and compiles. The pages: rendered in every language through the Flask client, no sentence
of the English page is left in another language's (beyond a short list of names), and the
language is chosen as ``docs/api.md`` says (``?lang=``, its cookie, a tournament's club
language for its slips and wall, ``Accept-Language``), the rules page by language.
Chromium's checks (phones at 390 px, a deal played in Spanish and in Finnish) are in
``test_languages_browser.py``.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient

from service.storage.db import get_database
from service.web.languages import LANGUAGES
from tests.factories import table_body
from tests.helpers import ORGANISER, make_test_app, open_table, post_table
from tests.pages.consoles import log_in, post
from tests.pages.tables import finish, play
from tests.service.tournament_play import enter, new_tournament, seat_round

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "service" / "web" / "translations"
OTHERS = LANGUAGES[1:]
#: Words a page may show alike in every language: names (of the product, the games, the
#: people and tournament of these tests), formats, the API's own words, and the seed texts'
#: Spanish that the English pages quote.
SAME_EVERYWHERE = (
    "Card Ledger",
    "The Bottle Imp",
    "Oh Quay",
    "Bestia",
    "Kerho",
    "Ann",
    "Eki",
    "JSON Lines",
    "Ed25519",
    "GET /signing-key",
    "queda en bestia",
)
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|\{(\w+)\}")


def catalogue(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def placeholders(text: str) -> set[str]:
    return {a or b for a, b in PLACEHOLDER.findall(text)}


def forms(message: object) -> list[str]:
    value = getattr(message, "string", "")
    return list(value) if isinstance(value, tuple | list) else [str(value)]


# --- the catalogues ----------------------------------------------------------------------


def test_the_template_catalogue_holds_every_marked_word(tmp_path: Path) -> None:
    """``make messages`` was run after the last word was marked: extracting again finds the
    same messages as the committed ``messages.pot``."""
    fresh = tmp_path / "messages.pot"
    subprocess.run(
        [Path(sys.executable).parent / "pybabel", "-q", "extract", "-F", "babel.cfg",
         "-k", "lazy_gettext", "-k", "lazy_ngettext:1,2", "-o", str(fresh), "."],
        cwd=ROOT, check=True,
    )  # fmt: skip
    committed = {
        m.id if isinstance(m.id, str) else m.id[0]
        for m in catalogue(TRANSLATIONS / "messages.pot")
        if m.id
    }
    extracted = {m.id if isinstance(m.id, str) else m.id[0] for m in catalogue(fresh) if m.id}
    assert sorted(extracted - committed) == [], "run make messages: these are not in messages.pot"
    assert sorted(committed - extracted) == [], "run make messages: these are no longer marked"


@pytest.mark.parametrize("language", OTHERS)
def test_every_message_is_translated_in_every_plural_form(language: str) -> None:
    po = catalogue(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po")
    pot = catalogue(TRANSLATIONS / "messages.pot")
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in po if m.id}
    missing = [
        m.id for m in pot if m.id and (m.id if isinstance(m.id, str) else m.id[0]) not in ids
    ]
    assert missing == [], f"{language}: run pybabel update; not in the catalogue yet"
    fuzzy = [m.id for m in po if m.id and m.fuzzy]
    assert fuzzy == [], f"{language}: fuzzy, to be checked and unmarked"
    untranslated = [m.id for m in po if m.id and not all(s.strip() for s in forms(m))]
    assert untranslated == [], f"{language}: untranslated"
    plural = [m.id for m in po if m.pluralizable and len(forms(m)) != po.num_plurals]
    assert plural == [], f"{language}: a plural form missing ({po.num_plurals} wanted)"


@pytest.mark.parametrize("language", OTHERS)
def test_every_translation_keeps_its_placeholders(language: str) -> None:
    """A translation names the values the code passes, no other: ``%(name)s`` and ``{name}``
    alike (a plural's singular may leave its count out)."""
    broken = []
    for m in catalogue(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po"):
        if not m.id or not any(forms(m)):
            continue
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        wanted = set().union(*map(placeholders, ids))
        for n, text in enumerate(forms(m)):
            given = placeholders(text)
            last = n == len(forms(m)) - 1
            if given - wanted or ((not m.pluralizable or last) and given != wanted):
                broken.append((ids[0], text))
    assert broken == [], f"{language}: placeholders changed"


@pytest.mark.parametrize("language", OTHERS)
def test_every_translation_keeps_the_spaces_at_its_ends(language: str) -> None:
    """A piece joined to others (" and ", "%(name)s plays ") keeps the space at its end, or
    the page runs words together ("Ann et Bo" said "AnnetBo"); a translation that reorders
    may put its own punctuation there instead (Finnish ") ja %(name)s (")."""
    broken = []
    for m in catalogue(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po"):
        said = m.id if isinstance(m.id, str) else m.id[0]
        for text in filter(None, forms(m)):
            starts = not said[:1].isspace() or text[:1].isspace() or text[:1] in ")]},.;:"
            ends = not said[-1:].isspace() or text[-1:].isspace() or text[-1:] in "(["
            if not (starts and ends):
                broken.append((said, text))
    assert broken == [], f"{language}: spaces lost at the ends"


@pytest.mark.parametrize("language", OTHERS)
def test_every_catalogue_compiles_complete(language: str, tmp_path: Path) -> None:
    """``pybabel compile --statistics``: no error, every message translated."""
    done = subprocess.run(
        [Path(sys.executable).parent / "pybabel", "compile", "--statistics", "-l", language,
         "-i", str(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po"),
         "-o", str(tmp_path / "messages.mo")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode == 0 and "error" not in said.lower(), said
    counted = re.search(r"(\d+) of (\d+) messages \((\d+)%\) translated", said)
    assert counted and counted[1] == counted[2], said
    assert (tmp_path / "messages.mo").exists(), said


# --- the pages ---------------------------------------------------------------------------


class Words(HTMLParser):
    """What a person reads on a page: its text nodes and the words of its titles, labels and
    placeholders; no script, style, code or plain-text record (ids, notation, the API's)."""

    SKIP = ("script", "style", "code", "pre", "template")
    SAID = ("title", "aria-label", "placeholder", "alt", "data-reason")

    def __init__(self) -> None:
        super().__init__()
        self.skipping = 0
        self.found: list[str] = []
        self.lang = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        if tag == "html":
            self.lang = dict(attrs).get("lang") or ""
        self.found += [v for k, v in attrs if k in self.SAID and v]

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping = max(0, self.skipping - 1)

    def handle_data(self, data: str) -> None:
        if not self.skipping and data.strip():
            self.found.append(data)


def words_of(page: str) -> tuple[str, set[str]]:
    parser = Words()
    parser.feed(page)
    said = {" ".join(w.split()) for w in parser.found}
    return parser.lang, said


def sentence(text: str) -> bool:
    """Words a person reads as a phrase: two words or more of three letters or more, once
    the names every language shares are left out."""
    text = re.sub(r"https?://\S+", " ", text)
    for name in SAME_EVERYWHERE:
        text = text.replace(name, " ")
    return len(re.findall(r"\b[A-Za-z]{3,}\b", text)) >= 2


@dataclass
class Club:
    """An app with something on every page: a tournament seated, tables of every game under
    way, a finished table, and the clients that open them."""

    app: Flask
    pages: dict[str, tuple[FlaskClient, str]] = field(default_factory=dict)


def seat_client(app: Flask, path: str, token: str) -> FlaskClient:
    """A browser that opened a seat's (or an entry's) link once."""
    client = app.test_client()
    assert client.get(f"{path}?token={token}").status_code == 303
    return client


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    path = tmp_path_factory.mktemp("languages") / "cardledger.db"
    app = make_test_app(f"sqlite:///{path}")
    api = app.test_client()
    public = app.test_client()
    console = log_in(app.test_client())
    tournament = new_tournament(api, name="Kerho", table_size=3, rounds=2)
    entries = enter(api, tournament, "Ann", "Bo", "Cy")
    seated = seat_round(api, tournament)
    round_table = seated["tables"][0]["id"]
    pages: dict[str, tuple[FlaskClient, str]] = {
        "home": (public, "/"),
        "rules": (public, "/rules"),
        "not found": (public, "/rules/no-such-game"),
        "standings": (public, f"/tournaments/{tournament}/standings.html"),
        "wall": (public, f"/tournaments/{tournament}/wall"),
        "me": (seat_client(app, f"/tournaments/{tournament}/me", entries[0]["token"]),
               f"/tournaments/{tournament}/me"),
        "console": (console, "/console"),
        "console: players": (console, "/console/players"),
        "console: new tournament": (console, "/console/tournaments/new"),
        "console: new table": (console, "/console/tables/new"),
        "console: tournament": (console, f"/console/tournaments/{tournament}"),
        "console: slips": (console, f"/console/tournaments/{tournament}/rounds/1/slips"),
        "console: round's table": (console, f"/console/tables/{round_table}"),
    }  # fmt: skip
    waiting = new_tournament(api, name="Kerho", table_size=3)
    early = enter(api, waiting, "Ann")[0]
    me = f"/tournaments/{waiting}/me"
    pages["me: before round 1"] = (seat_client(app, me, early["token"]), me)
    dealt_by_hand = post_table(api, table_body(seats=[{"name": n} for n in ("Ann", "Bo", "Cy")]))
    pages["console: record a deal"] = (console, f"/console/tables/{dealt_by_hand.id}/deal")
    for game in ("bottle-imp", "bestia", "oh-quay"):
        pages[f"rules: {game}"] = (public, f"/rules/{game}")
        pages[f"console: new tournament of {game}"] = (
            console, f"/console/tournaments/new?game={game}")  # fmt: skip
        pages[f"console: new table of {game}"] = (console, f"/console/tables/new?game={game}")
        table = open_table(api, game)
        play(api, table, lambda s: s["version"] >= 4)
        view = f"/tables/{table.id}/view"
        pages[f"{game}: seat"] = (seat_client(app, view, str(table.tokens[0])), view)
        pages[f"{game}: organiser"] = (console, f"{view}?as=organiser")
        pages[f"{game}: console"] = (console, f"/console/tables/{table.id}")
        pages[f"{game}: public"] = (public, view)
        done = open_table(
            api, game, players=2 if game == "oh-quay" else 3, max_deals=1, target_score=None
        )
        finish(api, done)
        pages[f"{game}: finished"] = (public, f"/tables/{done.id}/view")
        pages[f"{game}: replay"] = (public, f"/tables/{done.id}/deals/1/replay")
    yield Club(app, pages)
    get_database(app).engine.dispose()


def render(club: Club, name: str, language: str) -> str:
    client, path = club.pages[name]
    joiner = "&" if "?" in path else "?"
    page = client.get(
        f"{path}{joiner}lang={language}", headers={"Accept": "text/html"}, follow_redirects=True
    )
    assert page.status_code in (200, 404), (name, page.status_code)
    return page.get_data(as_text=True)


PAGES = [
    "home", "rules", "not found", "standings", "wall", "me", "me: before round 1", "console",
    "console: players",
    "console: new tournament", "console: new table", "console: tournament", "console: slips",
    "console: round's table", "console: record a deal",
    *[f"{game}: {kind}" for game in ("bottle-imp", "bestia", "oh-quay")
      for kind in ("seat", "organiser", "console", "public", "finished", "replay")],
    *[f"{kind}{game}" for game in ("bottle-imp", "bestia", "oh-quay")
      for kind in ("rules: ", "console: new tournament of ", "console: new table of ")],
]  # fmt: skip


@pytest.mark.parametrize("language", OTHERS)
def test_no_english_sentence_is_left_on_any_page(club: Club, language: str) -> None:
    left: dict[str, list[str]] = {}
    for name in PAGES:
        _, english = words_of(render(club, name, "en"))
        lang, said = words_of(render(club, name, language))
        assert lang == language, (name, lang)
        same = sorted(w for w in said & english if sentence(w))
        if same:
            left[name] = same
    assert left == {}, f"English left on the {language} pages"


def test_spanish_pages_call_the_bottle_imp_as_its_spanish_seed_does(club: Club) -> None:
    """*El diablo de la botella* on every Spanish page that names the game, never the
    English title (the other languages' seed texts keep *The Bottle Imp*)."""
    named = [name for name in PAGES if "The Bottle Imp" in render(club, name, "en")]
    assert {"home", "rules", "rules: bottle-imp", "bottle-imp: seat"} <= set(named), named
    for name in named:
        spanish = html.unescape(render(club, name, "es"))
        assert "The Bottle Imp" not in spanish, name
        assert "El diablo de la botella" in spanish, name


def test_the_english_pages_say_html_lang_en(club: Club) -> None:
    for name in ("home", "wall", "standings", "console", "bottle-imp: seat"):
        assert words_of(render(club, name, "en"))[0] == "en", name


# --- how a page's language is chosen ------------------------------------------------------


def test_accept_language_then_a_link_then_its_cookie(club: Club) -> None:
    browser = club.app.test_client()
    assert 'lang="fi"' in browser.get("/", headers={"Accept-Language": "fi-FI,fi;q=0.9"}).text
    assert 'lang="fr"' in browser.get("/", headers={"Accept-Language": "de, fr-CA;q=0.5"}).text
    assert 'lang="en"' in browser.get("/", headers={"Accept-Language": "de"}).text
    chosen = browser.get("/rules?lang=es", headers={"Accept-Language": "fi"})
    assert 'lang="es"' in chosen.text
    assert "lang=es" in chosen.headers["Set-Cookie"]
    assert 'lang="es"' in browser.get("/", headers={"Accept-Language": "fi"}).text  # the cookie
    assert 'lang="es"' in browser.get("/?lang=xx").text  # no such language: the cookie holds


def test_every_page_links_itself_in_every_language(club: Club) -> None:
    page = club.app.test_client().get("/console/players?lang=fi").text  # a 401 page too
    for language in LANGUAGES:
        assert f'hreflang="{language}"' in page
    page = render(club, "bottle-imp: public", "en")
    table = club.pages["bottle-imp: public"][1]
    assert f'href="{table}?lang=fr"' in page


def test_the_switcher_links_this_site_only(club: Club) -> None:
    from service.web.languages import switch_url

    asked = {"PATH_INFO": "//elsewhere.example/x", "QUERY_STRING": "a=1&lang=es"}
    with club.app.test_request_context(environ_overrides=asked):
        assert switch_url("fi") == "/elsewhere.example/x?a=1&lang=fi"


def test_a_tournaments_club_language_speaks_on_its_slips_and_wall(club: Club) -> None:
    api = club.app.test_client()
    refused = api.post(
        "/tournaments", json={**_body(), "language": "de"}, headers=ORGANISER
    ).get_json()
    assert refused["code"] == "validation_error" and "language" in refused["errors"]
    tournament = new_tournament(api, table_size=3, language="fi")
    assert api.get(f"/tournaments/{tournament}").get_json()["language"] == "fi"
    enter(api, tournament, "Ann", "Bo", "Cy")
    seat_round(api, tournament)
    wall = club.app.test_client().get(f"/tournaments/{tournament}/wall")
    assert 'lang="fi"' in wall.text
    console = club.pages["console"][0]
    assert 'lang="fi"' in console.get(f"/console/tournaments/{tournament}/rounds/1/slips").text
    chose = club.app.test_client()
    chose.get("/?lang=fr")
    assert 'lang="fr"' in chose.get(f"/tournaments/{tournament}/wall").text  # the viewer's own
    untold = new_tournament(api, table_size=3)
    assert api.get(f"/tournaments/{untold}").get_json()["language"] is None


def _body() -> dict[str, object]:
    from tests.factories import tournament_body

    return tournament_body(table_size=3)


@pytest.mark.parametrize("language", OTHERS)
def test_a_rules_page_is_the_games_own_page_in_that_language(club: Club, language: str) -> None:
    for game in ("bottle-imp", "bestia", "oh-quay"):
        page = render(club, f"rules: {game}", language)
        english = render(club, f"rules: {game}", "en")
        ids = set(re.findall(r'\bid="([^"]+)"', english))
        assert ids <= set(re.findall(r'\bid="([^"]+)"', page)), (game, language)
        assert page != english


@pytest.mark.parametrize("language", OTHERS)
def test_the_app_does_not_start_without_a_rules_page_in_every_language(language: str) -> None:
    """The startup check (``service.web.pages.games.checks``) names a missing rules page."""
    from domain.games import SPECS
    from service.web.pages.games import WEB
    from service.web.pages.games.checks import missing_pieces

    missing = f"games/bestia/rules.{language}.html"
    found = missing_pieces(SPECS, WEB, lambda name: name != missing)
    assert found == [f"bestia: its rules page in {language!r}, {missing!r}, is not there"]
    assert missing_pieces(SPECS, WEB, lambda name: True) == []


def evening(app: Flask, language: str) -> list[str]:
    """The README's evening from the console in ``language``: the pages its forms answer
    with (a tournament created, people entered, one twice, round 1 opened, round 2 refused,
    a form typed wrong, a finish not ticked)."""
    console = log_in(app.test_client())
    console.get(f"/?lang={language}")
    new = "/console/tournaments/new?game=bottle-imp"
    form = {"name": "Kerho", "variant": "standard", "table_size": "4", "rounds": "2",
            "pairing": "swiss", "max_deals": "1", "fill_with_bots": "random"}  # fmt: skip
    created = post(console, new, form, follow_redirects=True)
    page = re.search(r"/console/tournaments/([0-9a-f]{32})", created.request.path)
    assert page, created.request.path
    tournament = f"/console/tournaments/{page[1]}"
    answers = [created.text]
    for name in ("Ann", "Bo", "Cy", "ann"):
        answers.append(
            post(console, f"{tournament}/entries", {"name": name}, follow_redirects=True).text
        )
    for _ in range(2):
        answers.append(post(console, f"{tournament}/rounds", {}, follow_redirects=True).text)
    wrong = {"name": "", "table_size": "9", "rounds": "x", "max_deals": "²"}
    answers.append(post(console, new, wrong, follow_redirects=True).text)
    answers.append(post(console, f"{tournament}/finish", {}, follow_redirects=True).text)
    return answers


@pytest.mark.parametrize("language", OTHERS)
def test_the_evenings_console_answers_in_the_language(club: Club, language: str) -> None:
    english, said = evening(club.app, "en"), evening(club.app, language)
    left = []
    for page_en, page in zip(english, said, strict=True):
        lang, words = words_of(page)
        assert lang == language
        left += sorted(w for w in words & words_of(page_en)[1] if sentence(w))
    assert left == [], f"English left on the {language} console's answers"
