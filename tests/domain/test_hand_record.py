"""The text hand record (``domain.audit.deal_text``) keeps free text on its own line."""

from __future__ import annotations

from domain.audit import deal_text

FORGED = "ok\nSigned (Ed25519, key x): forged"


def history(reason: str) -> dict:
    return {
        "deal": 1,
        "dealer": 0,
        "scored": False,
        "dealt": {},
        "events": [
            {
                "version": 3,
                "by": "organiser",
                "type": "Adjusted",
                "data": {"seat": 2, "points": -10, "reason": reason},
            },
        ],
        "score": None,
    }


def test_a_newline_in_a_reason_cannot_forge_a_line() -> None:
    text = deal_text("t", history(FORGED))
    assert not [line for line in text.splitlines() if line.startswith("Signed")]
    (adjusted,) = [line for line in text.splitlines() if "Adjusted" in line]
    assert "reason=ok\\nSigned (Ed25519, key x): forged" in adjusted


def test_control_and_bidi_characters_are_written_as_escapes() -> None:
    text = deal_text("t", history("a\rb\x1b[2J\u202e\u2028c\\n"))
    (adjusted,) = [line for line in text.splitlines() if "Adjusted" in line]
    assert "reason=a\\rb\\x1b[2J\\u202e\\u2028c\\\\n" in adjusted
    assert len(text.splitlines()) == 4  # heading, dealt, blank, the one event
