"""Adopting what peers wrote: verify every known head and fast-forward the local seats.

Every head of every seat's log (local, and each source's copy) is offered to each
local peer. A head that verifies moves the peer forward; one that does not is refused
(``Rejections``) and counted as behind; one that diverges is a fork, reported as data,
unless it is an abandoned game meeting a line that gives way to it (the absent
player's late moves, a later seat's abandon): then the winning abandon's author joins
them with a closing merge, and the others wait for it (``protocol.liveness``). Heads of an
abandoned game are offered first, so the abandon is taken when both arrive at once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from catan_p2p.errors import (
    ForkError,
    IllegalAction,
    NotYetValid,
    StateFileError,
    VerificationError,
)
from catan_p2p.protocol import liveness
from catan_p2p.replica.peer import Peer
from catan_p2p.replica.rejections import Rejections
from catan_p2p.rules.state import GameState
from catan_p2p.store.refnames import parse_ref, source_of
from catan_p2p.store.repo import Repository


@dataclass(frozen=True, order=True)
class Fork:
    """A head of ``seat``'s log that diverges from a local seat's branch.

    ``ref`` is where it was found; ``source`` the remote it was fetched from (None: a
    branch of this repository); ``reason`` the sentence for people.
    """

    ref: str
    seat: str
    source: str | None
    reason: str

    def __str__(self) -> str:
        return f"{self.ref}: {self.reason}"


@dataclass(frozen=True)
class Adopted:
    """What one round of adoption found: forks, heads refused (``behind``), and lines
    that wait for another peer's closing merge (``waiting``: sentences; not a fork, the
    game goes on by itself once that peer syncs)."""

    forks: tuple[Fork, ...]
    behind: int
    waiting: tuple[str, ...] = ()


@dataclass(frozen=True)
class Awaited:
    """Two lines an abandon joins, whose closing merge another peer owes."""

    note: str


def abandoned_first(
    heads: Mapping[str, str], verify: Callable[[str], GameState]
) -> list[tuple[str, str]]:
    """``heads`` in ref order, those of an abandoned game first."""

    def abandoned(oid: str) -> bool:
        try:
            return verify(oid).abandoned >= 0
        except (VerificationError, IllegalAction, StateFileError):
            return False

    return sorted(heads.items(), key=lambda kv: (not abandoned(kv[1]), kv[0]))


def close_if_abandoned(
    repo: Repository,
    peers: Mapping[str, Peer],
    peer: Peer,
    oid: str,
    fork: str,
    may_close: bool = True,
) -> Awaited | str | None:
    """Join an abandoned game's line and a line that loses to it (``oid`` or ``peer``'s
    head) with the closing merge when a local seat wrote the winning abandon, and let
    the other local ``peers`` follow (``protocol.liveness``). None once joined, else what
    to report: the merge its author owes (``Awaited``: not written here), or ``fork``."""
    head = peer.head or peer.genesis
    try:
        close = liveness.closing(repo, peer.verifier.verify, head, oid)
        if close is None:
            return fork
        peer.verifier.verify(close.late)
    except (VerificationError, IllegalAction, StateFileError):
        return fork
    closer = peers.get(close.by)
    if not may_close or closer is None or (closer.head or closer.genesis) != head:
        return Awaited(liveness.awaited(close))
    closer.record_close(close)
    for other in peers.values():
        if other is not closer:
            other.advance(closer.head)  # type: ignore[arg-type]
    return None


def adopt(
    repo: Repository,
    game: str,
    heads: Mapping[str, str],
    peers: Mapping[str, Peer],
    rejections: Rejections,
    may_close: bool = True,
) -> Adopted:
    """Offer every head in ``heads`` (ref -> commit) to every local peer.

    ``may_close``: a fork with an abandon may be closed by a merge (not when reading only).
    """
    if not peers:
        return Adopted((), 0)
    lead = next(iter(peers.values()))
    forks: set[Fork] = set()
    waiting: set[str] = set()
    behind = 0
    for ref, oid in abandoned_first(heads, lead.verifier.verify):
        if rejections.refused(oid):
            continue
        for peer in peers.values():
            try:
                peer.advance(oid)
            except ForkError as exc:
                note = close_if_abandoned(repo, peers, peer, oid, str(exc), may_close)
                if isinstance(note, Awaited):
                    waiting.add(note.note)
                elif note:
                    seat = parse_ref(ref, game)[0]
                    forks.add(Fork(ref, seat, source_of(ref), note))
            except (VerificationError, IllegalAction) as exc:
                rejections.note(oid, str(exc), early=isinstance(exc, NotYetValid))
                behind += 1
                break
        else:
            rejections.accepted(oid)
    return Adopted(tuple(sorted(forks)), behind, tuple(sorted(waiting)))
