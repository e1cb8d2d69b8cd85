"""Mental poker without a dealer: the cryptography of the hidden development-card deck.

Nobody holds the deck. Each seat has a deck key ``x`` (its public part ``h = x·G`` is
published with its seat claim, with a proof that the claimer knows ``x``). Card ``j`` is
the point ``M_j`` (``from_uniform`` of its index) of the Ed25519 prime-order group
(PyNaCl / libsodium), and each seat's layer is multiplication by its ``x``: layers
commute (Shamir-Rivest-Adleman's commutative cipher on an elliptic curve).

- **Shuffle.** Starting from ``M_0 .. M_24`` in card order, each seat in seat order
  multiplies every card by its ``x`` and permutes them (``shuffle``). Nobody knows the
  order unless all collude. Nobody can add a card of its choice either: encrypting
  ``M_j`` under the layers so far needs the other seats' keys. Each pass comes with a
  cut-and-choose proof (``prove_shuffle``) that it is the previous pass, permuted and
  multiplied by the seat's own ``x``; it is checked when the pass arrives.
- **Draw.** The buyer takes the next position; it pays first and learns nothing yet.
  Every other seat removes its layer (``x⁻¹·P``) with a Chaum-Pedersen proof that it
  used its own key (``share``/``check_share``) when it next rolls the dice. Once all
  are removed, only the buyer can remove the last layer: the card is the buyer's alone.
- **Play.** The owner removes its own layer with a proof; everyone reads the card.
- **End.** Every seat reveals its deck secret: every card still face down is read.

A seat's deck secret (32 bytes) comes from its signing key (``SeatKey.secret``), so the
same player on a second device holds the same deck key and shuffle. Its key ``x``, its
shuffle and its proof are all derived from the secret; revealing the secret reveals them.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import TypeVar

from nacl.bindings import (
    crypto_core_ed25519_from_uniform,
    crypto_core_ed25519_is_valid_point,
    crypto_core_ed25519_scalar_add,
    crypto_core_ed25519_scalar_invert,
    crypto_core_ed25519_scalar_mul,
    crypto_core_ed25519_scalar_reduce,
    crypto_core_ed25519_sub,
    crypto_scalarmult_ed25519_base_noclamp,
    crypto_scalarmult_ed25519_noclamp,
)
from nacl.exceptions import RuntimeError as NaclRuntimeError

from catan_p2p.rules.cards import DevCard
from catan_p2p.rules.chance import Chance
from catan_p2p.rules.deck import CARD_TYPES, DECK_SIZE, MAX_DECK_SIZE, Deck

POINT_HEX = 64  # one compressed Ed25519 point (one card of a pass), hex
PROOF_HEX = 3 * POINT_HEX  # a layer removed and its proof (point, c, z)
#: Rounds of a shuffle proof: a dishonest pass survives with probability 2^-ROUNDS per
#: try, and every try costs its maker at least 26 scalar multiplications.
SHUFFLE_ROUNDS = 64
_SEED_HEX = 64  # an opening of the first kind: the round's seed


def _map_hex(size: int) -> int:
    """Hex digits of a shuffle-proof opening of the second kind: a scalar and a permutation."""
    return 64 + 2 * size


_ONE = (1).to_bytes(32, "little")
_G = crypto_scalarmult_ed25519_base_noclamp(_ONE)
_HEX = frozenset("0123456789abcdef")


# --- the group -----------------------------------------------------------------------------


def is_hex(text: object, length: int) -> bool:
    """True when ``text`` is a string of exactly ``length`` lower-case hex digits."""
    return isinstance(text, str) and len(text) == length and _HEX.issuperset(text)


def _scalar(data: bytes) -> bytes:
    return crypto_core_ed25519_scalar_reduce(hashlib.sha512(data).digest())


def _point(text: object) -> bytes:
    """A point from its hex form; ``ValueError`` unless a valid prime-order point."""
    if not is_hex(text, POINT_HEX):
        raise ValueError("a point is 64 lower-case hex digits")
    raw = bytes.fromhex(text)  # type: ignore[arg-type]
    if not in_group(raw):
        raise ValueError("not a point of the prime-order group")
    return raw


@lru_cache(maxsize=4096)
def in_group(raw: bytes) -> bool:
    """Whether ``raw`` is a point of the prime-order group (canonical, not of small
    order): the one check of cards, deck keys and seat keys; remembered (a pure function
    of the bytes, 70 µs a check), since a game reads the same cards and keys again."""
    return crypto_core_ed25519_is_valid_point(raw)


def is_point(text: object) -> bool:
    """True when ``text`` is a valid point of the prime-order group (hex)."""
    try:
        _point(text)
    except ValueError:
        return False
    return True


def _reduced(raw: bytes) -> bool:
    return crypto_core_ed25519_scalar_reduce(raw + bytes(32)) == raw


def _mul(k: bytes, p: bytes) -> bytes:
    try:
        return crypto_scalarmult_ed25519_noclamp(k, p)
    except NaclRuntimeError:  # the identity: k is zero (only a forged value does that)
        raise ValueError("a scalar multiplication gave the identity") from None


def _base(k: bytes) -> bytes:
    return crypto_scalarmult_ed25519_base_noclamp(k)


def _invert(k: bytes) -> bytes:
    return crypto_core_ed25519_scalar_invert(k)


@lru_cache(maxsize=1)
def card_points() -> tuple[bytes, ...]:
    """``M_j`` for every card index ``j`` of the largest deck (fixed by the protocol)."""
    return tuple(
        crypto_core_ed25519_from_uniform(hashlib.sha256(b"catan-p2p/card\0%d" % j).digest())
        for j in range(MAX_DECK_SIZE)
    )


@lru_cache(maxsize=1)
def _card_of_point() -> dict[bytes, int]:
    return {m: j for j, m in enumerate(card_points())}


# --- a seat's deck secret --------------------------------------------------------------------


def deck_key(secret: bytes) -> bytes:
    """The scalar ``x`` of a deck secret."""
    return _scalar(b"catan-p2p/deck-key\0" + secret)


@lru_cache(maxsize=64)
def public_key(secret: bytes) -> str:
    """``h = x·G`` (hex): what a seat claim publishes."""
    return _base(deck_key(secret)).hex()


def _dleq(x: bytes, base: bytes, h: bytes, s: bytes, context: bytes) -> bytes:
    """Chaum-Pedersen proof ``(c, z)`` that ``log_G h == log_base s`` (= ``x``).

    Fiat-Shamir with a deterministic nonce: the same statement gives the same proof.
    """
    k = _scalar(b"catan-p2p/dleq-nonce\0" + x + base + s + context)
    c = _challenge(base, h, s, _base(k), _mul(k, base), context)
    return c + crypto_core_ed25519_scalar_add(k, crypto_core_ed25519_scalar_mul(c, x))


def _challenge(base: bytes, h: bytes, s: bytes, a: bytes, b: bytes, context: bytes) -> bytes:
    return _scalar(b"catan-p2p/dleq\0" + _G + h + base + s + a + b + context)


def _check_dleq(cz: bytes, base: bytes, h: bytes, s: bytes, context: bytes) -> None:
    """``ValueError`` unless ``cz`` (from ``_dleq``) proves ``log_G h == log_base s``."""
    c, z = cz[:32], cz[32:]
    if not (_reduced(c) and _reduced(z)):
        raise ValueError("the proof's scalars are not reduced")
    try:
        a = crypto_core_ed25519_sub(_base(z), _mul(c, h))
        b = crypto_core_ed25519_sub(_mul(z, base), _mul(c, s))
    except (NaclRuntimeError, ValueError):
        raise ValueError("the proof does not verify") from None
    if _challenge(base, h, s, a, b, context) != c:
        raise ValueError("the proof does not verify")


def key_proof(secret: bytes, seat_key: str) -> str:
    """A proof that the claimer knows ``x`` of its deck key, bound to the seat's signing
    key (no rogue key, and no claim's proof carried over to another claim)."""
    x = deck_key(secret)
    h = _base(x)
    return _dleq(x, _G, h, h, b"seat\0" + seat_key.encode()).hex()


def check_key(key: str, proof: str, seat_key: str) -> None:
    """``ValueError`` unless ``proof`` (from ``key_proof``) proves knowledge of ``key``'s x."""
    h = _point(key)
    if not is_hex(proof, 2 * POINT_HEX):
        raise ValueError("a key proof is 128 lower-case hex digits")
    _check_dleq(bytes.fromhex(proof), _G, h, h, b"seat\0" + seat_key.encode())


# --- shuffling ----------------------------------------------------------------------------


def first_cards(size: int = DECK_SIZE) -> tuple[str, ...]:
    """The deck of ``size`` cards before the first shuffle: ``M_j`` in card order (public)."""
    return tuple(m.hex() for m in card_points()[:size])


def _permutation(seed: bytes, label: str, size: int = DECK_SIZE) -> tuple[int, ...]:
    """A uniform permutation of the deck's positions from ``seed`` (Fisher-Yates)."""
    order = list(range(size))
    pick = Chance(seed.hex(), label)
    for i in range(size - 1, 0, -1):
        j = pick.randrange(i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def _apply(k: bytes, order: tuple[int, ...], cards: tuple[bytes, ...]) -> tuple[bytes, ...]:
    """Card ``i`` of the result is ``k`` times card ``order[i]`` of ``cards``."""
    return tuple(_mul(k, cards[src]) for src in order)


_T = TypeVar("_T")
_R = TypeVar("_R")
_pool: tuple[int, ThreadPoolExecutor] | None = None  # (the pid that made it, the pool)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _rounds_map(work: Callable[[_T], _R], items: Iterable[_T]) -> list[_R]:
    """``[work(i) for i in items]``, spread over the cores: the same list, sooner.

    A shuffle proof's rounds are most of a seat's set-up (64 rounds of 25 scalar
    multiplications, to make and to check), and libsodium multiplies without holding
    Python's lock, so the rounds run side by side. Results come in order, and the
    first round that raises raises here, as in a loop.
    """
    global _pool
    items = list(items)
    cores = min(_cores(), 4)
    if cores < 2 or len(items) < 2:
        return [work(i) for i in items]
    if _pool is None or _pool[0] != os.getpid():  # a forked child has none of its threads
        _pool = (os.getpid(), ThreadPoolExecutor(cores, thread_name_prefix="catan-p2p deck"))
    return list(_pool[1].map(work, items))


def _seat_order(secret: bytes, size: int = DECK_SIZE) -> tuple[int, ...]:
    """The permutation of a seat's pass, from its deck secret."""
    seed = hashlib.sha256(b"catan-p2p/deck-shuffle\0" + secret).digest()
    return _permutation(seed, "deck/shuffle", size)


def shuffle(cards: tuple[str, ...], secret: bytes) -> tuple[str, ...]:
    """One seat's pass: multiply every card by its ``x`` and permute them (from its secret)."""
    order = _seat_order(secret, len(cards))
    return tuple(c.hex() for c in _apply(deck_key(secret), order, _points(cards)))


def _points(cards: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(_point(c) for c in cards)


def check_pass(cards: object, size: int = DECK_SIZE) -> None:
    """``ValueError`` unless ``cards`` is a well-formed pass (``size`` distinct valid points)."""
    if not isinstance(cards, tuple) or len(cards) != size or len(set(cards)) != size:
        raise ValueError(f"a shuffled deck is {size} distinct cards")
    _points(cards)


def shuffle_context(keys: tuple[str, ...], seat: int) -> bytes:
    """What a shuffle proof is bound to: the game's deck keys (unique to one genesis) and
    the seat, so no proof made for another game or seat is accepted."""
    return "".join(keys).encode() + b"\0%d" % seat


def pass_before(deck: Deck) -> tuple[str, ...]:
    """The cards the next seat's shuffle starts from: the last pass, or the first cards."""
    return deck.passes[-1] if deck.passes else first_cards(deck.size)


def seat_shuffle(deck: Deck, seat: int, secret: bytes) -> tuple[tuple[str, ...], str]:
    """``seat``'s pass over ``deck`` and the proof that it is a shuffle of the one before,
    bound to the game's deck keys and the seat (``trust.hidden_deck.take_shuffle`` checks it)."""
    return prove_shuffle(pass_before(deck), secret, shuffle_context(deck.keys, seat))


def _round(seed: bytes, size: int = DECK_SIZE) -> tuple[bytes, tuple[int, ...]]:
    """A proof round's blinding scalar and permutation, from its seed."""
    return _scalar(b"catan-p2p/shuffle-round\0" + seed), _permutation(seed, "deck/round", size)


def _rounds_digest(
    before: tuple[bytes, ...],
    after: tuple[bytes, ...],
    h: bytes,
    rounds: list[bytes],
    context: bytes,
) -> bytes:
    data = hashlib.sha256(b"catan-p2p/shuffle-proof\0" + context + h)
    for part in (*before, *after, *rounds):
        data.update(part)
    return data.digest()


def _bits(digest: bytes) -> list[int]:
    return [digest[i // 8] >> (i % 8) & 1 for i in range(SHUFFLE_ROUNDS)]


def prove_shuffle(
    before: tuple[str, ...], secret: bytes, context: bytes
) -> tuple[tuple[str, ...], str]:
    """The seat's shuffle of ``before`` and the proof that it is ``before`` permuted and
    multiplied by the seat's ``x``.

    Cut and choose: each round re-shuffles ``after`` with a fresh scalar ``e`` and
    permutation; the round is opened either as that (``e`` and the permutation, from a
    seed) or as the whole way from ``before`` (``e·x`` and the composed permutation),
    as the hash of every round decides. Neither opening says anything about ``x`` or
    the seat's permutation; a pass that is not a shuffle can answer only one of them.
    """
    x = deck_key(secret)
    size = len(before)
    order = _seat_order(secret, size)
    b = _points(before)
    a = _apply(x, order, b)
    after = tuple(c.hex() for c in a)
    h = _base(x)
    seeds = [
        hashlib.sha256(b"catan-p2p/shuffle-round-seed\0" + secret + context + b"%d" % i).digest()
        for i in range(SHUFFLE_ROUNDS)
    ]
    opened = [_round(seed, size) for seed in seeds]
    # e·h is (e·x)·G: a base-point multiplication, several times cheaper, same point.
    rounds = _rounds_map(
        lambda ep: _base(crypto_core_ed25519_scalar_mul(ep[0], x)) + b"".join(_apply(*ep, a)),
        opened,
    )
    digest = _rounds_digest(b, a, h, rounds, context)
    out = [digest.hex()]
    for seed, (e, perm), bit in zip(seeds, opened, _bits(digest), strict=True):
        if not bit:
            out.append(seed.hex())
            continue
        composed = bytes(order[perm[i]] for i in range(size))
        out.append(crypto_core_ed25519_scalar_mul(e, x).hex() + composed.hex())
    proof = "".join(out)
    if len(_proved) >= 64:  # bounded: a long-lived bot process makes one per game
        _proved.clear()
    _proved.add((before, after, h.hex(), proof, context))
    return after, proof


#: Shuffles this process made itself, with their proofs: sound by construction (the pass
#: is computed here, not given), so checking them again when the move is recorded would
#: only double a seat's set-up cost. Anything received is checked in full.
_proved: set[tuple] = set()
#: The same for the layers removed, tokens and shared values this process made (with the
#: key they are checked against): a seat's own proofs are otherwise checked again when
#: its move is recorded, three scalar multiplications each (a tenth of a roll's commit).
_made: set[tuple] = set()


def _made_here(entry: tuple) -> None:
    if len(_made) >= 256:  # bounded: a long-lived bot process makes a few per turn
        _made.clear()
    _made.add(entry)


@lru_cache(maxsize=64)
def check_shuffle(
    before: tuple[str, ...], after: tuple[str, ...], key: str, proof: str, context: bytes
) -> None:
    """``ValueError`` unless ``proof`` shows ``after`` is a shuffle of ``before`` by ``key``.

    Remembered: a pass is judged when it is planned, recorded and replayed.
    """
    if (before, after, key, proof, context) in _proved:
        return
    if not isinstance(proof, str) or not is_hex(proof[:64], 64):
        raise ValueError("a shuffle proof is lower-case hex digits, its 64-digit hash first")
    digest = bytes.fromhex(proof[:64])
    bits = _bits(digest)
    cards = len(before)
    map_hex = _map_hex(cards)
    size = 64 + sum(map_hex if bit else _SEED_HEX for bit in bits)
    if len(proof) != size or not is_hex(proof, size):
        raise ValueError(f"this shuffle proof is {size} lower-case hex digits")
    b, a, h = _points(before), _points(after), _point(key)
    openings = []  # (bit, the round's opening)
    at = 64
    for bit in bits:
        end = at + (map_hex if bit else _SEED_HEX)
        openings.append((bit, proof[at:end]))
        at = end

    def rebuilt(opening: tuple[int, str]) -> bytes:
        bit, text = opening
        if not bit:
            e, perm = _round(bytes.fromhex(text), cards)
            return _mul(e, h) + b"".join(_apply(e, perm, a))
        k = bytes.fromhex(text[:64])
        order = tuple(bytes.fromhex(text[64:]))
        if not _reduced(k) or sorted(order) != list(range(cards)):
            raise ValueError("a round of the shuffle proof is not a scalar and a permutation")
        return _base(k) + b"".join(_apply(k, order, b))

    rounds = _rounds_map(rebuilt, openings)
    if _rounds_digest(b, a, h, rounds, context) != digest:
        raise ValueError("the shuffle proof does not verify")


# --- drawing, playing, the end -----------------------------------------------------------------


def share(secret: bytes, opened: str, key: str) -> str:
    """The seat's layer removed from ``opened``, with its proof (hex, ``PROOF_HEX`` long)."""
    x = deck_key(secret)
    p = _point(opened)
    removed = _mul(_invert(x), p)
    proof = (removed + _dleq(x, removed, _point(key), p, b"share")).hex()
    if key == public_key(secret):  # only then is it a proof (else it is refused as one)
        _made_here(("share", proof, opened, key))
    return proof


def check_share(proof: object, opened: str, key: str) -> str:
    """``opened`` with the seat's layer removed, once ``proof`` shows it used its key."""
    if ("share", proof, opened, key) in _made:
        return proof[:POINT_HEX]  # type: ignore[index]
    if not is_hex(proof, PROOF_HEX):
        raise ValueError("a layer removed and its proof are 192 lower-case hex digits")
    removed = _point(proof[:POINT_HEX])  # type: ignore[index]
    cz = bytes.fromhex(proof[POINT_HEX:])  # type: ignore[index]
    _check_dleq(cz, removed, _point(key), _point(opened), b"share")
    return removed.hex()


def _multiplied(secret: bytes, base: bytes, label: bytes) -> str:
    """``x·base`` and the proof that the seat's deck key ``x`` made it (192 hex)."""
    x = deck_key(secret)
    value = _mul(x, base)
    h = _base(x)
    proof = (value + _dleq(x, base, h, value, label)).hex()
    _made_here((label, proof, h.hex(), base))
    return proof


def _check_multiplied(proof: object, key: str, base: bytes, label: bytes, what: str) -> str:
    """The value in ``proof`` (from ``_multiplied``) once checked against ``key``."""
    if (label, proof, key, base) in _made:
        return proof[:POINT_HEX]  # type: ignore[index]
    if not is_hex(proof, PROOF_HEX):
        raise ValueError(f"{what} and its proof are 192 lower-case hex digits")
    value = _point(proof[:POINT_HEX])  # type: ignore[index]
    _check_dleq(bytes.fromhex(proof[POINT_HEX:]), base, _point(key), value, label)  # type: ignore[index]
    return value.hex()


def token(secret: bytes, context: bytes) -> str:
    """A value only the seat can compute, one per ``context``, with its proof (192 hex).

    ``x·P`` for a point ``P`` hashed from ``context``, and the proof that the same ``x``
    is behind the seat's deck key: nobody else can compute it, and the seat cannot
    choose it (a verifiable random function). A robber's token and the robbed player's
    answer are such values, for the same steal.
    """
    return _multiplied(secret, _token_base(context), b"token")


def check_token(proof: object, key: str, context: bytes) -> str:
    """The value in ``proof`` (from ``token``) once checked against the seat's key."""
    return _check_multiplied(proof, key, _token_base(context), b"token", "a token")


def exchange(secret: bytes, point: str) -> str:
    """``x·Q`` for another seat's value ``Q``, with the proof that ``x`` is behind the
    seat's deck key (192 hex, like a token).

    A steal's shared value: the robber's token ``T = x_r·P`` and the victim's answer
    ``V = x_v·P`` give ``x_r·V = x_v·T``, which only those two seats can compute
    (computational Diffie-Hellman), until one of them shows it with this proof.
    """
    return _multiplied(secret, _point(point), b"exchange")


def check_exchange(proof: object, key: str, point: str) -> str:
    """The value in ``proof`` (from ``exchange``) once checked against the seat's key."""
    return _check_multiplied(proof, key, _point(point), b"exchange", "a shared value")


@lru_cache(maxsize=256)
def shared_value(secret: bytes, point: str) -> str:
    """``x·Q`` without a proof: what a seat reads for itself, and what anyone computes
    once the seat's secret is revealed at the end of the game.

    Remembered: a player's view reads its pending steals after every action.
    """
    return _mul(deck_key(secret), _point(point)).hex()


def _token_base(context: bytes) -> bytes:
    return crypto_core_ed25519_from_uniform(hashlib.sha256(b"catan-p2p/token\0" + context).digest())


def card_type(point_hex: str) -> DevCard | None:
    """The card a fully opened point encodes, or None when it encodes no card."""
    j = card_index(point_hex)
    return None if j is None else CARD_TYPES[j]


def card_index(point_hex: str) -> int | None:
    return _card_of_point().get(bytes.fromhex(point_hex))


@lru_cache(maxsize=4096)
def peek(secret: bytes, opened: str) -> DevCard | None:
    """What the holder reads: its own layer removed from a card every other seat opened.

    Remembered: a player's view reads its cards after every action, and a card once
    opened never changes.
    """
    return card_type(_mul(_invert(deck_key(secret)), _point(opened)).hex())


def read_card(secrets: list[bytes], card: str) -> DevCard | None:
    """The card under every seat's layer, once every deck secret is known."""
    p = _point(card)
    for secret in secrets:
        p = _mul(_invert(deck_key(secret)), p)
    return card_type(p.hex())


def secret_matches(secret: bytes, key: str) -> bool:
    return public_key(secret) == key
