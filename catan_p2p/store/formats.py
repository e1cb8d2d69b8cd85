"""Git's object formats, pure: ids, trees, commits and the stores that only hash.

What ``protocol/`` reads of Git it reads through these: they parse and serialise bytes
and never touch a disk or a process (the dulwich way: ``parse_tree``/``tree_data``
tested without a repository). The object database on disk is ``store/objects.py``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from catan_p2p.errors import StateFileError


def object_id(kind: bytes, data: bytes) -> str:
    """The hex id Git gives an object of ``kind`` (b"blob", b"tree", b"commit") and ``data``."""
    h = hashlib.sha1(b"%s %d\0" % (kind, len(data)))
    h.update(data)
    return h.hexdigest()


class ObjectStore(Protocol):
    """Where Git objects live: write returns the id, read returns (kind, data)."""

    def write(self, kind: bytes, data: bytes) -> str: ...

    def read(self, oid: str) -> tuple[bytes, bytes]: ...

    def has(self, oid: str) -> bool: ...


class MemoryObjectStore:
    """Objects in a dict: same ids as Git, no disk."""

    def __init__(self) -> None:
        self.objects: dict[str, tuple[bytes, bytes]] = {}

    def write(self, kind: bytes, data: bytes) -> str:
        oid = object_id(kind, data)
        self.objects.setdefault(oid, (kind, data))
        return oid

    def read(self, oid: str) -> tuple[bytes, bytes]:
        try:
            return self.objects[oid]
        except KeyError:
            raise StateFileError(f"object {oid} is missing from the store") from None

    def has(self, oid: str) -> bool:
        return oid in self.objects

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Nothing to group in memory (the disk store writes a batch as one pack)."""
        yield

    def close(self) -> None:
        pass


# --- trees and commits ------------------------------------------------------------------

BLOB_MODE = b"100644"
TREE_MODE = b"40000"


def tree_data(entries: dict[str, tuple[bool, str]]) -> bytes:
    """Serialise a tree: ``name -> (is_tree, hex id)``, in Git's name order."""

    def key(name: str) -> bytes:
        raw = name.encode()
        return raw + b"/" if entries[name][0] else raw

    out = bytearray()
    for name in sorted(entries, key=key):
        is_tree, oid = entries[name]
        out += (TREE_MODE if is_tree else BLOB_MODE) + b" " + name.encode() + b"\0"
        out += bytes.fromhex(oid)
    return bytes(out)


def parse_tree(data: bytes) -> dict[str, tuple[bool, str]]:
    """Inverse of ``tree_data``.

    Raises:
        ValueError: the bytes are not a tree ``tree_data`` writes (another mode such as a
            symlink or submodule, a name that is not UTF-8, a truncated entry, a
            duplicate or an order Git would not write).
    """
    entries: dict[str, tuple[bool, str]] = {}
    i = 0
    while i < len(data):
        space = data.index(b" ", i)
        nul = data.index(b"\0", space)
        mode = data[i:space]
        if mode not in (TREE_MODE, BLOB_MODE) or nul + 21 > len(data):
            raise ValueError("not a tree of plain files and folders")
        name = data[space + 1 : nul].decode()
        if not name or name in (".", "..") or "/" in name or name in entries:
            raise ValueError(f"bad entry name {name!r}")
        entries[name] = (mode == TREE_MODE, data[nul + 1 : nul + 21].hex())
        i = nul + 21
    if tree_data(entries) != data:
        raise ValueError("entries are not in Git's order")
    return entries


def player_email(player: str) -> str:
    """The address a player's commits carry as author and committer (PROTOCOL.md 3)."""
    return f"{player}@catan-p2p"


class Signer(Protocol):
    """What signs a commit (a seat key): its bytes in, an armoured signature out."""

    def sign(self, data: bytes) -> str: ...


def commit_data(
    tree: str,
    parents: list[str],
    author: str,
    email: str,
    when: int,
    message: str,
    signature: str | None = None,
) -> bytes:
    """Serialise a commit; author and committer are the same person.

    ``signature`` (armoured, several lines) goes in a ``gpgsig`` header after the
    committer, where ``git commit -S`` puts it; its continuation lines start with a space.
    """
    ident = f"{author} <{email}> {when} +0000"
    lines = [
        f"tree {tree}",
        *(f"parent {p}" for p in parents),
        f"author {ident}",
        f"committer {ident}",
    ]
    if signature is not None:
        lines.append("gpgsig " + signature.replace("\n", "\n "))
    return ("\n".join(lines) + "\n\n" + message).encode()


_OID_DIGITS = frozenset("0123456789abcdef")


def _is_oid(text: str) -> bool:
    return len(text) == 40 and _OID_DIGITS.issuperset(text)


def unsigned_data(data: bytes) -> bytes:
    """A commit object without its ``gpgsig`` header: the bytes its signature covers."""
    head, sep, body = data.partition(b"\n\n")
    out = []
    skipping = False
    for line in head.split(b"\n"):
        if line.startswith(b"gpgsig "):
            skipping = True
            continue
        if skipping and line.startswith(b" "):
            continue
        skipping = False
        out.append(line)
    return b"\n".join(out) + sep + body


class Commit:
    """A parsed commit object (only what the protocol needs).

    Parsing never fails: a malformed commit parses to fields a verifier refuses
    (``canonical`` False), so hostile bytes become a clear refusal, never a traceback.
    """

    __slots__ = (
        "oid",
        "tree",
        "parents",
        "author",
        "email",
        "when",
        "message",
        "signature",
        "data",
    )

    def __init__(self, oid: str, data: bytes) -> None:
        head, _, body = data.partition(b"\n\n")
        self.oid = oid
        self.data = data
        self.parents: list[str] = []
        self.tree = ""
        self.author = ""
        self.email = ""
        self.when = 0
        self.signature: str | None = None
        sig: list[str] = []  # lines of the gpgsig header while it is being read
        for line in head.decode(errors="replace").split("\n"):
            if sig and line.startswith(" "):
                sig.append(line[1:])
                continue
            key, _, value = line.partition(" ")
            if key == "gpgsig" and self.signature is None and not sig:
                sig = [value]
                continue
            if sig:
                self.signature, sig = "\n".join(sig), []
            if key == "tree":
                self.tree = value
            elif key == "parent":
                self.parents.append(value)
            elif key == "author":
                name, _, rest = value.partition(" <")
                self.author = name
                email, _, stamp = rest.partition("> ")
                self.email = email
                try:
                    self.when = int(stamp.split()[0])
                except (IndexError, ValueError):
                    self.when = 0
        if sig:
            self.signature = "\n".join(sig)
        self.message = body.decode(errors="replace")

    @property
    def summary(self) -> str:
        return self.message.split("\n", 1)[0]

    @property
    def signed_data(self) -> bytes:
        """The bytes the signature covers (the commit without its ``gpgsig`` header)."""
        return unsigned_data(self.data)

    @property
    def canonical(self) -> bool:
        """True when the bytes are exactly what ``commit_data`` writes for these fields."""
        if self.when < 0 or not all(map(_is_oid, (self.tree, *self.parents))):
            return False
        return self.data == commit_data(
            self.tree,
            self.parents,
            self.author,
            self.email,
            self.when,
            self.message,
            self.signature,
        )


def read_commit(store: ObjectStore, oid: str) -> Commit:
    kind, data = store.read(oid)
    if kind != b"commit":
        raise StateFileError(f"{oid} is a {kind.decode()}, not a commit")
    return Commit(oid, data)


class HashingStore:
    """Computes object ids without keeping anything: for re-deriving a tree id to verify it."""

    def write(self, kind: bytes, data: bytes) -> str:
        return object_id(kind, data)

    def read(self, oid: str) -> tuple[bytes, bytes]:
        raise StateFileError(f"object {oid} cannot be read from a hashing-only store")

    def has(self, oid: str) -> bool:
        return False
