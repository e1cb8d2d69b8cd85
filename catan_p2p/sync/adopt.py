"""Adopting what peers wrote: verify every known head and fast-forward the local seats.

Every head of every seat's log (local, and each source's copy) is offered to each
local peer. A head that verifies moves the peer forward; one that does not is refused
(``Rejections``) and counted as behind; one that diverges is a fork, reported as data,
unless it is an abandoned game meeting the absent player's late moves: then the
abandon wins and a closing merge joins both lines (``sync.liveness``). Heads of an
abandoned game are offered first, so the abandon is taken when both arrive at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from catan_p2p.errors import (
    ForkError,
    IllegalAction,
    NotYetValid,
    StateFileError,
    VerificationError,
)
from catan_p2p.rules.state import GameState
from catan_p2p.store.refs import parse_ref, source_of
from catan_p2p.sync import liveness
from catan_p2p.sync.peer import Peer
from catan_p2p.sync.rejections import Rejections
from catan_p2p.sync.repo import GameRepo


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
    """What one round of adoption found: forks, and heads refused (``behind``)."""

    forks: tuple[Fork, ...]
    behind: int


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


def close_if_abandoned(repo: GameRepo, peers: Iterable[Peer], peer: Peer, oid: str) -> bool:
    """Join an abandoned game's line and the absent player's late moves with ``peer``'s
    closing merge, and let the other local ``peers`` follow; False for any other fork."""
    head = peer.head or peer.genesis
    try:
        close = liveness.closing(repo, peer.verifier.verify, head, oid)
        if close is None:
            return False
        peer.verifier.verify(close.late)
    except (VerificationError, IllegalAction, StateFileError):
        return False
    peer.record_close(close)
    for other in peers:
        if other is not peer:
            other.advance(peer.head)  # type: ignore[arg-type]
    return True


def adopt(
    repo: GameRepo,
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
    behind = 0
    for ref, oid in abandoned_first(heads, lead.verifier.verify):
        if rejections.refused(oid):
            continue
        for peer in peers.values():
            try:
                peer.advance(oid)
            except ForkError as exc:
                if not (may_close and close_if_abandoned(repo, peers.values(), peer, oid)):
                    seat = parse_ref(ref, game)[0]
                    forks.add(Fork(ref, seat, source_of(ref), str(exc)))
            except (VerificationError, IllegalAction) as exc:
                rejections.note(oid, str(exc), early=isinstance(exc, NotYetValid))
                behind += 1
                break
        else:
            rejections.accepted(oid)
    return Adopted(tuple(sorted(forks)), behind)
