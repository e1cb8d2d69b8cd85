"""Who wrote a commit: Ed25519 keys and Git's SSH signature format (``gpgsig`` header).

A commit counts as a player's only when that player's seat key signed it. The
signature is the one ``git commit -S`` writes with ``gpg.format=ssh`` (OpenSSH's
SSHSIG armour, namespace ``git``, SHA-512), so ``git verify-commit`` with the
allowed-signers file of ``catan-p2p keys --allowed-signers`` agrees with the peers.
Signing and verifying run in-process through libsodium (PyNaCl), key files and HKDF
through the ``cryptography`` package; only the byte layout of SSHSIG is written here (see
OpenSSH's PROTOCOL.sshsig). libsodium's check is the strict one: it refuses a public key
or signature point of small order, which OpenSSL's accepts, and with the identity as a
key anybody could sign as its seat; it also takes half the time.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from functools import lru_cache

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from nacl.bindings import crypto_sign, crypto_sign_open
from nacl.exceptions import BadSignatureError

from catan_p2p.errors import UsageError
from catan_p2p.store.formats import player_email
from catan_p2p.trust.poker import in_group

KEY_TYPE = "ssh-ed25519"
NAMESPACE = b"git"
HASH = b"sha512"
MAGIC = b"SSHSIG"
BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
#: Base64 characters per armour line, as ssh-keygen writes them.
WRAP = 70


def _string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _wire_key(raw: bytes) -> bytes:
    """An Ed25519 public key in SSH wire format."""
    return _string(KEY_TYPE.encode()) + _string(raw)


def key_text(raw: bytes) -> str:
    """``ssh-ed25519 AAAA...``: the form of a public key in seats and allowed-signers files."""
    return f"{KEY_TYPE} {base64.b64encode(_wire_key(raw)).decode()}"


@lru_cache(maxsize=64)
def parse_key(text: str) -> bytes:
    """The 32 raw bytes of a ``ssh-ed25519 AAAA...`` public key; ValueError if it is not one."""
    kind, _, b64 = text.partition(" ")
    if kind != KEY_TYPE or not b64 or " " in b64:
        raise ValueError(f"not an {KEY_TYPE} public key: {text[:40]!r}")
    try:
        wire = base64.b64decode(b64, validate=True)
    except binascii.Error:
        raise ValueError(f"public key is not base64: {text[:40]!r}") from None
    if len(wire) != 51 or wire[:15] != _string(KEY_TYPE.encode()) or wire[15:19] != b"\0\0\0 ":
        raise ValueError(f"malformed {KEY_TYPE} public key: {text[:40]!r}")
    if key_text(wire[19:]) != text:
        raise ValueError(f"public key is not in canonical form: {text[:40]!r}")
    if not in_group(wire[19:]):
        raise ValueError(
            f"public key is not a point of Ed25519's prime-order group (of small order, "
            f"say), so it vouches for nothing: {text[:40]!r}"
        )
    return wire[19:]


def _signed_data(payload: bytes) -> bytes:
    return (
        MAGIC
        + _string(NAMESPACE)
        + _string(b"")
        + _string(HASH)
        + _string(hashlib.sha512(payload).digest())
    )


def _armour(blob: bytes) -> str:
    b64 = base64.b64encode(blob).decode()
    lines = [b64[i : i + WRAP] for i in range(0, len(b64), WRAP)]
    return "\n".join([BEGIN, *lines, END])


class SeatKey:
    """A player's private signing key."""

    __slots__ = ("_private", "_signing", "raw_public", "public")

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        self.raw_public = private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.public = key_text(self.raw_public)
        # libsodium's form of the key: the 32-byte seed, then the public key.
        self._signing = self._raw_private() + self.raw_public

    @classmethod
    def from_seed(cls, seed: bytes) -> SeatKey:
        """A key from 32 secret bytes (test vectors and reproducible tests only)."""
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @classmethod
    def from_openssh(cls, data: bytes, where: str) -> SeatKey:
        """The key in an OpenSSH ed25519 private key file's bytes (``ssh-keygen -t
        ed25519``), unencrypted; ``where`` names the file in a refusal."""
        try:
            key = serialization.load_ssh_private_key(data, password=None)
        except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
            raise UsageError(
                f"{where} is not an unencrypted OpenSSH private key ({exc}); pass an ed25519 "
                "key made with `ssh-keygen -t ed25519 -N ''`, or leave out --key"
            ) from None
        if not isinstance(key, Ed25519PrivateKey):
            raise UsageError(
                f"{where} is not an ed25519 key; catan_p2p signs with ed25519 only "
                "(`ssh-keygen -t ed25519`), or leave out --key to get one made for you"
            )
        return cls(key)

    def to_openssh(self) -> bytes:
        """The key as an OpenSSH private key file's bytes."""
        return self._private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )

    def secret(self, purpose: bytes, salt: bytes) -> bytes:
        """32 secret bytes for ``purpose`` (HKDF-SHA256 of the private key, salted).

        A dice chain's secret is derived this way with the genesis id as salt, so the
        same key file on a second device resumes the same chain.
        """
        raw = self._raw_private()
        return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=purpose).derive(raw)

    def _raw_private(self) -> bytes:
        return self._private.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )

    def sign(self, payload: bytes) -> str:
        """The armoured SSH signature of ``payload`` (namespace ``git``), as Git stores it.

        Ed25519 signing is deterministic (RFC 8032): any library writes the same bytes."""
        sig = crypto_sign(_signed_data(payload), self._signing)[:64]
        blob = (
            MAGIC
            + struct.pack(">I", 1)
            + _string(_wire_key(self.raw_public))
            + _string(NAMESPACE)
            + _string(b"")
            + _string(HASH)
            + _string(_string(KEY_TYPE.encode()) + _string(sig))
        )
        return _armour(blob)


@lru_cache(maxsize=4096)
def check_signature(public: str, payload: bytes, armoured: str) -> str | None:
    """Why ``armoured`` is not ``public``'s signature of ``payload`` (None when it is).

    Only the exact armour ``SeatKey.sign`` writes is accepted, so a signature has one
    byte form and cannot be varied to change a commit id. Remembered by all three
    arguments (a pure function; an ed25519 check costs 0.1-0.2 ms, and an answer is
    checked again in its merge, a commit again by every verifier of the process).
    """
    try:
        raw = parse_key(public)
    except ValueError as exc:
        return str(exc)
    lines = armoured.split("\n")
    if len(lines) < 3 or lines[0] != BEGIN or lines[-1] != END:
        return "the signature is not an SSH signature"
    try:
        blob = base64.b64decode("".join(lines[1:-1]), validate=True)
    except binascii.Error:
        return "the signature is not valid base64"
    if _armour(blob) != armoured:
        return "the signature is not in canonical armour"
    head = MAGIC + struct.pack(">I", 1) + _string(_wire_key(raw))
    tail = _string(NAMESPACE) + _string(b"") + _string(HASH)
    sig_prefix = _string(_string(KEY_TYPE.encode()) + _string(b"\0" * 64))[:23]
    if not blob.startswith(head):
        return "it is signed by another key"
    rest = blob[len(head) :]
    if not rest.startswith(tail) or len(rest) != len(tail) + 23 + 64:
        return "the signature is not an ed25519 signature in the git namespace"
    if rest[len(tail) : len(tail) + 23] != sig_prefix:
        return "the signature is not an ed25519 signature"
    try:
        crypto_sign_open(rest[-64:] + _signed_data(payload), raw)
    except BadSignatureError:
        return "the signature does not match the commit"
    return None


def allowed_signers(seats: dict[str, str]) -> str:
    """An allowed-signers file (``gpg.ssh.allowedSignersFile``) for the seat keys."""
    return "".join(
        f'{player_email(p)} namespaces="git" {k}\n' for p, k in sorted(seats.items()) if k
    )
