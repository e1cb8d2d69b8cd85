"""Seat keys and Git's SSH signature format: our verifier and Git's agree, byte for byte."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from nacl.bindings import (
    crypto_core_ed25519_add,
    crypto_core_ed25519_scalar_reduce,
    crypto_scalarmult_ed25519_base_noclamp,
)

from catan_p2p.errors import UsageError
from catan_p2p.protocol.signing import (
    SeatKey,
    _armour,
    _signed_data,
    _string,
    _wire_key,
    allowed_signers,
    check_signature,
    key_text,
    parse_key,
)
from catan_p2p.session.keys import load_key, new_key, remember, save_key, seat_key
from catan_p2p.store.formats import Commit, commit_data
from catan_p2p.trust.seats import key_refusal

TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # the empty tree


def _git(repo: Path, *args: str, data: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], input=data, capture_output=True)


def _signed(key: SeatKey, message: str = "Red: end turn\n") -> bytes:
    plain = commit_data(TREE, [], "red", "red@catan-p2p", 1_700_000_000, message)
    return commit_data(TREE, [], "red", "red@catan-p2p", 1_700_000_000, message, key.sign(plain))


@pytest.mark.slow
def test_git_verify_commit_accepts_our_signature_and_refuses_another_key(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _git(tmp_path, "hash-object", "-t", "tree", "-w", "--stdin", data=b"")
    red, blue = SeatKey.from_seed(b"r" * 32), SeatKey.from_seed(b"b" * 32)
    signers = tmp_path / "signers"
    signers.write_text(allowed_signers({"red": red.public}))
    _git(tmp_path, "config", "gpg.ssh.allowedSignersFile", str(signers))
    good = _git(tmp_path, "hash-object", "-t", "commit", "-w", "--stdin", data=_signed(red))
    forged = _git(tmp_path, "hash-object", "-t", "commit", "-w", "--stdin", data=_signed(blue))
    assert _git(tmp_path, "verify-commit", good.stdout.decode().strip()).returncode == 0
    assert _git(tmp_path, "verify-commit", forged.stdout.decode().strip()).returncode != 0
    c = Commit("x", _signed(red))
    assert c.canonical and check_signature(red.public, c.signed_data, c.signature) is None
    assert "another key" in check_signature(blue.public, c.signed_data, c.signature)


def test_a_signature_covers_every_byte_and_has_one_form():
    red = SeatKey.from_seed(b"r" * 32)
    c = Commit("x", _signed(red))
    tampered = c.signed_data.replace(b"end turn", b"end tvrn")
    assert "does not match" in check_signature(red.public, tampered, c.signature)
    rewrapped = c.signature.replace("\n", "\n\n", 1)
    assert check_signature(red.public, c.signed_data, rewrapped) is not None
    extra_line = c.signature.replace("-----END", " \n-----END")
    assert check_signature(red.public, c.signed_data, extra_line) is not None
    trailing = c.signature + "\n"
    assert check_signature(red.public, c.signed_data, trailing) is not None
    assert check_signature("ssh-ed25519 nope", c.signed_data, c.signature) is not None


def test_a_commit_with_extra_header_bytes_is_not_canonical():
    red = SeatKey.from_seed(b"r" * 32)
    data = _signed(red)
    assert Commit("x", data).canonical
    for odd in (
        data.replace(b"+0000", b"+0100"),
        data.replace(b"\n\n", b"\nencoding UTF-8\n\n", 1),
        data.replace(b"committer red", b"committer blue"),
        data.replace(b"tree ", b"tree  "),
    ):
        assert not Commit("x", odd).canonical


@pytest.mark.slow
def test_keys_made_by_ssh_keygen_load_and_others_are_refused(tmp_path):
    path = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    key = load_key(path)
    assert (tmp_path / "id_ed25519.pub").read_text().startswith(key.public)
    parse_key(key.public)
    rsa = tmp_path / "id_rsa"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "rsa", "-b", "1024", "-N", "", "-f", str(rsa)], check=True
    )
    with pytest.raises(UsageError, match="not an ed25519 key"):
        load_key(rsa)
    locked = tmp_path / "locked"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "pw", "-f", str(locked)], check=True)
    with pytest.raises(UsageError, match="unencrypted"):
        load_key(locked)
    with pytest.raises(UsageError, match="cannot read"):
        load_key(tmp_path / "missing")


def test_seat_keys_are_made_once_and_remembered_per_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("CATAN_P2P_HOME", str(tmp_path / "home"))
    first = seat_key("red")
    assert seat_key("red").public == first.public
    assert (tmp_path / "home" / "keys" / "red").stat().st_mode & 0o077 == 0
    other = tmp_path / "mine"
    save_key(new_key(), other)
    git_dir = tmp_path / "g"
    git_dir.mkdir()
    remember(git_dir, "red", other)
    assert seat_key("red", git_dir=git_dir).public == load_key(other).public
    assert seat_key("red").public == first.public


#: Ed25519 points of small order: the identity, and (0, -1) of order 2.
SMALL_ORDER = (b"\x01" + b"\x00" * 31, b"\xec" + b"\xff" * 30 + b"\x7f")


def _anyones_signature(payload: bytes) -> str:
    """A signature that needs no private key: R = sB and S = s, which satisfies the check
    [S]B = R + [k]A whenever [k]A is the identity, as for a key of small order."""
    s = crypto_core_ed25519_scalar_reduce(b"\x07" * 64)
    return crypto_scalarmult_ed25519_base_noclamp(s) + s


@pytest.mark.parametrize("point", SMALL_ORDER)
def test_a_key_of_small_order_vouches_for_nothing(point: bytes):
    """With such a seat key, OpenSSL (as ``git verify-commit`` and the ``cryptography``
    package check) takes a signature anybody can make; the peers' check refuses it, and a
    seat cannot be claimed with the key at all."""
    key = key_text(point)
    c = Commit("x", _signed(SeatKey.from_seed(b"r" * 32)))
    signed = _signed_data(c.signed_data)
    forged = _anyones_signature(signed)
    if point == SMALL_ORDER[0]:  # the danger, shown with OpenSSL itself
        Ed25519PublicKey.from_public_bytes(point).verify(forged, signed)
    blob = (
        b"SSHSIG\0\0\0\x01"
        + _string(_wire_key(point))
        + _string(b"git")
        + _string(b"")
        + _string(b"sha512")
        + _string(_string(b"ssh-ed25519") + _string(forged))
    )
    problem = check_signature(key, c.signed_data, _armour(blob))
    assert problem is not None and "small order" in problem
    assert "prime-order group" in key_refusal(key)
    assert key_refusal(SeatKey.from_seed(b"r" * 32).public) is None


def test_a_key_with_a_part_of_small_order_or_a_second_text_holds_no_seat():
    """``aB + T``: only the holder of ``a`` signs under it, but it may make signatures
    that one check takes and another refuses; and a key's text whose length field says
    33 instead of 32 would be a second name for a real key's point."""
    red = SeatKey.from_seed(b"r" * 32)
    mixed = key_text(crypto_core_ed25519_add(red.raw_public, SMALL_ORDER[1]))
    assert "prime-order group" in key_refusal(mixed)
    c = Commit("x", _signed(red))
    assert "prime-order group" in check_signature(mixed, c.signed_data, c.signature)
    wire = bytearray(base64.b64decode(red.public.split()[1]))
    wire[18] = 33  # the length of the key's 32 bytes, said otherwise
    renamed = "ssh-ed25519 " + base64.b64encode(bytes(wire)).decode()
    assert renamed != red.public and renamed[:36] == red.public[:36]
    assert key_refusal(renamed) is not None
    assert check_signature(renamed, c.signed_data, c.signature) is not None
