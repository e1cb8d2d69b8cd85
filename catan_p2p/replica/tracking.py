"""This repository's copies of fetched refs: what a fetch brought is kept or let go.

The policy (``protocol.refpolicy``) says which refs are junk; this module deletes them
here, so one junk ref stops no reader.
"""

from __future__ import annotations

from collections.abc import Sequence

from catan_p2p.errors import ForkError
from catan_p2p.protocol.refpolicy import is_junk
from catan_p2p.store.refnames import fetched, tracking_prefix, tracking_ref
from catan_p2p.store.repo import Repository


def drop_junk(repo: Repository, game: str) -> None:
    """Delete the fetched refs of ``game`` that are not of a protocol shape or do not
    name a commit (a blob, a tree, a tag)."""
    for ref, oid in fetched(repo.refs, game).items():
        if is_junk(repo, ref, oid, game):
            forget(repo, ref, oid)


def keep_fetched(
    repo: Repository, game: str, source: str, logs: Sequence[str], steps: Sequence[str]
) -> dict[str, str]:
    """After a fetch of ``logs`` and open-step prefixes ``steps`` from ``source``: what it
    holds of them (tracking ref -> value, junk included, as it was: the lease of the
    next push), with every other fetched ref of the source, and any junk, let go."""
    there = repo.refs.list(tracking_prefix(game, source))
    keep = {tracking_ref(r, source) for r in logs}
    bases = tuple(tracking_ref(s, source) + "/" for s in steps)
    held = {ref: oid for ref, oid in there.items() if ref in keep or ref.startswith(bases)}
    for ref, oid in there.items():
        if ref not in held or is_junk(repo, ref, oid, game):
            forget(repo, ref, oid)
    return held


def forget(repo: Repository, ref: str, oid: str | None = None) -> None:
    """Delete this repository's copy of ``ref``, if it still points at ``oid`` (None:
    whatever it holds); a read-only disk, or a ref moved or locked meanwhile, keeps it
    (readers skip a junk ref anyway, and a finished answer is deleted at the next start)."""
    try:
        repo.refs.delete(ref, oid)
    except (OSError, ForkError):
        pass
