"""The development-card deck of a game with seat keys: mental poker without a dealer.

Nobody holds the deck. Each seat has a deck key ``x`` (its public part ``h = x·G`` is
published with its seat claim) and the deck is 25 ElGamal ciphertexts under the joint
key ``H = h_1 + ... + h_n`` on the Ed25519 prime-order group (PyNaCl / libsodium):

- **Shuffle.** Card ``j`` is the point ``M_j`` (``from_uniform`` of its index). Starting
  from ``(G, M_j + H)``, each seat in seat order re-encrypts every card with fresh
  randomness and permutes them (``shuffle``); nobody knows the order unless all collude.
- **Draw.** The buyer takes the next position; it pays first and learns nothing yet.
  Every other seat adds its decryption share ``x·C1`` with a Chaum-Pedersen proof that
  it used its own key (``share``/``check_share``) when it next rolls the dice. Once all
  are in, only the buyer can remove the last share: the card is the buyer's alone.
- **Play.** The owner reveals its own share with a proof; everyone reads the card.
- **End.** Every seat reveals its deck secret: every shuffle and every card is checked.

A seat's deck secret (32 bytes) comes from its signing key (``SeatKey.secret``), so the
same player on a second device holds the same deck key and shuffle. Its key ``x`` and its
shuffle seed are both derived from the secret; revealing the secret reveals both.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import NamedTuple

from nacl.bindings import (
    crypto_core_ed25519_add,
    crypto_core_ed25519_from_uniform,
    crypto_core_ed25519_is_valid_point,
    crypto_core_ed25519_scalar_add,
    crypto_core_ed25519_scalar_mul,
    crypto_core_ed25519_scalar_reduce,
    crypto_core_ed25519_sub,
    crypto_scalarmult_ed25519_base_noclamp,
    crypto_scalarmult_ed25519_noclamp,
)
from nacl.exceptions import RuntimeError as NaclRuntimeError

from catan_p2p.rules.cards import DEV_DECK, DevCard
from catan_p2p.rules.chance import Chance

DECK_SIZE = sum(DEV_DECK)
POINT_HEX = 64  # one compressed Ed25519 point, hex
CARD_HEX = 2 * POINT_HEX  # one ciphertext (C1, C2)
PROOF_HEX = 3 * POINT_HEX  # a share and its proof (s, c, z)

#: The type of the card encoded at each index: 14 knights, 5 victory points, 2 each else.
CARD_TYPES: tuple[DevCard, ...] = tuple(
    DevCard(kind) for kind, n in enumerate(DEV_DECK) for _ in range(n)
)

_ONE = (1).to_bytes(32, "little")
_G = crypto_scalarmult_ed25519_base_noclamp(_ONE)


class Deck(NamedTuple):
    """The public deck of a game with seat keys (``deck.json`` and ``deck/<player>.json``).

    ``passes`` grows by one shuffle per seat during the first set-up round; the last
    one is the deck played with. Drawn cards are listed by position (the order drawn).
    """

    keys: tuple[str, ...]  # each seat's deck key h (hex), "" while unclaimed
    passes: tuple[tuple[str, ...], ...] = ()  # each seat's shuffle, in seat order
    holders: tuple[int, ...] = ()  # seat holding each drawn card
    bought: tuple[int, ...] = ()  # turn in which each drawn card was bought
    opened: tuple[str, ...] = ()  # each drawn card's C2 minus the shares given so far
    shared: tuple[int, ...] = ()  # bit s set: seat s has given its share (or is the holder)
    shown: tuple[int, ...] = ()  # each drawn card's type once revealed, else -1
    secrets: tuple[str, ...] = ()  # deck secrets revealed at the end, "" until then

    @property
    def cards(self) -> tuple[str, ...]:
        """The ciphertexts of the shuffled deck (the last pass)."""
        return self.passes[-1]

    @property
    def left(self) -> int:
        return DECK_SIZE - len(self.holders)

    def held(self, seat: int) -> list[int]:
        """Positions of the cards ``seat`` holds and has not revealed."""
        return [
            p
            for p, (h, t) in enumerate(zip(self.holders, self.shown, strict=True))
            if h == seat and t < 0
        ]

    def owed_shares(self, seat: int) -> list[int]:
        """Positions of other seats' cards still waiting for ``seat``'s share."""
        return [p for p, m in enumerate(self.shared) if not m >> seat & 1]

    def complete(self, n_players: int) -> int:
        """The ``shared`` mask of a card every seat has opened."""
        return (1 << n_players) - 1


def new_deck(n_players: int) -> Deck:
    return Deck(keys=("",) * n_players, secrets=("",) * n_players)


# --- the group -----------------------------------------------------------------------------


def _scalar(data: bytes) -> bytes:
    return crypto_core_ed25519_scalar_reduce(hashlib.sha512(data).digest())


def _point(text: str) -> bytes:
    """A point from its hex form; ``ValueError`` unless a valid prime-order point."""
    if len(text) != POINT_HEX or text != text.lower():
        raise ValueError("a point is 64 lower-case hex digits")
    raw = bytes.fromhex(text)
    if not crypto_core_ed25519_is_valid_point(raw):
        raise ValueError("not a point of the prime-order group")
    return raw


def _mul(k: bytes, p: bytes) -> bytes:
    return crypto_scalarmult_ed25519_noclamp(k, p)


def _base(k: bytes) -> bytes:
    return crypto_scalarmult_ed25519_base_noclamp(k)


@lru_cache(maxsize=1)
def card_points() -> tuple[bytes, ...]:
    """``M_j`` for every card index ``j`` (fixed by the protocol)."""
    return tuple(
        crypto_core_ed25519_from_uniform(hashlib.sha256(b"catan-p2p/card\0%d" % j).digest())
        for j in range(DECK_SIZE)
    )


@lru_cache(maxsize=1)
def _card_of_point() -> dict[bytes, int]:
    return {m: j for j, m in enumerate(card_points())}


# --- a seat's deck secret --------------------------------------------------------------------


def deck_key(secret: bytes) -> bytes:
    """The scalar ``x`` of a deck secret."""
    return _scalar(b"catan-p2p/deck-key\0" + secret)


def public_key(secret: bytes) -> str:
    """``h = x·G`` (hex): what a seat claim publishes."""
    return _base(deck_key(secret)).hex()


def _proof(x: bytes, base: bytes, h: bytes, s: bytes, context: bytes) -> str:
    """Chaum-Pedersen proof that ``log_G h == log_base s`` (Fiat-Shamir, deterministic nonce)."""
    k = _scalar(b"catan-p2p/dleq-nonce\0" + x + base + context)
    c = _challenge(base, h, s, _base(k), _mul(k, base), context)
    z = crypto_core_ed25519_scalar_add(k, crypto_core_ed25519_scalar_mul(c, x))
    return (s + c + z).hex()


def _challenge(base: bytes, h: bytes, s: bytes, a: bytes, b: bytes, context: bytes) -> bytes:
    return _scalar(b"catan-p2p/dleq\0" + _G + h + base + s + a + b + context)


def _check_proof(text: str, base: bytes, h: bytes, context: bytes) -> bytes:
    """The share a proof carries, once checked; ``ValueError`` when it does not prove it."""
    if len(text) != PROOF_HEX or text != text.lower():
        raise ValueError("a share and its proof are 192 lower-case hex digits")
    s = _point(text[:POINT_HEX])
    raw = bytes.fromhex(text[POINT_HEX:])
    c, z = raw[:32], raw[32:]
    if crypto_core_ed25519_scalar_reduce(c + bytes(32)) != c or (
        crypto_core_ed25519_scalar_reduce(z + bytes(32)) != z
    ):
        raise ValueError("the proof's scalars are not reduced")
    try:
        a = crypto_core_ed25519_sub(_base(z), _mul(c, h))
        b = crypto_core_ed25519_sub(_mul(z, base), _mul(c, s))
    except NaclRuntimeError:
        raise ValueError("the proof does not verify") from None
    if _challenge(base, h, s, a, b, context) != c:
        raise ValueError("the proof does not verify")
    return s


def key_proof(secret: bytes) -> str:
    """A proof that the claimer knows ``x`` of its deck key (no rogue joint key)."""
    x = deck_key(secret)
    h = _base(x)
    return _proof(x, _G, h, h, b"seat")[POINT_HEX:]


def check_key(key: str, proof: str) -> None:
    """``ValueError`` unless ``proof`` (from ``key_proof``) proves knowledge of ``key``'s x."""
    h = _point(key)
    _check_proof(key + proof, _G, h, b"seat")


# --- shuffling ----------------------------------------------------------------------------


def joint_key(keys: tuple[str, ...]) -> bytes:
    total = _point(keys[0])
    for k in keys[1:]:
        total = crypto_core_ed25519_add(total, _point(k))
    return total


def first_cards(keys: tuple[str, ...]) -> tuple[str, ...]:
    """The deck before the first shuffle: ``(G, M_j + H)`` in card order (public)."""
    h = joint_key(keys)
    return tuple((_G + crypto_core_ed25519_add(m, h)).hex() for m in card_points())


def shuffle_seed(secret: bytes) -> str:
    return hashlib.sha256(b"catan-p2p/deck-shuffle\0" + secret).hexdigest()


def shuffle(cards: tuple[str, ...], keys: tuple[str, ...], secret: bytes) -> tuple[str, ...]:
    """One seat's pass: re-encrypt every card and permute them, both from its secret."""
    h = joint_key(keys)
    seed = shuffle_seed(secret)
    order = list(range(len(cards)))
    pick = Chance(seed, "deck/shuffle")
    for i in range(len(order) - 1, 0, -1):  # Fisher-Yates
        j = pick.randrange(i + 1)
        order[i], order[j] = order[j], order[i]
    out = []
    for k, src in enumerate(order):
        r = _scalar(b"catan-p2p/deck-reencrypt\0" + bytes.fromhex(seed) + b"%d" % k)
        c1, c2 = _pair(cards[src])
        out.append(
            (crypto_core_ed25519_add(c1, _base(r)) + crypto_core_ed25519_add(c2, _mul(r, h))).hex()
        )
    return tuple(out)


def _pair(card: str) -> tuple[bytes, bytes]:
    if len(card) != CARD_HEX:
        raise ValueError("a card is 128 lower-case hex digits")
    return _point(card[:POINT_HEX]), _point(card[POINT_HEX:])


def check_pass(cards: tuple[str, ...]) -> None:
    """``ValueError`` unless ``cards`` is a well-formed pass (25 distinct valid ciphertexts)."""
    if len(cards) != DECK_SIZE or len(set(cards)) != DECK_SIZE:
        raise ValueError(f"a shuffled deck is {DECK_SIZE} distinct cards")
    for card in cards:
        _pair(card)


# --- drawing, playing, the end -----------------------------------------------------------------


def share(secret: bytes, card: str, keys_seat: str) -> str:
    """``seat``'s decryption share of ``card`` with its proof (hex, ``PROOF_HEX`` long)."""
    x = deck_key(secret)
    c1, _ = _pair(card)
    return _proof(x, c1, _point(keys_seat), _mul(x, c1), b"share")


def check_share(proof: str, card: str, key: str) -> str:
    """The share (hex) in ``proof`` once checked against the card and the seat's key."""
    c1, _ = _pair(card)
    return _check_proof(proof, c1, _point(key), b"share").hex()


def initial_opened(card: str) -> str:
    return card[POINT_HEX:]


def remove_share(opened: str, share_hex: str) -> str:
    return crypto_core_ed25519_sub(bytes.fromhex(opened), bytes.fromhex(share_hex)).hex()


def card_type(point_hex: str) -> DevCard | None:
    """The card a fully opened point encodes, or None when it encodes no card."""
    j = _card_of_point().get(bytes.fromhex(point_hex))
    return None if j is None else CARD_TYPES[j]


def card_index(point_hex: str) -> int | None:
    return _card_of_point().get(bytes.fromhex(point_hex))


@lru_cache(maxsize=4096)
def peek(secret: bytes, card: str, opened: str) -> DevCard | None:
    """What the holder reads: its own share removed from a card every other seat opened.

    Remembered: a player's view reads its cards after every action, and a card once
    opened never changes.
    """
    x = deck_key(secret)
    c1, _ = _pair(card)
    return card_type(crypto_core_ed25519_sub(bytes.fromhex(opened), _mul(x, c1)).hex())


def read_card(secrets: list[bytes], card: str) -> DevCard | None:
    """The card under every seat's layer, once every deck secret is known."""
    c1, c2 = _pair(card)
    for secret in secrets:
        c2 = crypto_core_ed25519_sub(c2, _mul(deck_key(secret), c1))
    return card_type(c2.hex())


def secret_matches(secret: bytes, key: str) -> bool:
    return public_key(secret) == key
