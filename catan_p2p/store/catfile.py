"""The one reader of Git objects: a long-running ``git cat-file --batch``.

Every object the package reads back from disk comes through here: a game's store
(``store.objects.GitObjectStore``), the ``pre-receive`` hook (pushed objects wait in a
quarantine directory that Git names only through environment variables, which the
child inherits) and the lobby's cache of remote games (names such as ``<oid>:game.json``).
Git resolves the deltas of a repacked game in C and looks again at the packs when an
object is not where it was (a repack moved it), so none of that is done here.

Chosen by benchmarks/ab_reader.py against gitdb (which this replaced), dulwich and
GitPython's own persistent ``cat-file`` reader, counting the child's CPU too.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from catan_p2p.errors import StateFileError
from catan_p2p.store import gitcmd

#: An object's kind and bytes, as Git names the kind (b"commit", b"tree", b"blob", b"tag").
Found = tuple[bytes, bytes]

#: No bound on the size of an object read.
UNBOUNDED = 1 << 62


#: Readers with a child running: each is stopped (and its child waited for) when this
#: process exits, so no ``cat-file`` outlives the command that started it.
_running: weakref.WeakSet[CatFile] = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    for reader in list(_running):
        reader.close()


def _forget_children() -> None:
    """In a forked child: the parent's ``cat-file`` children answer the parent. Asked here
    too, the two processes would read each other's answers, and holding the pipes the
    child would keep the parent's ``cat-file`` from ever seeing the end of its input. The
    child's copies of the pipes are pointed at the null device (a write still buffered at
    the fork goes nowhere) and the child starts its own reader at its first read."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for reader in list(_running):
            proc, reader._proc, reader._lock = reader._proc, None, threading.Lock()
            reader._stderr = None  # the parent's file: its copy is closed with the object
            if proc is not None:
                for pipe in (proc.stdin, proc.stdout):
                    if pipe is not None:
                        os.dup2(null, pipe.fileno())
        _running.clear()
    finally:
        os.close(null)


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_forget_children)


class CatFile:
    """One ``git cat-file --batch`` over ``git_dir``, started on the first read.

    ``read`` answers an object's kind and bytes, or None when Git has no such object. A
    child that stops (a damaged pack Git gives up on, a kill) is a ``StateFileError``
    naming Git's own words, and the next read starts a new one. A question and its
    answer hold a lock: two threads never read each other's answers.
    """

    def __init__(self, git_dir: Path | str) -> None:
        self.git_dir = Path(git_dir)
        self._proc: subprocess.Popen | None = None
        self._stderr: IO[bytes] | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> CatFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # A store dropped without ``close``: its child is waited for here, not left to
        # find the end of its input after the command that started it has gone.
        if self._proc is not None:
            self.close()

    def _started(self) -> subprocess.Popen:
        if self._proc is None:
            # Git's complaints go to a file, not a pipe nobody reads (a full pipe would
            # stop the child): read back when the child stops.
            self._stderr = tempfile.TemporaryFile()
            self._proc = gitcmd.start(
                self.git_dir,
                *("cat-file", "--batch"),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
            )
            _running.add(self)
        return self._proc

    def close(self) -> None:
        """Stop the child (a later read starts another)."""
        proc, self._proc = self._proc, None
        _running.discard(self)
        if proc is not None:
            for pipe in (proc.stdin, proc.stdout):
                try:
                    pipe.close()  # type: ignore[union-attr]
                except OSError:
                    pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # stuck on a slow disk: not ours to wait on
                proc.kill()
                proc.wait()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def said(self) -> str:
        """The last line Git wrote on its error stream ("" when none), such as why it
        could not use a damaged pack."""
        if self._stderr is None:
            return ""
        end = self._stderr.seek(0, 2)
        self._stderr.seek(max(0, end - 4096))
        lines = self._stderr.read().decode(errors="replace").strip().splitlines()
        return lines[-1].strip() if lines else ""

    def missing(self, oid: str) -> StateFileError:
        """The error for an object Git does not have (with Git's complaint, if any)."""
        said = self.said()
        why = f" (Git said: {said})" if said else ""
        return StateFileError(f"object {oid} is missing from {self.git_dir}{why}")

    def _stopped(self, name: str) -> StateFileError:
        """The error for a child that stopped answering while ``name`` was asked."""
        said = self.said()
        said = f": {said}" if said else ""
        self.close()
        return StateFileError(
            f"Git stopped while reading {name} from {self.git_dir}{said}; the repository's "
            "objects may be damaged (`git fsck` names them)"
        )

    def read(self, name: str, limit: int = UNBOUNDED) -> Found | None:
        """The kind and bytes of ``name`` (an oid, or ``<oid>:<path>``); None when Git has
        no such object or it is larger than ``limit`` bytes (with ``limit`` 0 the kind
        alone, bytes empty)."""
        with self._lock:
            proc = self._started()
            try:
                proc.stdin.write(name.encode() + b"\n")  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
            except (BrokenPipeError, ValueError):
                raise self._stopped(name) from None
            return self._answer(name, limit)

    def read_all(self, names: Iterable[str], limit: int = UNBOUNDED) -> dict[str, Found]:
        """``name -> (kind, bytes)`` of every object of ``names`` found (as ``read``).

        The names are written by a thread while the answers are read, in one stream:
        a round trip per object was most of the lobby's listing time.
        """
        with self._lock:
            return self._read_all(list(names), limit)

    def _read_all(self, names: list[str], limit: int) -> dict[str, Found]:
        proc = self._started()
        stdin = proc.stdin
        data = b"".join(n.encode() + b"\n" for n in names)

        def feed() -> None:
            try:
                stdin.write(data)  # type: ignore[union-attr]
                stdin.flush()  # type: ignore[union-attr]
            except (BrokenPipeError, ValueError, OSError):
                pass  # the child stopped: the reader below says so

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        out = {}
        try:
            for name in names:
                found = self._answer(name, limit)
                if found is not None:
                    out[name] = found
        finally:
            writer.join()
        return out

    def _answer(self, name: str, limit: int) -> Found | None:
        """The next answer of the child (see ``read``)."""
        stdout = self._proc.stdout  # type: ignore[union-attr]
        line = stdout.readline()
        if not line.endswith(b"\n"):
            raise self._stopped(name)
        header = line.split()
        if len(header) != 3:
            return None  # "<name> missing" (or ambiguous)
        size = int(header[2])
        if size > limit:
            left = size + 1
            while left:
                chunk = stdout.read(min(left, 1 << 20))
                if not chunk:
                    raise self._stopped(name)
                left -= len(chunk)
            return (header[1], b"") if limit == 0 else None
        data = stdout.read(size + 1)  # the object and the newline after it
        if len(data) != size + 1:
            raise self._stopped(name)
        return header[1], data[:-1]


class CatFileStore:
    """A read-only object store over ``CatFile``: what the hook verifies a push with."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = Path(git_dir)
        self.reader = CatFile(self.git_dir)

    def read(self, oid: str) -> Found:
        found = self.reader.read(oid)
        if found is None:
            raise self.reader.missing(oid)
        return found

    def has(self, oid: str) -> bool:
        return self.reader.read(oid, limit=0) is not None

    def write(self, kind: bytes, data: bytes) -> str:
        raise StateFileError("a cat-file store is read-only")

    def close(self) -> None:
        self.reader.close()
