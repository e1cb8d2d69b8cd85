"""The seat keys' checks live outside the rules and are plugged in through one interface.

The rules know cards and players; ``rules.seat_keys.SeatKeys`` is all they ask of a
game with seat keys, ``catan_p2p.trust`` answers it, and the rules never import it.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import replace
from pathlib import Path

import pytest

import catan_p2p.rules
from catan_p2p.errors import IllegalAction, UsageError
from catan_p2p.protocol.signing import SeatKey, key_text
from catan_p2p.rules import engine as rules_engine
from catan_p2p.rules.actions import ClaimSeat, EndTurn, RevealDeck
from catan_p2p.rules.seat_keys import SeatKeys
from catan_p2p.rules.state import new_game
from catan_p2p.trust import engine
from catan_p2p.trust import poker as cards_deck
from catan_p2p.trust.engine import SEAT_KEYS


def _claim(player: str = "red") -> ClaimSeat:
    secret = b"\x01" * 32
    key = SeatKey.from_seed(player[0].encode() * 32).public
    return ClaimSeat(
        player, key, "0" * 64, cards_deck.public_key(secret), cards_deck.key_proof(secret, key)
    )


def test_the_trust_engine_answers_every_question_of_the_interface():
    asked = {n for n, v in vars(SeatKeys).items() if inspect.isfunction(v) and n[0] != "_"}
    assert asked, "SeatKeys asks nothing"
    for name in sorted(asked):
        assert callable(getattr(SEAT_KEYS, name)), name
        wanted = list(inspect.signature(getattr(SeatKeys, name)).parameters)[1:]
        assert list(inspect.signature(getattr(SEAT_KEYS, name)).parameters) == wanted, name


def test_the_rules_alone_refuse_to_guess_at_a_game_with_seat_keys():
    """Without the keys' checks a claim is not taken on trust: the call is a usage error
    that says where the checks are, never a claim applied unchecked."""
    state = new_game(("red", "blue"), seated=True)
    with pytest.raises(UsageError, match="catan_p2p.trust.engine"):
        rules_engine.step(state, _claim())
    after = engine.step(state, _claim())[0]
    assert after.seats[0] == _claim().key and after.deck.keys[0] == _claim().deck


def test_the_plain_game_never_reaches_the_keys():
    """A game without seat keys refuses the moves of one with a rule, not a usage error."""
    state = new_game(("red", "blue"))
    with pytest.raises(IllegalAction, match="every seat is taken"):
        rules_engine.step(state, _claim())
    with pytest.raises(IllegalAction, match="once the game is over"):
        rules_engine.step(state, RevealDeck("red", "0" * 64))
    assert rules_engine.refusal(state, EndTurn("red")) == engine.refusal(state, EndTurn("red"))


def test_the_rules_import_nothing_of_the_layers_above_them_nor_any_cryptography():
    """The rules know cards and players: keys, proofs and the deck's mental poker are
    ``catan_p2p.trust``'s (``trust.poker``), so the rules import no cryptography."""
    root = Path(catan_p2p.rules.__file__).parent
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in ("nacl", "cryptography"), f"{path.name}: {name}"
                if name.startswith("catan_p2p."):
                    assert name.split(".")[1] in ("rules", "errors"), f"{path.name}: {name}"


def test_a_seat_is_not_claimed_with_a_key_of_small_order():
    """Under the identity as a key anybody's signature would check out with OpenSSL."""
    state = new_game(("red", "blue"), seated=True)
    identity = key_text(b"\x01" + b"\x00" * 31)
    claim = _claim()
    weak = replace(claim, key=identity, proof=cards_deck.key_proof(b"\x01" * 32, identity))
    with pytest.raises(IllegalAction, match="prime-order group"):
        engine.step(state, weak)
    assert engine.step(state, claim)[0].seats[0] == claim.key
