"""Empty files made ahead of need, so writing a commit's pack moves files instead of making them.

Recording an action writes a small pack and its index: two new files. On the disks we
measured (ext4 on a virtual disk), allocating a new file costs 0.2 to 1 ms while linking
an existing one under a new name costs about 0.01 ms, so making the two files was most
of the time it takes to record an action. A background thread keeps a few empty files
open and ready in a directory Git ignores, on the same filesystem as the packs; the
writer fills one and links it into place, and the thread removes the spare's own name.
Nothing depends on the pool: with no spare ready, the writer makes its file as before.
"""

from __future__ import annotations

import itertools
import os
import queue
import threading
import weakref
from pathlib import Path

#: Spares kept ready per repository: a pack and its index for two commits in a row.
KEEP = 4

_numbers = itertools.count(1)  # spare names never repeat within a process, across pools


class SpareFiles:
    """A pool of empty, open, write-only files in ``directory`` (one pool per repository).

    ``place()`` never waits for the pool: with no spare ready it says so and the caller
    makes its file itself. The thread starts on first use and stops at ``close()`` or
    when the process exits; the spares it made and did not hand out are removed then,
    and spares left by a process that was killed are removed by the next pool that
    starts in the same directory.
    """

    def __init__(self, directory: Path, keep: int = KEEP) -> None:
        self.directory = Path(directory)
        self.keep = keep
        self._pool: _Pool | None = None

    def place(self, path: Path, data: bytes) -> bool:
        """Write ``data`` into a spare and link it as ``path``; False if no spare was ready.

        ``path`` appears complete or not at all; an existing ``path`` is left alone (the
        same bytes written before: names are content sums). The spare's own name is
        removed by the pool's thread, because removing it here would wait for the
        thread's file creation in the same directory.
        """
        if self._pool is None:
            self._pool = _Pool(self.directory, self.keep)
            weakref.finalize(self, self._pool.stop)
        try:
            spare, fd = self._pool.ready.get_nowait()
        except queue.Empty:
            return False
        try:
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
            os.link(spare, path)
        except FileExistsError:
            pass
        finally:
            self._pool.used(spare)
        return True

    def close(self) -> None:
        """Stop making spares and remove the ones not used (a later place() starts again)."""
        if self._pool is not None:
            self._pool.stop()
            self._pool = None


class _Pool:
    """The thread and the queues behind one SpareFiles (kept apart so finalize can stop it)."""

    def __init__(self, directory: Path, keep: int) -> None:
        self.directory = directory
        self.ready: queue.Queue[tuple[Path, int]] = queue.Queue(maxsize=keep)
        self._spent: queue.SimpleQueue[Path] = queue.SimpleQueue()  # names to remove
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._pid = os.getpid()
        self._thread = threading.Thread(target=self._fill, name="catan-p2p spares", daemon=True)
        self._thread.start()

    def used(self, spare: Path) -> None:
        """A spare was handed out: remove its name and make another."""
        self._spent.put(spare)
        self._wake.set()

    def _fill(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            _remove_orphans(self.directory, self._pid)
        except OSError:
            return  # a read-only repository: the writer makes its own files
        while not self._stopped.is_set():
            self._remove_spent()
            if self.ready.full():
                self._wake.wait(timeout=0.5)
                self._wake.clear()
                continue
            path = self.directory / f"{self._pid}-{next(_numbers)}"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
            except FileNotFoundError:  # another process's pool removed the emptied directory
                try:
                    self.directory.mkdir(parents=True, exist_ok=True)
                except OSError:
                    return
                continue
            except OSError:
                return
            if self._stopped.is_set():  # stop() may already have emptied the queue
                _discard(path, fd)
                return
            self.ready.put_nowait((path, fd))  # only this thread puts: there is room

    def _remove_spent(self) -> None:
        while True:
            try:
                self._spent.get_nowait().unlink(missing_ok=True)
            except queue.Empty:
                return

    def stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        self._thread.join(timeout=2)
        self._remove_spent()
        while True:
            try:
                _discard(*self.ready.get_nowait())
            except queue.Empty:
                break
        try:
            self.directory.rmdir()  # only when empty: another process may still use it
        except OSError:
            pass


def _discard(path: Path, fd: int) -> None:
    os.close(fd)
    path.unlink(missing_ok=True)


def _remove_orphans(directory: Path, own_pid: int) -> None:
    """Remove spares of processes that no longer run (killed before they could clean up)."""
    if os.name != "posix":
        return  # os.kill(pid, 0) would not just ask there
    for path in directory.iterdir():
        pid = path.name.partition("-")[0]
        if not pid.isdigit() or int(pid) == own_pid or _is_running(int(pid)):
            continue
        path.unlink(missing_ok=True)


def _is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # running, but another user's
    return True
