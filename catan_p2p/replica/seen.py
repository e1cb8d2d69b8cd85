"""When this machine first saw a head: where an honest peer counts the agreed wait from.

A commit's own date is its author's word. Counted from it, a player who dates its move
290 s ahead (within ``verify.CLOCK_SKEW``) would make every other peer wait that much
longer before an ``abandon``, and one who dates it back would shorten the wait. So a
peer counts the wait from the moment it first held the head the game waits after, by its
own clock, noted in its git directory (``catan-p2p-seen/<game>``: ``<commit id> <time>``
lines, the newest ``KEEP``). Nothing fetched writes there, so no remote can move it; a
line that does not parse is ignored, and on a read-only disk the note lives in memory
for the process (the wait then counts from this process's first look, never earlier).
"""

from __future__ import annotations

import os
from pathlib import Path

from catan_p2p import clock
from catan_p2p.protocol.liveness import waiting_since
from catan_p2p.store.repo import Repository

FOLDER = "catan-p2p-seen"
KEEP = 64  # heads remembered per game: the wait only ever concerns the newest


class SeenLog:
    """First-seen times of one game's heads on this machine."""

    def __init__(self, git_dir: Path | None, game: str) -> None:
        self._path = Path(git_dir) / FOLDER / game if git_dir is not None else None
        self._times: dict[str, int] = self._load()

    def _load(self) -> dict[str, int]:
        if self._path is None:
            return {}
        try:
            text = self._path.read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError):
            return {}
        times: dict[str, int] = {}
        for line in text.splitlines()[-KEEP:]:
            oid, _, when = line.partition(" ")
            if len(oid) == 40 and all(c in "0123456789abcdef" for c in oid) and when.isdigit():
                times.setdefault(oid, int(when))
        return times

    def first_seen(self, oid: str) -> int:
        """When this machine first held ``oid`` as the game's head (noted now if never)."""
        known = self._times.get(oid)
        if known is None:  # another process on this repository (a bot, the window) may know
            self._times = {**self._load(), **self._times}
            known = self._times.get(oid)
        if known is not None:
            return known
        now = int(clock.now())
        self._times[oid] = now
        while len(self._times) > KEEP:
            del self._times[next(iter(self._times))]
        self._save()
        return now

    def _save(self) -> None:
        """Write, then rename: never half a file; a read-only disk keeps it in memory."""
        if self._path is None:
            return
        tmp = self._path.with_name(f".{self._path.name}.{os.getpid()}.tmp")
        try:
            self._path.parent.mkdir(exist_ok=True)
            tmp.write_text("".join(f"{o} {t}\n" for o, t in self._times.items()), "ascii")
            tmp.replace(self._path)
        except OSError:
            tmp.unlink(missing_ok=True)


class Wait:
    """How long one peer has waited on each head: ``waiting_since`` from this machine's
    first sight of it (``SeenLog``), worked out once per head."""

    def __init__(self, repo: Repository, game: str) -> None:
        self.repo = repo
        self.seen = SeenLog(repo.git_dir, game)
        self._last: tuple[str, int] | None = None  # head -> waiting_since

    def saw(self, head: str) -> None:
        """Note ``head`` as seen now, unless it was seen before."""
        self.seen.first_seen(head)

    def since(self, head: str) -> int:
        """When the game began waiting on the move after ``head`` (``waiting_since``)."""
        if self._last is None or self._last[0] != head:
            self._last = (head, waiting_since(self.repo, head, self.seen.first_seen(head)))
        return self._last[1]
