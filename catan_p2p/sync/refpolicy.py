"""Which fetched refs a peer reads: the one home of the rule about junk refs.

Anyone who may push to a plain remote can put junk beside a game (an unknown kind, a
nested answer, an upper-case name, a blob where a commit belongs, a log of a name that
is no seat). Left in place, one such ref would stop every reader; so a peer reads only
refs of a protocol shape (``store.refs.well_formed``) naming a commit, and lets its
local copy of anything else go. The remote's copy is the hook's business (it refuses
such pushes, ``sync.hook``), or, on a forge, nobody's: peers never ask for it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from catan_p2p.errors import ForkError, StateFileError
from catan_p2p.store.refs import (
    fetched,
    game_prefix,
    parse_ref,
    player_ref,
    tracking_prefix,
    tracking_ref,
    well_formed,
)
from catan_p2p.sync.repo import GameRepo


def player_heads(repo: GameRepo, game: str, seats: Collection[str] | None = None) -> dict[str, str]:
    """Every known head of every seat's log (ref -> commit): local refs and fetched ones,
    only of a protocol shape, only of ``seats`` (None: any name, while the seats are not
    known yet)."""
    found = {**repo.refs.list(game_prefix(game)), **fetched(repo.refs, game)}
    out = {}
    for ref, oid in found.items():
        if well_formed(ref, game):
            player, kind, _ = parse_ref(ref, game)
            if kind is None and (seats is None or player in seats):
                out[ref] = oid
    return out


def tracked_logs(repo: GameRepo, game: str, seats: Collection[str]) -> dict[str, str]:
    """Each seat's log as last fetched from the shared remote (seat -> commit)."""
    prefix = tracking_ref(game_prefix(game)) + "/"
    heads = player_heads(repo, game, seats)
    return {ref[len(prefix) :]: oid for ref, oid in heads.items() if ref.startswith(prefix)}


def anchor(heads: Mapping[str, str], game: str, local: Iterable[str] = ()) -> str:
    """The head whose genesis is the game's: a local seat's own branch before any fetched
    one (a fetched ref may come from anyone and start another history)."""
    own = [player_ref(game, p) for p in local]
    for ref in [*own, *sorted(heads)]:
        if ref in heads and not ref.startswith("refs/remotes/"):
            return heads[ref]
    return next(iter(heads.values()))


def drop_junk(repo: GameRepo, game: str) -> None:
    """Delete the fetched refs of ``game`` that are not of a protocol shape or do not
    name a commit (a blob, a tree, a tag)."""
    for ref, oid in fetched(repo.refs, game).items():
        if is_junk(repo, ref, oid, game):
            forget(repo, ref, oid)


def keep_fetched(
    repo: GameRepo, game: str, source: str, logs: Sequence[str], steps: Sequence[str]
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
