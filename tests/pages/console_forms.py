"""Every form the organiser's console posts, with the fields its page gives it, for the
tests that fuzz them (``test_console_fuzz.py``, ``tests/integration/test_console_served.py``):
one list, so a new form is fuzzed by adding it here."""

from __future__ import annotations

from dataclasses import dataclass

from domain.games import SPECS

#: What a hostile or careless hand types into a field: superscripts and other digits,
#: numbers too long to read, control and invisible characters, a 100,000-character name.
HOSTILE = (
    "",
    " ",
    "²",
    "٣",
    "-0",
    "+7",
    "1e9",
    "9" * 5000,
    "-" + "9" * 40,
    "99999999999999999999",
    "x" * 100_000,
    "\x00",
    "Ann\x00",
    "\x1b[2J",
    "\u202eAnn",
    "Ann\u200b",
    "\u3164",
    "\u2800",
    "\ufeff",
    "true",
    "null",
    "<script>alert(1)</script>",
    '=HYPERLINK("http://x")',
    "ok\nSigned (Ed25519, key x): forged",
    "random",
    "bot:random",
    "player",
    "0",
    "1",
    "3",
)


@dataclass(frozen=True, slots=True)
class Form:
    """A console form: where it posts (``{table}``, ``{tournament}`` filled in), and the
    fields its page sends, with a value that the form takes."""

    path: str
    fields: dict[str, str]


def _seats() -> dict[str, str]:
    fields = {}
    for i in range(8):
        fields[f"seat-{i}-kind"] = "person" if i < 3 else "empty"
        fields[f"seat-{i}-who"] = ("Ann", "Bo", "Cy")[i] if i < 3 else ""
    return fields


def _options(game: str) -> dict[str, str]:
    return {f"opt-{name}": "" for name in SPECS[game].options}


def forms() -> list[Form]:
    """Every console form (logging out aside: it ends the session the others ride on)."""
    found = []
    for game in SPECS:
        found.append(
            Form(
                f"/console/tables/new?game={game}",
                {
                    "variant": "",
                    "first_dealer": "0",
                    "target_score": "",
                    "max_deals": "1",
                    "seed": "",
                    **_seats(),
                    **_options(game),
                },
            )
        )
        found.append(
            Form(
                f"/console/tournaments/new?game={game}",
                {
                    "name": "Club",
                    "variant": "",
                    "table_size": "3",
                    "rounds": "2",
                    "pairing": "swiss",
                    "fill_with_bots": "random",
                    "target_score": "",
                    "max_deals": "1",
                    "seed": "",
                    **_options(game),
                },
            )
        )
    found += [
        Form("/console/tables/new?game=", {"variant": "standard"}),
        Form("/console/tables/{table}/adjust", {"seat": "1", "points": "-2", "reason": "slow"}),
        Form("/console/tables/{table}/deal", {f"hands-{s}": "1 2 3" for s in range(4)}),
        Form("/console/tables/{table}/seats/1/token", {"sure": "yes"}),
        Form("/console/tables/{table}/seats/99999999999999999999/token", {"sure": "yes"}),
        Form(
            "/console/tables/{table}/seats/1/bot",
            {"bot": "random", "reason": "left early", "sure": "yes"},
        ),
        Form("/console/tables/{table}/seats/1/return", {}),
        Form("/console/tournaments/{tournament}/entries", {"name": "Eve", "player_id": ""}),
        Form("/console/tournaments/{tournament}/entries/1/withdraw", {"sure": "yes"}),
        Form("/console/tournaments/{tournament}/rounds", {}),
        Form("/console/tournaments/{tournament}/rounds/1/slips", {}),
        Form("/console/tournaments/{tournament}/finish", {"sure": ""}),
    ]
    return found
