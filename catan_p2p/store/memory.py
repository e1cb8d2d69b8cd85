"""A repository held in memory: objects and refs in dicts, no disk and no ``git``.

The second implementation of ``store.repo.Repository``: the same ids, refs and
compare-and-swap as a repository on disk, so the protocol's tests run on it in
microseconds; nothing to pack or tidy.
"""

from __future__ import annotations

from pathlib import Path

from catan_p2p.store.formats import MemoryObjectStore
from catan_p2p.store.refs import MemoryRefs
from catan_p2p.store.repo import Repository


class MemoryRepo(Repository):
    """An empty repository held in memory."""

    def __init__(self) -> None:
        self.path = Path(f"<memory {id(self):x}>")
        self.git_dir = None
        self._open(MemoryObjectStore(), MemoryRefs())
