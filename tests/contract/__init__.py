"""The contract every registered game keeps, read from the registry (``domain.games.SPECS``:
every game, variant and table size), so a new game is checked with no test edit.

Security first (``docs/rules/common.md``, Hidden information): no view, redacted log, API
answer, refusal, deal history, export or page shows a viewer a card, a seed or a salt it
may not know, where what it may know is worked out from the organiser's log and the rules
text (``knowledge.py``, ``sights/``), never from the game's own redaction. Then the log
replays, no card is lost or copied, legal actions are taken and garbage refused, matches
end. ``test_leaks_are_caught.py`` shows each check fails on a leaking copy of each game.
"""
