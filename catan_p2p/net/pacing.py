"""When a peer fetches: a pace that quickens on a move and backs off while quiet, and a
watch on the ref files of remotes that are folders on this machine.

A fetch right after a move came in or went out is likely to find the next one; while
nothing happens the wait grows, up to ``SLOWEST`` (polite to a hosted forge), or up to
``WAITING_SLOWEST`` while the game waits on a seat played elsewhere, so a move shows
within about that plus one fetch however long its player thought. A remote on this
disk needs no poll at all: ``RefWatcher`` looks at its ref files every ``WATCH_EVERY``
seconds (a few ``stat`` calls, no Git process).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: While moves come in, the next fetch follows this soon (seconds) ...
FASTEST = 0.1
#: ... and each quiet round waits this much longer ...
GROWTH = 1.5
#: ... up to one fetch every this many seconds ...
SLOWEST = 4.0
#: ... or this many while the game waits on a seat played elsewhere: its move should
#: show within about this long plus one fetch, however long its player thought.
WAITING_SLOWEST = 0.8
#: How often the ref files of a remote on this machine are looked at (seconds).
WATCH_EVERY = 0.05


class Pace:
    """How long to wait before the next fetch: short after a change, growing while quiet."""

    def __init__(
        self, fastest: float = FASTEST, slowest: float = SLOWEST, growth: float = GROWTH
    ) -> None:
        self.fastest = fastest
        self.slowest = max(fastest, slowest)
        self.growth = growth
        self.wait = fastest

    def after(self, changed: bool) -> float:
        """The wait after a round that did (or did not) bring or send a move."""
        self.wait = self.fastest if changed else min(self.slowest, self.wait * self.growth)
        return self.wait


def local_remote_dir(url: str | None) -> Path | None:
    """The git directory of a remote that is a path on this machine (None otherwise)."""
    if not url:
        return None
    if url.startswith("file://"):
        url = url[len("file://") :]
    elif "://" in url or (":" in url.split("/", 1)[0] and not os.path.isabs(url)):
        return None  # ssh, https, git daemon, or scp-like host:path
    path = Path(url).expanduser()
    if (path / "refs").is_dir() and (path / "objects").is_dir():
        return path
    if (path / ".git" / "refs").is_dir():
        return path / ".git"
    return None


class RefWatcher:
    """Tells when the ref files of remotes on this machine change (by ``stat`` only)."""

    def __init__(self, git_dirs: Iterable[Path]) -> None:
        self.git_dirs = tuple(git_dirs)
        self._seen = self.signature()

    def signature(self) -> tuple:  # type: ignore[type-arg]
        marks = []
        for git_dir in self.git_dirs:
            try:
                st = (git_dir / "packed-refs").stat()
                marks.append((str(git_dir), "", st.st_mtime_ns, st.st_size, st.st_ino))
            except OSError:
                pass
            for root, _dirs, files in os.walk(git_dir / "refs" / "heads" / "catan"):
                for f in files:
                    try:
                        st = os.stat(os.path.join(root, f))
                    except OSError:
                        continue
                    marks.append((root, f, st.st_mtime_ns, st.st_size, st.st_ino))
        return tuple(sorted(marks))

    def changed(self) -> bool:
        now = self.signature()
        if now != self._seen:
            self._seen = now
            return True
        return False


def watcher_for(urls: Iterable[str]) -> RefWatcher | None:
    """A watcher of every remote among ``urls`` that is a folder here (None: none is)."""
    dirs = [d for d in (local_remote_dir(u) for u in urls) if d is not None]
    return RefWatcher(dirs) if dirs else None
