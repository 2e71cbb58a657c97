"""Tournaments: entries, seated rounds, match points, standings and ratings, pure.

``events`` and ``state`` are the tournament's stream and its fold, ``decide`` its
decider, ``pairing`` seats rounds from the seed, ``standings`` ranks the entries and
``ratings`` keeps players' OpenSkill ratings. No Flask, no SQLAlchemy.
"""
