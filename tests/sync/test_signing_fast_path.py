"""The signature check's fast path (libsodium first, OpenSSL when it refuses) takes
exactly the signatures OpenSSL takes: a forged or altered one is still refused, and one
only libsodium refuses (a key holder's own odd signature) is still taken, as before."""

from __future__ import annotations

import base64
import hashlib
import random

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from catan_p2p.protocol.signing import (
    SeatKey,
    _armour,
    _signed_data,
    _sodium_accepts,
    check_signature,
)

L = 2**252 + 27742317777372353535851937790883648493  # the order of the Ed25519 group
SEED = bytes(range(32))
PAYLOAD = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor red\n\nRed: end turn\n"


def _with_raw_signature(armoured: str, raw: bytes) -> str:
    """``armoured`` with its 64-byte Ed25519 signature replaced by ``raw``."""
    blob = base64.b64decode("".join(armoured.split("\n")[1:-1]))
    return _armour(blob[:-64] + raw)


def _raw(armoured: str) -> bytes:
    return base64.b64decode("".join(armoured.split("\n")[1:-1]))[-64:]


def _openssl_accepts(public: bytes, raw: bytes, data: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(raw, data)
    except InvalidSignature:
        return False
    return True


def _identity_r_signature(seed: bytes, public: bytes, data: bytes) -> bytes:
    """A signature whose ``R`` is the identity (small order): only the key's holder can
    make it (``S = h*a``); OpenSSL takes it, libsodium refuses it."""
    h = bytearray(hashlib.sha512(seed).digest()[:32])
    h[0] &= 248
    h[31] &= 127
    h[31] |= 64
    a = int.from_bytes(h, "little")
    r = (1).to_bytes(32, "little")
    k = int.from_bytes(hashlib.sha512(r + public + data).digest(), "little") % L
    return r + (k * a % L).to_bytes(32, "little")


def test_a_signature_only_libsodium_refuses_is_still_taken_as_openssl_takes_it():
    key = SeatKey.from_seed(SEED)
    data = _signed_data(PAYLOAD)
    odd = _identity_r_signature(SEED, key.raw_public, data)
    assert _openssl_accepts(key.raw_public, odd, data)
    assert not _sodium_accepts(key.raw_public, odd, data)
    armoured = _with_raw_signature(key.sign(PAYLOAD), odd)
    assert check_signature(key.public, PAYLOAD, armoured) is None


def test_a_signature_altered_anywhere_is_refused():
    key = SeatKey.from_seed(SEED)
    armoured = key.sign(PAYLOAD)
    raw = _raw(armoured)
    assert check_signature(key.public, PAYLOAD, armoured) is None
    for i in range(64):  # a bit of every byte of R and S
        bad = bytearray(raw)
        bad[i] ^= 1 << (i % 8)
        why = check_signature(key.public, PAYLOAD, _with_raw_signature(armoured, bytes(bad)))
        assert why == "the signature does not match the commit", i
    s = int.from_bytes(raw[32:], "little")
    if s + L < 2**256:  # the same S, not reduced: refused by both
        high = raw[:32] + (s + L).to_bytes(32, "little")
        assert check_signature(key.public, PAYLOAD, _with_raw_signature(armoured, high))
    assert check_signature(key.public, PAYLOAD + b" ", armoured)  # another commit
    other = SeatKey.from_seed(b"b" * 32)
    assert check_signature(other.public, PAYLOAD, armoured)  # another key


def test_what_libsodium_accepts_openssl_accepts_on_random_tampering():
    rng = random.Random(34)
    key = SeatKey.from_seed(SEED)
    data = _signed_data(PAYLOAD)
    raw = _raw(key.sign(PAYLOAD))
    for _ in range(300):
        bad = bytearray(raw)
        for _ in range(rng.randrange(1, 3)):
            bad[rng.randrange(64)] = rng.randrange(256)
        if _sodium_accepts(key.raw_public, bytes(bad), data):
            assert _openssl_accepts(key.raw_public, bytes(bad), data)
    assert _sodium_accepts(key.raw_public, raw, data)
