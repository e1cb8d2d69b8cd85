"""Git objects written straight into the object database, and read back.

Recording an action never touches a working tree, the index or a ``git`` process:
blobs, trees and commits are hashed here and written as loose objects (zlib, then an
atomic rename), the way Git itself lays them out. Reading goes through gitdb, which
understands both loose objects and packs. ``MemoryObjectStore`` has the same
interface without a disk, for tests and for verifying without writing.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from pathlib import Path
from typing import Protocol

from gitdb import GitDB
from gitdb.exc import BadObject

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


class GitObjectStore:
    """The object database of a Git repository (``.git/objects`` or a bare repo's ``objects``)."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = Path(git_dir)
        self.objects_dir = self.git_dir / "objects"
        self._known: set[str] = set()  # ids known to exist (written or read here)
        self._db: GitDB | None = None
        self._tmp_counter = 0

    @property
    def db(self) -> GitDB:
        if self._db is None:
            self._db = GitDB(str(self.objects_dir))
        return self._db

    def write(self, kind: bytes, data: bytes) -> str:
        header = b"%s %d\0" % (kind, len(data))
        oid = hashlib.sha1(header + data).hexdigest()
        if oid in self._known:
            return oid
        path = self.objects_dir / oid[:2] / oid[2:]
        if not path.exists() and not self._in_pack(oid):
            # Write beside the final name, then rename: a crash leaves no half object.
            path.parent.mkdir(exist_ok=True)
            self._tmp_counter += 1
            tmp = path.parent / f"tmp_obj_{os.getpid()}_{self._tmp_counter}"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
            try:
                os.write(fd, zlib.compress(header + data, 1))
            finally:
                os.close(fd)
            os.replace(tmp, path)
        self._known.add(oid)
        return oid

    def _in_pack(self, oid: str) -> bool:
        try:
            return bool(self.db.has_object(bytes.fromhex(oid)))
        except Exception:  # noqa: BLE001 - a pack being rewritten: treat as absent
            return False

    def read(self, oid: str) -> tuple[bytes, bytes]:
        binsha = bytes.fromhex(oid)
        for attempt in range(2):
            try:
                stream = self.db.stream(binsha)
                self._known.add(oid)
                return stream.type, stream.read()
            except (BadObject, ValueError, OSError):
                if attempt == 0:
                    self.db.update_cache(force=True)  # a repack may have moved it into a pack
        raise StateFileError(f"object {oid} is missing from {self.git_dir}")

    def has(self, oid: str) -> bool:
        if oid in self._known:
            return True
        if (self.objects_dir / oid[:2] / oid[2:]).exists():
            return True
        self.db.update_cache(force=True)
        return self._in_pack(oid)


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
    """Inverse of ``tree_data``."""
    entries: dict[str, tuple[bool, str]] = {}
    i = 0
    while i < len(data):
        space = data.index(b" ", i)
        nul = data.index(b"\0", space)
        mode = data[i:space]
        name = data[space + 1 : nul].decode()
        entries[name] = (mode == TREE_MODE, data[nul + 1 : nul + 21].hex())
        i = nul + 21
    return entries


def commit_data(
    tree: str, parents: list[str], author: str, email: str, when: int, message: str
) -> bytes:
    """Serialise a commit; author and committer are the same person."""
    ident = f"{author} <{email}> {when} +0000"
    lines = [
        f"tree {tree}",
        *(f"parent {p}" for p in parents),
        f"author {ident}",
        f"committer {ident}",
    ]
    return ("\n".join(lines) + "\n\n" + message).encode()


class Commit:
    """A parsed commit object (only what the protocol needs)."""

    __slots__ = ("oid", "tree", "parents", "author", "email", "when", "message")

    def __init__(self, oid: str, data: bytes) -> None:
        head, _, body = data.partition(b"\n\n")
        self.oid = oid
        self.parents: list[str] = []
        self.tree = ""
        self.author = ""
        self.email = ""
        self.when = 0
        for line in head.decode(errors="replace").split("\n"):
            key, _, value = line.partition(" ")
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
        self.message = body.decode(errors="replace")

    @property
    def summary(self) -> str:
        return self.message.split("\n", 1)[0]


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
