"""Git's ``<ref>.lock`` files, taken so that a killed writer's lock can be told and cleared.

Git and this package both take a ref's lock by creating ``<ref>.lock`` only if it is
absent; whoever made it may write the ref, and everyone else waits or gives up. Git never
removes a lock it did not take, so a writer killed while holding one used to block the
ref for good. The rule here (where ``fcntl`` exists):

- Each process makes one *owner file* per repository in ``catan-p2p-locks/``, holds an
  exclusive ``flock`` on it for as long as it runs, and only then writes ``OWNED`` into it.
  The kernel drops the ``flock`` when the process ends, however it ends.
- Taking a lock hard-links the owner file as ``<ref>.lock`` (one ``link``, as cheap as
  the link of the ref it replaces, and atomic: it fails when the lock exists).
- A lock is stale only when it starts with ``OWNED`` and its ``flock`` can be taken: then
  its owner is gone. A lock without ``OWNED`` (Git's, an older version's, a platform
  without ``flock``) is always respected. There is no age rule: a slow live writer keeps
  its ``flock``, so it keeps its lock.
- Clearing holds the dead owner's ``flock`` while checking that ``<ref>.lock`` is still
  that very file (same inode) and removing it. Two clearers therefore take turns, and the
  second finds the name gone or holding the first one's new lock, and leaves it alone;
  nobody ever links a dead owner's file again, so the check cannot go stale.

Without ``fcntl`` (Windows) a lock is Git's plain exclusive file and a stale one stays
until someone removes it; the error names the file.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
import uuid
from pathlib import Path

from catan_p2p.errors import ForkError

try:
    import fcntl
except ImportError:  # not POSIX: locks are never cleared automatically
    fcntl = None

#: How every lock taken by a live owner begins; nothing else is ever cleared.
OWNED = b"catan-p2p ref lock, held while its owner's flock is\n"
#: The folder (inside the git directory, which Git ignores) of the owner files.
OWNERS = "catan-p2p-locks"
#: Tries to take a dead owner's flock that another clearer holds for a moment.
_CLEAR_TRIES = 5

_owners: dict[Path, _Owner] = {}
_owners_mutex = threading.Lock()


def lock_path(path: Path) -> Path:
    """``<ref>.lock``, Git's name for the lock of the file ``path``."""
    return path.with_name(path.name + ".lock")


class _Owner:
    """This process's owner file in one repository, flocked until the process ends."""

    def __init__(self, git_dir: Path) -> None:
        folder = git_dir / OWNERS
        folder.mkdir(exist_ok=True)
        _remove_dead_owners(folder)
        self.path = folder / f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.name = os.fspath(self.path)  # what each lock links from
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o444)
        fcntl.flock(self.fd, fcntl.LOCK_EX)  # before OWNED: see _remove_dead_owners
        write_all(self.fd, OWNED + f"pid {os.getpid()}\n".encode())
        self._numbers = itertools.count()

    def scratch(self) -> Path:
        """A fresh name for a file to be renamed into place (removed with a dead owner)."""
        return self.path.with_name(f"{self.path.name}.{next(self._numbers)}")


def _owner(git_dir: Path) -> _Owner:
    """This process's owner in ``git_dir`` (made on first use; kept by path as given,
    since resolving it on every update would cost more than the update)."""
    with _owners_mutex:
        owner = _owners.get(git_dir)
        if owner is None:
            owner = _owners[git_dir] = _Owner(git_dir)
        return owner


def _forget_owners() -> None:
    """In a forked child: the parent's owners are not the child's. Taken over, they would
    make the child's locks look held by the parent while it lives, and a lock left by a
    killed child would never be cleared; the child makes its own at its first write."""
    global _owners_mutex
    _owners_mutex = threading.Lock()  # another thread may have held it at the fork
    for owner in _owners.values():
        try:
            os.close(owner.fd)  # the parent's flock stays: it holds the same file open
        except OSError:
            pass
    _owners.clear()


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_forget_owners)


def _remove_dead_owners(folder: Path) -> None:
    """Remove owner files (and their scratch files) of processes that have ended.

    Only files that say ``OWNED`` are looked at: their writer took the flock first, so a
    free flock means a dead owner, not one still starting.
    """
    for path in folder.iterdir():
        if "." in path.name:
            continue  # a scratch file: goes with its owner
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            if os.read(fd, len(OWNED)) != OWNED or not _try_flock(fd):
                continue
            for scratch in folder.glob(f"{path.name}.*"):
                scratch.unlink(missing_ok=True)
            path.unlink(missing_ok=True)
        finally:
            os.close(fd)


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd`` (``os.write`` may write less)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class RefLock:
    """Git's lock of one file under the git directory (a ref or ``packed-refs``).

    ``take()`` or fail with ``ForkError``; then change the file (in place, or whole with
    ``replace``); then ``release()``. Also a context manager doing take and release.
    """

    def __init__(self, git_dir: Path, name: str) -> None:
        self.git_dir = git_dir if isinstance(git_dir, Path) else Path(git_dir)
        self.name = name
        # Plain strings: a ref moves four times per action in hot-seat, and building
        # Path objects cost a third of the CPU of an update (``path``/``lock`` make them).
        self.file = f"{os.fspath(git_dir)}/{name}"
        self.lock_file = f"{self.file}.lock"
        self._fd: int | None = None  # the lock file's own descriptor, without fcntl only

    @property
    def path(self) -> Path:
        """The locked file."""
        return Path(self.file)

    @property
    def lock(self) -> Path:
        """``<name>.lock``."""
        return Path(self.lock_file)

    def take(self) -> None:
        """Create ``<name>.lock``, clearing it first if its owner has died.

        Raises:
            ForkError: a live writer (this package or Git) holds the lock.
        """
        for _ in range(3):  # a cleared lock may be taken by another writer first
            try:
                self._create()
                return
            except FileNotFoundError:  # the ref's folder does not exist yet
                self.path.parent.mkdir(parents=True, exist_ok=True)
                continue
            except FileExistsError:
                if not clear_if_stale(self.lock):
                    break
        raise ForkError(
            f"{self.name} is being updated by another writer ({self.lock} exists"
            f"{_holder(self.lock)})"
        )

    def _create(self) -> None:
        if fcntl is not None:
            os.link(_owner(self.git_dir).name, self.lock_file)
        else:
            self._fd = os.open(self.lock_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)

    def replace(self, data: bytes) -> None:
        """Replace the whole file by ``data`` (written aside, then renamed over it)."""
        if fcntl is None:  # Git's own way: the lock file becomes the file
            write_all(self._fd, data)
            os.close(self._fd)
            self._fd = None
            os.replace(self.lock_file, self.file)
            return
        scratch = _owner(self.git_dir).scratch()
        fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(scratch, self.file)

    def release(self) -> None:
        """Remove the lock (gone already when ``replace`` renamed it into place)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        try:
            os.unlink(self.lock_file)
        except FileNotFoundError:
            pass

    def __enter__(self) -> RefLock:
        self.take()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def clear_if_stale(lock: Path) -> bool:
    """Remove ``lock`` if its owner has died; True if the caller may try to take it again.

    False when the lock is held by a live writer or is not ours to judge (Git's).
    """
    if fcntl is None:
        return False
    try:
        fd = os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        return True  # released meanwhile
    try:
        if os.read(fd, len(OWNED)) != OWNED:
            return False  # Git's lock, or one taken without flock: never ours to clear
        for tries in range(_CLEAR_TRIES):
            if _try_flock(fd):
                break
            # Its owner is alive, or another clearer holds the flock for a moment.
            time.sleep(0.001 * (tries + 1))
        else:
            return False
        # The owner is gone and this process alone holds its flock: nobody else can
        # remove or re-link that file now, so the check and the removal cannot be split.
        try:
            now = os.stat(lock)
        except FileNotFoundError:
            return True  # another clearer removed it
        mine = os.fstat(fd)
        if (now.st_ino, now.st_dev) == (mine.st_ino, mine.st_dev):
            os.unlink(lock)
        return True
    finally:
        os.close(fd)


def _holder(lock: Path) -> str:
    """``, held by pid N`` when the lock is one of ours, for the error message."""
    try:
        text = lock.read_bytes()[:200]
    except OSError:
        return ""
    if text.startswith(OWNED):
        return ", held by " + text[len(OWNED) :].decode(errors="replace").strip()
    return ""
