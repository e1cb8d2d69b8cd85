"""A disk that cannot take the game's next write, named in one sentence.

Every write a peer makes lands in its own repository: objects, refs, the notes of
``checkpoint`` and ``seen``, and the refs ``git fetch`` updates. When that disk is
read-only or full, the player needs to hear *that*, and what to do, not a lock file's
name or a pack's; ``sync``, ``bot`` and the window all say it with ``sentence``.
"""

from __future__ import annotations

import errno
import os

READ_ONLY, FULL, DENIED = "read-only", "full", "denied"

#: What Git (and the OS, through it) prints for each problem. Not "Permission denied":
#: ssh says that of a key the server refused, which is no local disk's doing.
_WORDS = {
    READ_ONLY: ("Read-only file system",),
    FULL: ("No space left on device", "Disk quota exceeded", "File too large"),
}
_ERRNOS = {
    errno.EROFS: READ_ONLY,
    errno.ENOSPC: FULL,
    errno.EDQUOT: FULL,
    errno.EFBIG: FULL,
    errno.EACCES: DENIED,
    errno.EPERM: DENIED,
}


def problem(error: BaseException | str) -> str | None:
    """``READ_ONLY``, ``FULL`` or ``DENIED`` when ``error`` (an exception, or what Git
    printed) says the local disk refused a write; None for anything else."""
    if isinstance(error, OSError) and error.errno in _ERRNOS:
        return _ERRNOS[error.errno]
    text = str(error)
    for kind, words in _WORDS.items():
        if any(w in text for w in words):
            return kind
    return None


def sentence(kind: str, where: object) -> str:
    """What is wrong with the disk holding ``where``, and what to do about it."""
    if kind == READ_ONLY:
        return (
            f"the disk holding {where} is read-only, so nothing can be saved or fetched; "
            "make it writable (or copy the repository to a writable disk) and try again"
        )
    if kind == FULL:
        return (
            f"the disk holding {where} is full, so nothing can be saved or fetched; free "
            "some space on it and try again (every move made so far is kept)"
        )
    return (
        f"{where} cannot be written (permission denied); give your user write access to "
        "it and try again"
    )


#: Less room than this on the repository's disk counts as full (a pack, a ref lock).
LOW = 64 * 1024


def look(path: object) -> str | None:
    """``READ_ONLY`` or ``FULL`` when the disk holding ``path`` is so now (asked of the
    file system: Git names a failed write without always saying why), else None."""
    try:
        st = os.statvfs(str(path))
    except OSError:
        return None
    if st.f_flag & os.ST_RDONLY:
        return READ_ONLY
    if st.f_bavail * st.f_frsize < LOW:
        return FULL
    return None


def is_sentence(text: str) -> bool:
    """Whether ``text`` (a sync status's error, say) is one of ``sentence``'s."""
    return text.startswith("the disk holding") or "cannot be written (permission denied)" in text


def describe(error: BaseException | str, where: object) -> str | None:
    """``sentence`` for ``error`` when it is a disk problem, else None."""
    kind = problem(error)
    return sentence(kind, where) if kind else None


def repository(git_dir: object) -> str:
    """The repository a git directory belongs to, as the player named it."""
    text = str(git_dir).rstrip("/")
    return text[: -len("/.git")] if text.endswith("/.git") else text


def where(exc: OSError, default: str = "the game's repository") -> str:
    """The repository a failed write was in, from the file it names."""
    name = str(exc.filename or "")
    if "/.git/" in name:
        return name.split("/.git/")[0]
    return name or default
