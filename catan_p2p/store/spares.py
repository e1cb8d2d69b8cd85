"""Empty files made ahead of need, so writing a commit's pack links files instead of making them.

Recording an action writes a small pack and its index: two new files. On ext4 without a
journal, making a file near thousands freed a moment ago (a repack's, a removed game's)
costs 0.1 to 0.5 ms, since the allocator skips each recently freed inode in turn, while
linking an existing one under a new name costs about 0.015 ms; elsewhere making one costs
about as much as the link (docs/ARCHITECTURE.md, "Making files"). A background thread
keeps a few empty files open and ready in a directory Git ignores, on the same
filesystem as the packs; the
writer fills one and links it into place, and the thread removes the spare's own name.
Nothing depends on the pool: with no spare ready, or where files cannot be linked, the
writer makes its file as before.

Each pool holds an exclusive ``flock`` on its own lock file while it runs, so a pool
starting later can tell the spares of a killed process (lock free) from a live one's.
"""

from __future__ import annotations

import collections
import itertools
import os
import queue
import threading
import uuid
import weakref
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None
try:
    import msvcrt
except ImportError:  # not Windows
    msvcrt = None

#: Spares kept ready per repository: a pack and its index for four commits in a row. The
#: thread is woken when half are used, not for each one (see ``_Pool.used``).
KEEP = 8

_LOCK = ".lock"


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write less) and close it."""
    try:
        written = os.write(fd, data)
        if written < len(data):
            view = memoryview(data)[written:]
            while view:
                view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


class SpareFiles:
    """A pool of empty, open, write-only files in ``directory`` (one pool per repository).

    ``place()`` never waits for the pool: with no spare ready it says so and the caller
    makes its file itself. The thread starts on first use and stops at ``close()`` or
    when the process exits, removing the spares it did not hand out.
    """

    def __init__(self, directory: Path, keep: int = KEEP) -> None:
        self.directory = Path(directory)
        self.keep = keep
        self.placed = 0  # files written through a spare (for tests and benchmarks)
        self._pool: _Pool | None = None
        self._stop: weakref.finalize | None = None
        self._linking = True  # False once a link failed: this filesystem cannot
        self._mutex = threading.Lock()
        _every.add(self)

    def start(self) -> None:
        """Start making spares now (the first ``place()`` does it otherwise)."""
        self._started()

    def _started(self) -> _Pool | None:
        with self._mutex:
            if self._pool is None and self._linking:
                self._pool = _Pool(self.directory, self.keep)
                self._stop = weakref.finalize(self, self._pool.stop)
            return self._pool

    @property
    def ready(self) -> int:
        """How many spares are ready now."""
        pool = self._pool
        return 0 if pool is None else pool.ready.qsize()

    def place(self, path: Path, data: bytes) -> bool:
        """Write ``data`` into a spare and link it as ``path``; False if no spare was used.

        ``path`` appears complete or not at all; an existing ``path`` is left alone (the
        same bytes written before: names are content sums). The spare's own name is
        removed by the pool's thread, because removing it here would wait for the
        thread's file creation in the same directory.
        """
        pool = self._started()
        if pool is None:
            return False
        try:
            spare, fd = pool.ready.get_nowait()
        except queue.Empty:
            return False
        linked = True
        try:
            write_all(fd, data)  # a full disk raises here, as the caller's own write would
            try:
                os.link(spare, path)
            except FileExistsError:
                pass
            except OSError:  # no hard links here (another filesystem, FAT, some mounts)
                linked = False
        finally:
            pool.used(spare)
        if not linked:
            self._linking = False
            self.close()
            return False
        self.placed += 1
        return True

    def close(self) -> None:
        """Stop making spares and remove the ones not used (a later place() starts again)."""
        with self._mutex:
            stop, self._stop, self._pool = self._stop, None, None
        if stop is not None:
            stop()


#: Every pool of this process, which a forked child lets go of (``_forget_pools``).
_every: weakref.WeakSet[SpareFiles] = weakref.WeakSet()


def _forget_pools() -> None:
    """In a forked child: the parent's spares stay the parent's. Handed out here too, one
    file would be filled by two processes; the child makes its own pool at first use, and
    its exit removes nothing of the parent's. Only the child's copies of the descriptors
    are closed (no lock is taken: a thread of the parent may have held one at the fork)."""
    for spares in list(_every):
        pool, stop = spares._pool, spares._stop
        spares._pool, spares._stop, spares._mutex = None, None, threading.Lock()
        if stop is not None:
            stop.detach()
        if pool is None:
            continue
        fds = [fd for _, fd in pool.ready.queue]
        if pool._lock_fd is not None:
            fds.append(pool._lock_fd)  # else the parent's pool would look alive after it
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_forget_pools)


class _Pool:
    """The thread and the queues behind one SpareFiles (kept apart so finalize can stop it)."""

    def __init__(self, directory: Path, keep: int) -> None:
        self.directory = directory
        self.name = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.ready: queue.Queue[tuple[str, int]] = queue.Queue(maxsize=keep)
        self.low = keep // 2  # the thread is woken when no more than this are ready
        self._spent: collections.deque[str] = collections.deque()  # names to remove
        # What wakes the thread: half the spares used (True), or stop (None). Waking it
        # hands it the interpreter lock in the middle of the writer's work, so it is
        # woken once per few commits, through a SimpleQueue (C) rather than an Event
        # (``Event.set`` takes a Condition in Python on the writer's thread).
        self._wake: queue.SimpleQueue[bool | None] = queue.SimpleQueue()
        self._stopped = threading.Event()
        self._lock_fd: int | None = None
        self._thread = threading.Thread(target=self._fill, name="catan-p2p spares", daemon=True)
        self._thread.start()

    def used(self, spare: str) -> None:
        """A spare was handed out: remove its name and make another."""
        if self._stopped.is_set():
            _unlink(spare)
            return
        self._spent.append(spare)
        if self.ready.qsize() <= self.low:
            self._wake.put(True)

    def _fill(self) -> None:
        try:
            self._lock_fd = _hold_lock(self.directory, self.name)
            _remove_orphans(self.directory)
        except OSError:
            return  # a read-only repository: the writer makes its own files
        numbers = itertools.count(1)
        prefix = f"{os.fspath(self.directory)}/{self.name}-"  # plain strings: see used()
        while not self._stopped.is_set():
            self._remove_spent()
            if self.ready.full():
                try:
                    self._wake.get(timeout=0.5)  # half the spares used, or stop
                except queue.Empty:
                    pass
                continue
            path = f"{prefix}{next(numbers)}"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
            except OSError:
                return  # a full disk, or the directory gone: the writer makes its own
            if self._stopped.is_set():  # stop() may already have emptied the queue
                _discard(path, fd)
                return
            self.ready.put_nowait((path, fd))  # only this thread puts: there is room

    def _remove_spent(self) -> None:
        while True:
            try:
                _unlink(self._spent.popleft())
            except IndexError:
                return

    def stop(self) -> None:
        """End the thread, then remove every spare of this pool and its lock."""
        self._stopped.set()
        self._wake.put(None)  # wakes the thread
        self._thread.join(timeout=5)
        self._remove_spent()
        while True:
            try:
                _discard(*self.ready.get_nowait())
            except queue.Empty:
                break
        if self._thread.is_alive():
            return  # stuck in a slow file creation: a later pool removes what is left
        if self._lock_fd is not None:
            (self.directory / f"{self.name}{_LOCK}").unlink(missing_ok=True)
            os.close(self._lock_fd)
        try:
            self.directory.rmdir()  # only when empty: another pool may still use it
        except OSError:
            pass


def _discard(path: str, fd: int) -> None:
    os.close(fd)
    _unlink(path)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _hold_lock(directory: Path, name: str) -> int:
    """Create and lock this pool's lock file; the lock lasts as long as the process."""
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / f"{name}{_LOCK}", os.O_RDWR | os.O_CREAT, 0o644)
    if not _try_lock(fd):
        os.close(fd)
        raise OSError(f"cannot lock {directory / name}{_LOCK}")
    return fd


def _can_lock() -> bool:
    return fcntl is not None or msvcrt is not None


def _try_lock(fd: int) -> bool:
    """Take an exclusive lock on ``fd`` without waiting (POSIX flock, Windows locking).

    True where the platform has neither: the pool then only removes its own spares.
    """
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        elif msvcrt is not None:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def _remove_orphans(directory: Path) -> None:
    """Remove the spares and locks of pools whose process ended without cleaning up."""
    if not _can_lock():
        return
    for lock in directory.glob(f"*{_LOCK}"):
        try:
            fd = os.open(lock, os.O_RDWR)
        except FileNotFoundError:
            continue
        try:
            if not _try_lock(fd):
                continue  # held: that pool is alive
        finally:
            os.close(fd)  # also releases the lock just taken
        pool = lock.name[: -len(_LOCK)]
        for spare in directory.glob(f"{pool}-*"):
            spare.unlink(missing_ok=True)
        lock.unlink(missing_ok=True)
