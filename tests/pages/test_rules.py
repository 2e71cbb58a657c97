"""``/rules`` and ``/rules/<game>``: the rules in the product. What a page documents is
checked against the registry and the service: every option a table of the game accepts
has a row with its meaning and the engine's default (an option added to a game without
its words fails here), no row names an option the service refuses, every variant has
its section, and every link of the pages leads somewhere."""

from __future__ import annotations

import html
import json
import re

import pytest
from flask.testing import FlaskClient

from domain.games import SPECS
from domain.games.options import COMMON
from service.web.pages.rules import rules_url
from tests.pages.tables import BODIES, ORGANISER

GAMES = list(SPECS)


def declared_defaults(game: str) -> dict[str, object]:
    """The plain defaults a game declares (``tests/domain/test_options.py`` checks that
    they are the engine's)."""
    options = {**COMMON, **SPECS[game].options}
    return {name: o.default for name, o in options.items() if o.default is not None}


def get_page(client: FlaskClient, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


def option_rows(page: str) -> dict[str, tuple[str, str]]:
    """Each options-table row: name -> (its ``data-default``, its meaning as text)."""
    rows = re.findall(
        r'<tr id="option-([\w-]+)" data-option="\1">.*?data-default="([^"]*)".*?'
        r'class="meaning">(.*?)</td>',
        page,
        re.S,
    )
    return {name: (html.unescape(default), re.sub(r"<[^>]+>|\s+", " ", meaning).strip())
            for name, default, meaning in rows}  # fmt: skip


def accepted_options(game: str) -> set[str]:
    return set(COMMON) | set(SPECS[game].options)


@pytest.mark.parametrize("game", GAMES)
def test_every_option_the_service_accepts_is_documented_with_its_default(
    client: FlaskClient, game: str
) -> None:
    rows = option_rows(get_page(client, f"/rules/{game}"))
    assert set(rows) == accepted_options(game)
    defaults = declared_defaults(game)
    for name, (default, meaning) in rows.items():
        assert len(meaning) > 20, f"{game}: option {name} has no explanation"
        assert (json.loads(default) if default else None) == defaults.get(name), name


@pytest.mark.parametrize("game", GAMES)
def test_a_table_accepts_every_documented_option_at_its_documented_default(
    client: FlaskClient, game: str
) -> None:
    """The page's names are the service's: a table opened with each of them, at the
    default the page gives (or seat 0 where it gives none), is opened; a name the page
    does not give is refused."""
    rows = option_rows(get_page(client, f"/rules/{game}"))
    body = next(b for b in BODIES.values() if b["game"] == game)
    rules = {name: json.loads(default) if default else 0 for name, (default, _) in rows.items()}
    response = client.post("/tables", json={**body, "rules": rules}, headers=ORGANISER)
    assert response.status_code == 201, response.get_json()
    refused = client.post("/tables", json={**body, "rules": {"house_rule": 1}}, headers=ORGANISER)
    assert refused.status_code == 422
    assert refused.get_json()["code"] == "unknown_option"


@pytest.mark.parametrize("game", GAMES)
def test_every_variant_has_its_section(client: FlaskClient, game: str) -> None:
    page = get_page(client, f"/rules/{game}")
    for variant in SPECS[game].variants:
        assert f'<h2 id="variant-{variant}">' in page, variant
        assert f"<code>{variant}</code>" in page


@pytest.mark.parametrize("game", GAMES)
def test_the_page_says_how_every_card_is_written(client: FlaskClient, game: str) -> None:
    page = get_page(client, f"/rules/{game}")
    for card in SPECS[game].deck:
        assert f'data-card="{card}"' in page
        assert f"<code>{html.escape(json.dumps(card), quote=False)}</code>" in page


@pytest.mark.parametrize("url", ["/rules", *(f"/rules/{g}" for g in GAMES)])
def test_the_contents_and_every_anchor_lead_somewhere(client: FlaskClient, url: str) -> None:
    page = get_page(client, url)
    ids = set(re.findall(r'\bid="([^"]+)"', page))
    anchors = re.findall(r'href="#([^"]+)"', page)
    assert set(anchors) <= ids
    if url != "/rules":
        toc = re.search(r'<nav class="toc".*?</nav>', page, re.S)
        assert toc is not None
        listed = re.findall(r'href="#([^"]+)"', toc.group(0))
        sections = re.findall(r'<h2 id="([^"]+)"', page)
        assert listed == [s for s in sections if s != "contents"]
    for path in set(re.findall(r'href="(/[^"#]*)"', page)):
        assert client.get(path).status_code == 200, path


def test_the_index_links_every_game(client: FlaskClient) -> None:
    page = get_page(client, "/rules")
    for game, spec in SPECS.items():
        assert f'<a href="/rules/{game}">{spec.name}</a>' in page


def test_an_unknown_game_has_no_rules_page(client: FlaskClient) -> None:
    response = client.get("/rules/chess")
    assert response.status_code == 404
    assert "bottle-imp" in response.get_data(as_text=True)


def test_rules_url_names_each_games_page_and_the_index_otherwise() -> None:
    assert [rules_url(g) for g in GAMES] == [f"/rules/{g}" for g in GAMES]
    assert rules_url("chess") == "/rules"


def test_the_home_page_links_the_rules(client: FlaskClient) -> None:
    page = get_page(client, "/")
    assert 'href="/rules"' in page
    for game in GAMES:
        assert f'href="/rules/{game}"' in page
