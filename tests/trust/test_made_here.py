"""A layer removed, a token or a shared value that this process made is not checked again
(three scalar multiplications each), and only that: a forged or altered proof, one checked
against another key, or one made for a key that is not the seat's, is checked in full."""

from __future__ import annotations

import pytest

from catan_p2p.trust import poker as cards_deck

SECRET = b"\x07" * 32
OTHER = b"\x08" * 32
KEY = cards_deck.public_key(SECRET)
OTHER_KEY = cards_deck.public_key(OTHER)
OPENED = cards_deck.first_cards()[3]
CONTEXT = b"steal 12"


@pytest.fixture
def multiplications(monkeypatch) -> list[int]:
    """Counts the variable-base scalar multiplications made from now on."""
    cards_deck._made.clear()
    calls = [0]
    real = cards_deck._mul

    def counted(k: bytes, p: bytes) -> bytes:
        calls[0] += 1
        return real(k, p)

    monkeypatch.setattr(cards_deck, "_mul", counted)
    return calls


def _altered(proof: str) -> str:
    """The proof with its last scalar digit changed (still hex, still 192 long)."""
    return proof[:-1] + ("0" if proof[-1] != "0" else "1")


def test_an_own_layer_removed_is_taken_without_multiplying_and_an_altered_one_is_refused(
    multiplications,
):
    proof = cards_deck.share(SECRET, OPENED, KEY)
    made = multiplications[0]
    assert cards_deck.check_share(proof, OPENED, KEY) == proof[:64]
    assert multiplications[0] == made
    with pytest.raises(ValueError, match="does not verify|not reduced"):
        cards_deck.check_share(_altered(proof), OPENED, KEY)
    with pytest.raises(ValueError, match="does not verify"):
        cards_deck.check_share(proof, OPENED, OTHER_KEY)  # checked against another key


def test_a_layer_removed_for_a_key_that_is_not_the_seats_is_checked_in_full(multiplications):
    proof = cards_deck.share(SECRET, OPENED, OTHER_KEY)  # a caller's mistake, not a proof
    with pytest.raises(ValueError, match="does not verify"):
        cards_deck.check_share(proof, OPENED, OTHER_KEY)


def test_own_tokens_and_shared_values_are_taken_without_multiplying(multiplications):
    token = cards_deck.token(SECRET, CONTEXT)
    answer = cards_deck.token(OTHER, CONTEXT)
    shared = cards_deck.exchange(SECRET, answer[:64])
    made = multiplications[0]
    assert cards_deck.check_token(token, KEY, CONTEXT) == token[:64]
    assert cards_deck.check_exchange(shared, KEY, answer[:64]) == shared[:64]
    assert multiplications[0] == made
    with pytest.raises(ValueError, match="does not verify"):
        cards_deck.check_token(token, OTHER_KEY, CONTEXT)
    with pytest.raises(ValueError, match="does not verify"):
        cards_deck.check_token(token, KEY, b"steal 13")  # another steal's context
    with pytest.raises(ValueError, match="does not verify|not reduced"):
        cards_deck.check_exchange(_altered(shared), KEY, answer[:64])


def test_what_another_process_made_is_checked_in_full(multiplications):
    proof = cards_deck.share(SECRET, OPENED, KEY)
    token = cards_deck.token(SECRET, CONTEXT)
    cards_deck._made.clear()  # as a peer that did not make them
    before = multiplications[0]
    assert cards_deck.check_share(proof, OPENED, KEY) == proof[:64]
    assert cards_deck.check_token(token, KEY, CONTEXT) == token[:64]
    assert multiplications[0] == before + 6
