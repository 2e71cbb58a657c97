"""The hand record on a page (``domain.audit.deal_text``) in the page's language: its own
words around the notation (the heading, what was dealt, the alternatives, the score), and
who recorded each event as the replay names them. The API's record stays English."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask_babel import gettext

from domain.audit import RecordWords, deal_text
from service.web.pages.stand_ins import who_moved
from service.web.pages.words import name_of


def words(names: Sequence[str]) -> RecordWords:
    """The record's words in the page's language, naming each seat's person."""
    return RecordWords(
        heading=lambda table, deal, dealer: gettext(
            "Table %(table)s, deal %(deal)s (dealer: %(dealer)s)",
            table=table,
            deal=deal,
            dealer=dealer,
        ),
        heading_in_progress=lambda table, deal, dealer: gettext(
            "Table %(table)s, deal %(deal)s (dealer: %(dealer)s), in progress",
            table=table,
            deal=deal,
            dealer=dealer,
        ),
        dealer=lambda seat: "?" if seat is None else name_of(seat, names),
        dealt=lambda cards: gettext("Dealt: %(cards)s", cards=cards),
        could=lambda choices: gettext("[could: %(choices)s]", choices=choices),
        score=lambda score: gettext("Score: %(score)s", score=score),
        actor=lambda by: who_moved(by, names),
    )


def record_text(table_id: str, history: dict[str, Any], names: Sequence[str]) -> str:
    """The plain-text hand record of ``history`` as this page's language says it."""
    return deal_text(table_id, history, words(names))
