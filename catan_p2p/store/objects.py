"""Git objects written straight into the object database, and read back.

Recording an action never touches a working tree, the index or a ``git`` process:
blobs, trees and commits are hashed here and written either as loose objects (zlib,
then an atomic rename) or, for a whole commit at once, as one small pack and its index,
the way Git itself lays them out. Reading goes through one long-running
``git cat-file --batch`` (store/catfile.py), which understands loose objects, packs and
their deltas. ``MemoryObjectStore`` has the same interface without a disk, for tests
and for verifying without writing.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import os
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from zlib_ng import zlib_ng

from catan_p2p.errors import DamagedRepository, StateFileError
from catan_p2p.store.catfile import CatFile
from catan_p2p.store.formats import (
    _is_oid,
    object_id,
)
from catan_p2p.store.spares import SpareFiles, write_all

#: Objects written here and kept for reading back (a few games' commits).
RECENT_KEPT = 20_000
#: Ids remembered as present without asking the store.
KNOWN_KEPT = 200_000


def damaged(where: Path) -> DamagedRepository:
    """The one sentence for an object database file that cannot be read."""
    git_dir = next((p for p in where.parents if p.name == "objects"), where).parent
    folder = git_dir.parent if git_dir.name == ".git" else git_dir
    what = where.name if where.name.startswith("pack-") else "an object file"
    return DamagedRepository(
        f"the game's repository {folder} is damaged ({what} is cut short or corrupt); "
        "fetch the game again from a remote (catan-p2p join) or restore it from a backup"
    )


def _index_lists(idx: Path, binsha: bytes) -> bool:
    """Whether the version 2 pack index ``idx`` lists ``binsha`` (read whole: only asked
    when a read failed, to name the damaged pack)."""
    data = idx.read_bytes()
    if data[:8] != b"\xfftOc\x00\x00\x00\x02" or len(data) < 8 + 1024:
        return False
    fanout = struct.unpack_from(">256I", data, 8)
    lo = fanout[binsha[0] - 1] if binsha[0] else 0
    hi = fanout[binsha[0]]
    table = 8 + 1024
    names = [data[table + 20 * i : table + 20 * i + 20] for i in range(lo, hi)]
    at = bisect.bisect_left(names, binsha)
    return at < len(names) and names[at] == binsha


class GitObjectStore:
    """The object database of a Git repository (``.git/objects`` or a bare repo's ``objects``).

    Outside a batch every object is written loose. Inside ``with store.batch():`` the
    objects are kept in memory and written at the end as one small pack (the pack, then
    its index, which is what makes Git see it): a commit then costs two new files instead
    of one per object, which matters because creating a file is the dominant cost of
    recording an action; the two files come from a pool made ahead (spares.py).
    Objects written here are also kept in memory for reading back.
    """

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = Path(git_dir)
        self.objects_dir = self.git_dir / "objects"
        self._known: set[str] = set()  # ids known to exist (written or read here)
        self.reader = CatFile(self.git_dir)  # started on the first read from disk
        self._tmp_counter = 0
        self._batch_depth = 0
        self._pending: dict[str, tuple[bytes, bytes]] = {}  # batched, not on disk yet
        self._recent: dict[str, tuple[bytes, bytes]] = {}  # written here, for cheap reads
        self.spares = SpareFiles(self.git_dir / "catan-p2p-spares")

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Write every object of the block as one pack when the block ends (nestable)."""
        self._batch_depth += 1
        try:
            yield
        finally:
            # Flushed even after an error: callers' caches may already name these ids.
            self._batch_depth -= 1
            if self._batch_depth == 0:
                self.flush()

    def flush(self) -> None:
        """Write the batched objects as one pack (no-op when nothing is pending)."""
        if not self._pending:
            return
        pending = self._pending
        self._pending = {}
        write_pack(self.objects_dir / "pack", pending, self.spares)
        if len(self._known) > KNOWN_KEPT:
            self._known.clear()  # only a shortcut: the store is asked again
        self._known.update(pending)

    def close(self) -> None:
        """Stop keeping spare files for packs and stop the reader (both come back on use)."""
        self.spares.close()
        self.reader.close()
        self._recent.clear()

    def _know(self, oid: str) -> None:
        if len(self._known) > KNOWN_KEPT:
            self._known.clear()  # only a shortcut: the store is asked again
        self._known.add(oid)

    def _remember(self, oid: str, kind: bytes, data: bytes) -> None:
        if len(self._recent) > RECENT_KEPT:
            self._recent.clear()
        self._recent[oid] = (kind, data)

    def write(self, kind: bytes, data: bytes) -> str:
        header = b"%s %d\0" % (kind, len(data))
        oid = hashlib.sha1(header + data).hexdigest()
        if oid in self._known or oid in self._pending:
            return oid
        self._remember(oid, kind, data)
        if self._batch_depth:
            # No look-up on disk: a duplicate in a pack is harmless and repacking drops it.
            self._pending[oid] = (kind, data)
            return oid
        path = self.objects_dir / oid[:2] / oid[2:]
        # No look-up in the packs either: a loose copy of a packed object is harmless
        # (``prune-packed`` drops it), and Git answers for an object it only pretends to
        # hold (the empty tree), which must still be written for ``fsck``.
        if not path.exists():
            # Write beside the final name, then rename: a crash leaves no half object.
            path.parent.mkdir(exist_ok=True)
            self._tmp_counter += 1
            tmp = path.parent / f"tmp_obj_{os.getpid()}_{self._tmp_counter}"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
            write_all(fd, deflate(header + data))
            os.replace(tmp, path)
        self._know(oid)
        return oid

    def read(self, oid: str) -> tuple[bytes, bytes]:
        hit = self._pending.get(oid) or self._recent.get(oid)
        if hit is not None:
            return hit
        if not _is_oid(oid):  # a ref file holding something else, say (and never a
            # name cat-file would resolve as a revision)
            raise StateFileError(
                f"{oid[:40]!r} is not an object id, yet {self.git_dir} names it as one "
                "(a damaged ref?); fetch the game again or restore it from a backup"
            )
        # Git looks at the packs again when an object is not where it was (a repack
        # moved it), so one question is enough.
        try:
            found = self.reader.read(oid)
        except StateFileError as exc:  # Git stopped on it: a corrupt pack or object file
            raise damaged(self._file_of(oid)) from exc
        if found is None:
            where = self._file_of(oid)
            if where.suffix == ".pack":  # its index lists it, yet Git cannot read it
                raise damaged(where)
            raise self.reader.missing(oid)
        if object_id(*found) != oid:  # Git does not check what a pack hands back
            raise damaged(self._file_of(oid))
        self._know(oid)
        return found

    def _file_of(self, oid: str) -> Path:
        """The pack holding ``oid`` as its index says, else where its loose file goes."""
        binsha = bytes.fromhex(oid)
        for pack in sorted(self.objects_dir.glob("pack/pack-*.idx")):
            try:
                if _index_lists(pack, binsha):
                    return pack.with_suffix(".pack")
            except OSError:  # removed meanwhile by a repack
                continue
        return self.objects_dir / oid[:2] / oid[2:]

    def has(self, oid: str) -> bool:
        if oid in self._known or oid in self._pending:
            return True
        if (self.objects_dir / oid[:2] / oid[2:]).exists():
            return True
        return self.reader.read(oid, limit=0) is not None


# --- packs ------------------------------------------------------------------------------


def deflate(data: bytes) -> bytes:
    """``data`` as a zlib stream (level 1), as Git stores an object.

    zlib's default hash table (``memLevel`` 8) is set up and cleared on every call, which
    for objects of a few hundred bytes cost twice the compressing: ``memLevel`` 5 takes
    half the time for the same size (the objects of a 4-player game: 32 -> 16 us each,
    1,170,107 -> 1,169,160 bytes). Any zlib stream inflates alike.
    """
    z = zlib.compressobj(1, zlib.DEFLATED, zlib.MAX_WBITS, 5)
    return z.compress(data) + z.flush()


def deflate_quick(data: bytes) -> bytes:
    """``data`` as a zlib stream from zlib-ng's level 1, for the trees and blobs of a
    commit's pack: a third of ``deflate``'s time for a few hundred bytes, in 16 % more.

    Those bytes are temporary: packing a game turns nearly every tree and blob into a
    delta, which Git compresses anew, while the objects it keeps whole, the signed
    commits mostly, stay as they were written; so commits keep ``deflate``.
    benchmarks/ab_deflate.py, a 4-player game in turn: compute per commit x0.92-0.94,
    1.5 % more bytes per finished game (zlib-ng for commits too: x0.88-0.95, 6.8 %).
    """
    return zlib_ng.compress(data, 1)


_PACK_TYPES = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}


def _pack_entry(kind: bytes, data: bytes) -> bytes:
    """One undeltified pack entry: type and size header, then the zlib stream."""
    size = len(data)
    byte = (_PACK_TYPES[kind] << 4) | (size & 0x0F)
    size >>= 4
    head = bytearray()
    while size:
        head.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    head.append(byte)
    return bytes(head) + (deflate(data) if kind == b"commit" else deflate_quick(data))


def pack_bytes(objects: dict[str, tuple[bytes, bytes]]) -> tuple[bytes, bytes]:
    """A version 2 pack of ``objects`` (``id -> (kind, data)``) and its version 2 index."""
    body = bytearray(b"PACK" + struct.pack(">II", 2, len(objects)))
    rows = []  # (binary id, crc32, offset)
    for oid, (kind, data) in objects.items():
        entry = _pack_entry(kind, data)
        rows.append((bytes.fromhex(oid), zlib.crc32(entry), len(body)))
        body += entry
    pack_sum = hashlib.sha1(body).digest()
    body += pack_sum
    rows.sort()
    counts = [0] * 256
    for binsha, _, _ in rows:
        counts[binsha[0]] += 1
    idx = bytearray(b"\xfftOc" + struct.pack(">I", 2))
    idx += struct.pack(">256I", *itertools.accumulate(counts))
    idx += b"".join(r[0] for r in rows)
    idx += struct.pack(f">{len(rows)}I", *(r[1] for r in rows))
    idx += struct.pack(f">{len(rows)}I", *(r[2] for r in rows))
    idx += pack_sum
    idx += hashlib.sha1(idx).digest()
    return bytes(body), bytes(idx)


def write_pack(
    pack_dir: Path, objects: dict[str, tuple[bytes, bytes]], spares: SpareFiles | None = None
) -> str:
    """Write ``objects`` as ``pack-<sum>.pack`` and ``.idx``; returns the pack's name.

    The pack goes first (Git ignores a pack without an index), then the index. Each
    appears under its final name only once complete: a spare file is filled and linked
    into place, or the file is written beside and renamed. A retry writes the same
    bytes under the same names (names are sums of the content): a file already there is
    left as it is (found by the failed link, or looked up before writing without a spare).

    Measured against gitdb's ``PackEntity.create`` (benchmarks/ab_store.py, 3.2
    objects per commit): 0.67 against 0.85 ms median without spare files, 0.24 ms with
    them. The spare files need the bytes of the pack in hand, which this writer gives.
    """
    pack, idx = pack_bytes(objects)
    name = f"pack-{pack[-20:].hex()}"
    folder = os.fspath(pack_dir)  # plain strings: Path objects cost more than the writes
    pack_path = f"{folder}/{name}.pack"
    idx_path = f"{folder}/{name}.idx"
    try:
        os.mkdir(folder)
    except FileExistsError:
        pass
    for path, data in ((pack_path, pack), (idx_path, idx)):
        if spares is not None and spares.place(path, data):
            continue  # linked, or there already (a spare is never linked over a file)
        if os.path.exists(path):
            continue  # a retry: the same bytes
        tmp = f"{folder}/tmp_{os.getpid()}_{os.path.basename(path)}"
        try:
            os.unlink(tmp)  # left by a killed process with this pid
        except FileNotFoundError:
            pass
        write_all(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444), data)
        os.replace(tmp, path)
    return name
