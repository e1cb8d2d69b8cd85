"""One seat, one program at a time on this machine.

Two windows (or a window and a bot) on the same seat of the same repository would each
record moves on one branch: the second's moves fail with a compare-and-swap sentence
about refs, or worse, both push and the seat forks. So a peer runtime holds an
exclusive ``flock`` on a file per seat in the game's Git directory for its whole life,
and a second one is refused at once, in one sentence naming the process that holds it.
The kernel lets go of the lock when the holder exits, however it ends (SIGKILL
included), so a crash never leaves a seat locked.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterable
from pathlib import Path

from catan_p2p.errors import UsageError

#: The folder of the lock files, in a game repository's Git directory.
FOLDER = "catan-p2p-open"


class SeatLock:
    """The locks of some seats of one game, held until ``release``."""

    def __init__(self, files: list[int]) -> None:
        self._files = files

    @classmethod
    def take(cls, git_dir: Path | None, game: str, seats: Iterable[str]) -> SeatLock | None:
        """Lock ``seats`` of ``game``; None when there is no repository (a game in memory).

        Raises:
            UsageError: another program on this machine holds one of the seats.
        """
        seats = tuple(seats)
        if git_dir is None or not seats:
            return None
        folder = Path(git_dir) / FOLDER
        try:
            folder.mkdir(exist_ok=True)
        except OSError:
            return None  # a read-only repository: nobody can record here anyway
        held: list[int] = []
        try:
            for seat in seats:
                fd = _lock(folder / f"{game}.{seat}", game, seat)
                if fd is not None:
                    held.append(fd)
        except BaseException:
            for fd in held:
                os.close(fd)
            raise
        return cls(held)

    def release(self) -> None:
        """Let the seats go (closing the files drops their locks)."""
        files, self._files = self._files, []
        for fd in files:
            os.close(fd)


def _lock(path: Path, game: str, seat: str) -> int | None:
    """The locked file's descriptor; None when the disk cannot even hold the file (full
    or read-only: the runtime then names the disk, and nothing can be recorded anyway)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode("ascii", "replace").strip() or "another"
        os.close(fd)
        raise UsageError(
            f"{seat.capitalize()}'s seat of game {game} is already open on this machine "
            f"(process {holder}: a window or a bot); close that one first, or play there"
        ) from None
    try:  # who holds it, for the sentence of a second opener
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError:
        pass  # a full disk: the lock holds without the note
    return fd
