"""A shuffle proof's rounds run side by side (libsodium multiplies without Python's lock):
the same pass and proof as one round after another, the same refusals of a forged proof,
and a forked process makes its own threads."""

from __future__ import annotations

import multiprocessing

import pytest

from catan_p2p.trust import poker as cards_deck

SECRET = b"\x05" * 32
CONTEXT = cards_deck.shuffle_context((cards_deck.public_key(SECRET),), 0)
KEY = cards_deck.public_key(SECRET)


def _proved(monkeypatch, cores: int) -> tuple[tuple[str, ...], str]:
    monkeypatch.setattr(cards_deck, "_cores", lambda: cores)
    return cards_deck.prove_shuffle(cards_deck.first_cards(), SECRET, CONTEXT)


def _check(proof: str, after: tuple[str, ...]) -> None:
    cards_deck._proved.clear()  # checked in full, as a peer that did not make it
    cards_deck.check_shuffle.cache_clear()
    cards_deck.check_shuffle(cards_deck.first_cards(), after, KEY, proof, CONTEXT)


def _refusal(monkeypatch, cores: int, proof: str, after: tuple[str, ...]) -> str:
    monkeypatch.setattr(cards_deck, "_cores", lambda: cores)
    with pytest.raises(ValueError) as refused:
        _check(proof, after)
    return str(refused.value)


def test_rounds_side_by_side_make_the_pass_and_proof_of_one_round_after_another(monkeypatch):
    assert _proved(monkeypatch, 2) == _proved(monkeypatch, 1)
    after, proof = _proved(monkeypatch, 4)
    _check(proof, after)


def _opened_rounds(proof: str) -> list[tuple[int, int, int]]:
    """(bit, start, end) of each round's opening in ``proof``."""
    bits = cards_deck._bits(bytes.fromhex(proof[:64]))
    map_hex = cards_deck._map_hex(cards_deck.DECK_SIZE)
    out, at = [], 64
    for bit in bits:
        end = at + (map_hex if bit else 64)
        out.append((bit, at, end))
        at = end
    return out


def test_a_forged_round_is_refused_with_the_same_reason_on_one_core_or_several(monkeypatch):
    after, proof = _proved(monkeypatch, 1)
    rounds = _opened_rounds(proof)
    # Two key rounds made malformed (a repeated position), a seed round changed before
    # them: whatever runs first, the refusal is the one a loop over the rounds gives.
    keyed = [r for r in rounds if r[0]][-2:]
    forged = proof
    for *_, end in keyed:
        forged = forged[: end - 2] + forged[end - 4 : end - 2] + forged[end:]
    seed = next(r for r in rounds if not r[0])
    reseeded = forged[: seed[1]] + "0" * 64 + forged[seed[2] :]
    for wrong in (
        forged,
        reseeded,
        proof[:100] + ("0" if proof[100] != "0" else "1") + proof[101:],
    ):
        assert _refusal(monkeypatch, 3, wrong, after) == _refusal(monkeypatch, 1, wrong, after)
    assert "not a scalar and a permutation" in _refusal(monkeypatch, 3, forged, after)


def _prove_in_child(queue) -> None:  # type: ignore[no-untyped-def]
    after, proof = cards_deck.prove_shuffle(cards_deck.first_cards(), SECRET, CONTEXT)
    queue.put((after, proof))


@pytest.mark.slow
def test_a_forked_process_makes_its_own_threads_for_the_rounds(monkeypatch):
    monkeypatch.setattr(cards_deck, "_cores", lambda: 2)
    made = cards_deck.prove_shuffle(cards_deck.first_cards(), SECRET, CONTEXT)  # pool made
    fork = multiprocessing.get_context("fork")
    queue = fork.Queue()
    child = fork.Process(target=_prove_in_child, args=(queue,))
    child.start()
    try:
        assert queue.get(timeout=300) == made  # the parent's pool threads are not in the child
    finally:
        child.join(timeout=60)
        if child.is_alive():
            child.kill()
    assert child.exitcode == 0
