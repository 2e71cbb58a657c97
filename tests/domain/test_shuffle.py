"""The audit-grade shuffle of ``docs/rules/common.md``: reproducible by anyone from the seed."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from domain.games.bottle_imp.cards import DECK
from domain.shuffle import deal_key, deal_seed, is_salt, seed_commitment, shuffle

# The published test vector (docs/rules/common.md).
DEMO_1 = [11, 22, 18, 21, 7, 12, 36, 14, 9, 13, 25, 4, 29, 30, 6, 2, 5, 20, 8, 17, 26, 32, 16,
          35, 3, 33, 27, 24, 34, 37, 23, 10, 15, 1, 31, 28]  # fmt: skip
# Our own second vector, checked against the reference below.
CLUB_NIGHT_7_3 = [16, 36, 23, 6, 5, 21, 2, 31, 29, 14, 28, 20, 33, 32, 35, 12, 27, 10, 9, 7, 25,
                  4, 15, 34, 1, 22, 37, 3, 24, 8, 13, 30, 11, 17, 18, 26]  # fmt: skip
# Our published vector of a salted table (docs/rules/common.md, "Deterministic shuffling", rule 1):
# salt SALT, seed "club-night-7", deal 1, the Bottle Imp deck.
SALT = "00112233445566778899aabbccddeeff"
SALTED_CLUB_NIGHT_7_1 = [21, 29, 32, 7, 3, 8, 9, 6, 13, 14, 30, 10, 4, 2, 20, 15, 16, 27, 26, 28,
                         1, 36, 33, 31, 24, 18, 12, 11, 25, 34, 22, 35, 17, 5, 37, 23]  # fmt: skip
SALTED_CLUB_NIGHT_7_COMMITMENT = "2f51119247a2b195440461f1a2608aaa2160601746e76bc41cd9adf0a3c84a5b"


def reference_shuffle(deck: list, seed: str) -> list:
    """The rules text, step by step, with no shortcuts."""
    cards = list(deck)
    c = 0

    def word() -> int:
        nonlocal c
        digest = hashlib.sha256(f"{seed}:{c}".encode()).digest()
        c += 1
        return int.from_bytes(digest[:8], "big")

    for i in range(len(cards) - 1, 0, -1):
        while True:
            w = word()
            if w < 2**64 - (2**64 % (i + 1)):
                break
        j = w % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def test_published_vector() -> None:
    assert shuffle(DECK, "demo/1") == DEMO_1


def test_second_vector() -> None:
    assert shuffle(DECK, deal_seed("club-night-7", 3)) == CLUB_NIGHT_7_3
    assert reference_shuffle(list(DECK), "club-night-7/3") == CLUB_NIGHT_7_3


def test_salted_vector() -> None:
    assert deal_key("club-night-7", SALT) == f"{SALT}:club-night-7"
    assert deal_seed("club-night-7", 1, SALT) == f"{SALT}:club-night-7/1"
    assert shuffle(DECK, deal_seed("club-night-7", 1, SALT)) == SALTED_CLUB_NIGHT_7_1
    assert reference_shuffle(list(DECK), f"{SALT}:club-night-7/1") == SALTED_CLUB_NIGHT_7_1
    assert seed_commitment("club-night-7", SALT) == SALTED_CLUB_NIGHT_7_COMMITMENT
    assert (
        hashlib.sha256(f"{SALT}:club-night-7".encode()).hexdigest()
        == SALTED_CLUB_NIGHT_7_COMMITMENT
    )
    # the salt changes every deal and the commitment: the bare seed reproduces neither
    assert shuffle(DECK, deal_seed("club-night-7", 1)) != SALTED_CLUB_NIGHT_7_1
    assert seed_commitment("club-night-7") != SALTED_CLUB_NIGHT_7_COMMITMENT


def test_a_salt_is_32_lower_case_hex_digits() -> None:
    assert is_salt(SALT)
    for bad in (None, 7, "", SALT[:-1], SALT + "0", SALT.upper(), "g" * 32, f" {SALT[1:]}"):
        assert not is_salt(bad), bad


@given(st.text(max_size=20), st.integers(1, 600))
def test_equals_the_reference_for_any_seed_and_size(seed: str, size: int) -> None:
    # up to 600 cards: past the draw counters kept as bytes (512) as well
    deck = list(range(size))
    assert shuffle(deck, seed) == reference_shuffle(deck, seed)


def test_the_deal_seed_and_the_commitment() -> None:
    assert deal_seed("club-night-7", 3) == "club-night-7/3"
    assert deal_seed(42, 1) == "42/1"
    assert seed_commitment("demo") == hashlib.sha256(b"demo").hexdigest()
    assert seed_commitment(42) == seed_commitment("42")
    # unsalted (simulations, logs recorded before salts): exactly as before
    assert deal_key("club-night-7") == "club-night-7"
    assert deal_seed(42, 1, None) == "42/1"
    assert seed_commitment(42, "ab" * 16) == hashlib.sha256(f"{'ab' * 16}:42".encode()).hexdigest()


def test_shuffling_keeps_the_deck_and_leaves_the_input_alone() -> None:
    deck = list(DECK)
    shuffled = shuffle(deck, "x/1")
    assert sorted(shuffled) == deck == list(DECK)
    assert shuffled != deck
