"""Where a game is published and read (protocol 6): the shared remote and each seat's own.

A seat may name a *publication point* in its signed seat claim: a Git URL that only it
can write (on a forge, a repository of its own that the other players may read). Every
peer reads every seat's point and the shared remote, if the game has one; it publishes
its own refs to its own point and to the shared remote. Whatever a remote holds is only
a candidate: every commit is verified before it is adopted, so a peer may carry (relay)
the other seats' verified moves in its own log, and the game goes on while one point
is down.

This module decides; ``net/transport.py`` moves the bytes. Everything here is a pure
function of its arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from catan_p2p.rules.actions import ClaimSeat
from catan_p2p.store.refnames import REMOTE, player_ref, point_source


@dataclass(frozen=True)
class Source:
    """A remote this peer reads: its tracking namespace (``refs/remotes/<name>/``) and URL.

    ``owner`` is the seat whose publication point it is (None: the shared remote);
    ``mine``: this peer publishes there.
    """

    name: str
    url: str
    owner: str | None = None
    mine: bool = False


def sources(
    shared: str | None,
    points: Mapping[str, str],
    local: Iterable[str],
    served: str | None = None,
) -> tuple[Source, ...]:
    """Every remote of a game: the shared remote (if any) and each seat's point.

    A point whose URL is the shared remote's is the shared remote (one fetch); the point
    ``served`` from this very repository (``net.serve``) is no remote at all.
    """
    local = set(local)
    out = []
    if shared is not None:
        out.append(Source(REMOTE, shared, None, True))
    for player, url in sorted(points.items()):
        if url != shared and url != served:
            out.append(Source(point_source(player), url, player, player in local))
    return tuple(out)


def logs_to_read(game: str, source: Source, players: Iterable[str]) -> list[str]:
    """The log refs to fetch from ``source``: every seat's on the shared remote, only
    the owner's at a publication point (nobody else can write there; the owner's log
    carries every verified move it has seen)."""
    if source.owner is not None:
        return [player_ref(game, source.owner)]
    return [player_ref(game, p) for p in players]


def claimed_points(claims: Iterable[ClaimSeat]) -> dict[str, str]:
    """The publication points the seat claims name (player -> URL)."""
    return {c.player: c.publish for c in claims if c.publish}


@dataclass(frozen=True)
class Push:
    """What to push to one remote: refs (``leases`` for those pushed over what is there)."""

    updates: tuple[str, ...]
    leases: Mapping[str, str | None]
    forked: tuple[str, ...] = ()  # own refs the remote holds another verified line of


def plan_push(
    own: Mapping[str, str],
    seen: Mapping[str, str | None],
    is_ancestor: Callable[[str, str], bool],
    refused: Callable[[str], bool],
) -> Push:
    """How a seat publishes its own refs to one remote, given what the remote held.

    Args:
        own: the seat's refs here (ref -> verified commit).
        seen: what the remote held for each at the last fetch (None: absent; any value,
            junk included, as it was).
        is_ancestor: whether the first commit is an ancestor of the second.
        refused: whether a value is known bad (not a commit, or refused by verification).

    A remote value that is an ancestor of the own commit is moved forward. One that is
    not a verified descendant (junk, a forgery, a rewind) is overwritten: the seat
    restores its branch. Both go with a lease on the value seen, so a push this peer
    has not seen is never lost. A verified value that is not an ancestor (the seat's
    own other device played on) is left alone: the fork is reported instead.
    """
    updates, leases, forked = [], {}, []
    for ref, mine in sorted(own.items()):
        there = seen.get(ref)
        if there == mine:
            continue
        if there is None or refused(there) or is_ancestor(there, mine):
            updates.append(ref)
            leases[ref] = there
        elif not is_ancestor(mine, there):
            forked.append(ref)
    return Push(tuple(updates), leases, tuple(forked))
