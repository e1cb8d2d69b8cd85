"""Which fetched refs a peer reads: the one home of the rule about junk refs.

Anyone who may push to a plain remote can put junk beside a game (an unknown kind, a
nested answer, an upper-case name, a blob where a commit belongs, a log of a name that
is no seat). Left in place, one such ref would stop every reader; so a peer reads only
refs of a protocol shape (``store.refs.well_formed``) naming a commit, and lets its
local copy of anything else go. The remote's copy is the hook's business (it refuses
such pushes, ``sync.hook``), or, on a forge, nobody's: peers never ask for it.
"""

from __future__ import annotations

from catan_p2p.errors import ForkError, StateFileError
from catan_p2p.store.refs import fetched, well_formed
from catan_p2p.sync.repo import GameRepo


def drop_junk(repo: GameRepo, game: str) -> None:
    """Delete the fetched refs of ``game`` that are not of a protocol shape or do not
    name a commit (a blob, a tree, a tag)."""
    for ref, oid in fetched(repo.refs, game).items():
        if is_junk(repo, ref, oid, game):
            forget(repo, ref, oid)


def is_junk(repo: GameRepo, ref: str, oid: str, game: str) -> bool:
    """Whether a fetched ref is of no protocol shape or names no commit."""
    return not well_formed(ref, game) or not names_a_commit(repo, oid)


def forget(repo: GameRepo, ref: str, oid: str) -> None:
    """Delete this repository's copy of a fetched ref, if it still points at ``oid``."""
    try:
        repo.refs.delete(ref, oid)
    except (OSError, ForkError):
        pass  # a read-only disk, or moved meanwhile: readers skip it anyway


def names_a_commit(repo: GameRepo, oid: str) -> bool:
    try:
        repo.commit(oid)
    except (StateFileError, KeyError, ValueError, OSError):
        return False
    return True
