"""The live part of a table page (``#table``), rendered for the first load and again for
each piece of news and after each action the page sends.

One function builds it from a ``TableLog`` and a viewer, so the page, its news and its
action answers cannot disagree about what that viewer sees or may do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flask import current_app, render_template
from flask_babel import gettext, ngettext

from domain.events import event_type
from domain.table import ORGANISER, Viewer
from service.storage.tablelog import TableLog
from service.web.pages import cards, games, stand_ins
from service.web.pages.games import scene
from service.web.pages.games.checks import undrawn
from service.web.pages.moves import Group, SeatMoves, Undrawable, moves
from service.web.pages.scenes import Pile, Scene, Slot, seat_names
from service.web.pages.session import csrf_token
from service.web.pages.words import name_of, status_words

#: How often a live table page asks for news, in milliseconds (the app's ``PAGES_POLL_MS``
#: setting overrides it; browser tests poll faster).
POLL_MS = 2000


def faces(game: str) -> Callable[[cards.Card], cards.Face]:
    """The templates' ``face(card)`` for this table's game."""
    return lambda card: games.face(game, card)


def viewer_label(viewer: Viewer, names: list[str]) -> str:
    if viewer == ORGANISER:
        return gettext("Organiser: you see every card")
    if isinstance(viewer, int):
        return gettext(
            "You are %(name)s: you see your own hand and what lies face up", name=names[viewer]
        )
    return gettext("You see what lies face up")


def deals(log: TableLog) -> list[tuple[int, bool]]:
    """Each deal of the table and whether it is scored (its cards public), by the events
    its game declares (``GameSpec.landmarks``)."""
    marks = log.rules.spec.landmarks
    found: dict[int, bool] = {}
    for event in log.events:
        kind = event_type(event)
        if marks.starts_deal(kind):
            found[event.deal] = False
        elif marks.scores_deal(kind):
            found[event.deal] = True
    return sorted(found.items())


def last_trick(log: TableLog, names: Sequence[str]) -> Pile | None:
    """The last completed trick of the current deal, as a pile with its winner marked.

    Read from the log's completed tricks (``Landmarks.trick_completed``): a trick's cards
    were played face up, so every viewer has seen them (``GET /events`` shows them to all)."""
    marks = log.rules.spec.landmarks
    for event in reversed(log.events):
        kind = event_type(event)
        if marks.starts_deal(kind):
            return None
        if marks.completes_trick(kind):
            won = games.pages_of(log.opened.game).winning_card(event._asdict())
            slots = [
                Slot(card, names[seat], "winner" if card == won else "")
                for seat, card in zip(event.seats, event.cards, strict=True)
            ]
            label = gettext(
                "Last trick (%(trick)s): won by %(name)s",
                trick=event.trick,
                name=names[event.winner],
            )
            return Pile(label, slots, "trick last")
    return None


def _turn(
    view: Mapping[str, Any], viewer: Viewer, names: Sequence[str], offered: list[SeatMoves]
) -> dict[str, Any]:
    """Whose turn it is, in words (the viewer's first move named), and whether it is the
    viewer's."""
    to_act = list(view["to_act"])
    if view["status"] == "finished":
        ranking = view.get("ranking") or []
        first = [names[s] for s, place in enumerate(ranking) if place == 1]
        if first:
            joined = gettext(" and ").join(first)
            words = gettext("The match is over: %(names)s first.", names=joined)
        else:
            words = gettext("The match is over.")
        return {"mine": False, "words": words, "kind": "over"}
    who = ", ".join(names[s] for s in to_act)
    dealing = view["status"] == "waiting_for_deal"
    if isinstance(viewer, int) and viewer in to_act:
        words = gettext("Your deal.") if dealing else gettext("Your turn.")
        own = [m for m in offered if m.seat == viewer]
        if own and not dealing:
            prompt = own[0].groups[0].prompt.split(":")[0]
            move = prompt[:1].lower() + prompt[1:]
            words = gettext("Your turn: %(move)s.", move=move)
        if len(to_act) > 1:
            others = ", ".join(names[s] for s in to_act if s != viewer)
            words += gettext(" (%(names)s also to act.)", names=others)
        return {"mine": True, "words": words, "kind": "mine"}
    if not to_act:
        return {"mine": False, "words": gettext("The table is moving…"), "kind": "wait"}
    dealer_acts = dealing and len(to_act) == 1
    if viewer == ORGANISER:
        if dealer_acts:
            words = gettext("%(names)s deals: record it below.", names=who)
        else:
            words = gettext("%(names)s to act: record it below.", names=who)
        return {"mine": False, "words": words, "kind": "scorer"}
    if dealer_acts:
        words = gettext("Waiting: %(names)s deals.", names=who)
    else:
        words = gettext("Waiting: %(names)s to act.", names=who)
    return {"mine": False, "words": words, "kind": "wait"}


def rulings(log: TableLog, names: Sequence[str]) -> list[tuple[str, str]]:
    """Every director's ruling of the match in words, for every viewer: a ruling moves
    points (Bestia: chips between the seat and the pot, ``docs/rules/common.md``,
    "Directors' rulings") that a page must account for."""
    chips = log.opened.game == "bestia"
    out = []
    for event in log.events:
        if event_type(event) != "Adjusted":
            continue
        who, points = name_of(event.seat, names), event.points
        if chips and points > 0:
            said = ngettext(
                "%(name)s: %(num)s chip from the pot (%(reason)s)",
                "%(name)s: %(num)s chips from the pot (%(reason)s)",
                abs(points),
                name=who,
                reason=event.reason,
            )
        elif chips:
            said = ngettext(
                "%(name)s: %(num)s chip into the pot (%(reason)s)",
                "%(name)s: %(num)s chips into the pot (%(reason)s)",
                abs(points),
                name=who,
                reason=event.reason,
            )
        else:
            said = ngettext(
                "%(name)s: %(points)s point (%(reason)s)",
                "%(name)s: %(points)s points (%(reason)s)",
                abs(points),
                name=who,
                points=format(points, "+d"),
                reason=event.reason,
            )
        out.append((gettext("Ruling"), said))
    return out


def _shows_cards(groups: Sequence[Group]) -> bool:
    """Whether a seat's moves already show its cards (a row of cards, or a builder's)."""
    return any(
        g.kind == "cards" or any(v.card is not None for f in g.fields for v in f.values)
        for g in groups
    )


def _dock(
    drawn: Scene, seat: int, offered: list[SeatMoves], finished: bool
) -> dict[str, Any] | None:
    """What a seat's page keeps within reach at the bottom of a phone's screen: its moves
    when it has any, and its hand unless those moves show the cards already; nothing once
    the match is over with the hand played out (no "no cards yet" under a finished match)."""
    own = next((m for m in offered if m.seat == seat), None)
    hand = [p.json() for p in drawn.seats[seat].piles if "hand" in p.kind and p.slots]
    if own is not None and _shows_cards(own.groups):
        hand = []
    if finished and own is None and not hand:
        return None
    return {"moves": own, "hand": hand, "empty": own is None and not hand}


def context(log: TableLog, viewer: Viewer, token: str | None) -> dict[str, Any]:
    """Everything ``pages/_table.html`` draws for ``viewer`` (``token``: the cookie's, for
    the page's CSRF token; never put in the page itself)."""
    shown = log.rules.view(log.state, viewer)
    names = seat_names(log.opened)
    drawn: Scene = scene(shown, names)
    last = last_trick(log, names)
    if last is not None:
        drawn.centre.append(last)
    drawn.facts.extend(rulings(log, names))
    stand_ins.mark(drawn, log, names, viewer)  # a seat a bot plays, and why
    seat = viewer if isinstance(viewer, int) else None
    if seat is not None and seat < len(drawn.seats):
        drawn.seats[seat].name = gettext("%(name)s (you)", name=names[seat])
    table_id = log.id
    game = games.pages_of(log.opened.game)
    missing = undrawn(log.rules.spec, game)
    if missing:  # loudly, for every viewer: never a panel silently short of a move
        raise Undrawable(f"{log.opened.game}: the pages cannot draw an action {missing[0]!r}")
    acts = stand_ins.acting(log, viewer)  # None: a bot plays the viewer's seat now
    offered = moves(log, shown, acts, names, game.drawers)
    turn = _turn(shown, acts, names, offered)
    if acts is None and seat is not None and shown["status"] != "finished":
        # a bot plays this person's seat: their turn line says so, not whose turn it is
        turn = {"mine": False, "words": stand_ins.yours_words(log, seat), "kind": "wait"}
    # the organiser's view of a table where this browser also holds a seat is asked for
    asked = "?as=organiser" if viewer == ORGANISER else ""
    live = {
        "version": log.version,
        "finished": shown["status"] == "finished",
        "mine": turn["mine"],
        "news": f"/tables/{table_id}/view/news{asked}",
        "act": f"/tables/{table_id}/view/act{asked}",
        "csrf": csrf_token(token) if token else None,
        "interval": current_app.config.get("PAGES_POLL_MS", POLL_MS),
        "quiet_ms": current_app.config["CARDLEDGER"].tap_quiet_ms,
    }
    return {
        "table_id": table_id,
        "opened": log.opened,
        "game_name": games.name(log.opened.game),
        "deal_word": games.deal_word(log.opened.game),
        "view": shown,
        "status_words": status_words(shown["status"]),
        "version": log.version,
        "names": names,
        "scene": drawn.json(),
        "face": faces(log.opened.game),
        "viewer": viewer_label(viewer, names),
        "seat": seat,
        "turn": turn,
        "moves": offered,
        "dock": (_dock(drawn, seat, offered, live["finished"]) if seat is not None else None),
        "deals": [(k, scored or viewer == ORGANISER) for k, scored in deals(log)],
        "live": live,
        "damage": log.damage,
    }


def fragment(log: TableLog, viewer: Viewer, token: str | None) -> str:
    """The ``#table`` element alone, for the page's script to swap in."""
    return render_template("pages/_table.html", **context(log, viewer, token))
