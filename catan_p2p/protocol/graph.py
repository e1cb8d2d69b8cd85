"""What the protocol reads of a repository: commits, their lines, objects and refs.

The protocol's rules (``verify``, ``liveness``, ``refpolicy``, ``genesis``, ``audit``,
``chatlines``) decide from history alone, so they take this read-only view and never a
repository, a process or a clock. ``store.repo.CommitGraph`` (Git's object database on disk)
and ``store.memory.MemoryRepo`` (dicts) both are one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from catan_p2p.store.formats import Commit

#: The time now, in seconds since the epoch: the protocol is told it, never reads it.
Clock = Callable[[], float]


class Objects(Protocol):
    """Object reads: kind and bytes of an object id (KeyError when absent)."""

    def read(self, oid: str) -> tuple[bytes, bytes]: ...


class Refs(Protocol):
    """Ref reads: one ref's value, or every ref under a prefix."""

    def get(self, ref: str) -> str | None: ...

    def list(self, prefix: str) -> dict[str, str]: ...


class CommitGraph(Protocol):
    """A history to decide from: its commits and their first-parent lines."""

    @property
    def store(self) -> Objects: ...

    @property
    def refs(self) -> Refs: ...

    def commit(self, oid: str) -> Commit: ...

    def first_parents(self, oid: str, stop: str | None = None) -> list[str]: ...

    def depth(self, oid: str) -> int: ...

    def is_ancestor(self, ancestor: str, descendant: str) -> bool: ...
