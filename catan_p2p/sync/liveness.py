"""When a player comes back too late: the abandon wins, and one merge joins the lines.

An ``abandon`` (``rules.actions.Abandon``) and a late move of the absent player can
both be written on the commit the game waited after: two lines. The abandon wins, as
the players agreed at ``new``; to bring every player's branch back onto one line
without rewinding any, a peer that sees both writes a **closing merge**: first parent
the abandon's line, second the absent player's late line, the abandon line's state
as its tree, ``Catan-Merge: {"answers":["<absent>"],"kind":"abandon"}``. Every branch
then fast-forwards to it. Everything here is a pure function of the repository's
commits; the session writes the merge, the verifier checks it (PROTOCOL.md "Liveness").
Of two abandons written on one commit (each player abandoning the other on a concurrent
step), the one by the player earlier in seat order wins (``outranked``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from catan_p2p.errors import VerificationError
from catan_p2p.rules.actions import Abandon
from catan_p2p.rules.state import NOBODY, GameState
from catan_p2p.store.objects import Commit
from catan_p2p.sync.protocol import MergeInfo, parse_action, trailer, who
from catan_p2p.sync.repo import GameRepo

KIND = "abandon"
#: How far ahead of a peer's clock any commit may be dated (clocks differ); one dated
#: further ahead is refused for now (``verify.check_not_ahead``).
CLOCK_SKEW = 300


def wait_start(repo: GameRepo, oid: str) -> int:
    """When the game began waiting after ``oid``: the newest commit time on its first-parent
    line, not ``oid``'s own time alone.

    Red team: a player who dated its own ``end_turn`` hours back could otherwise abandon
    the next player at once (the wait counted from the backdated time). Counting from the
    newest time before it, a backdated commit shortens the next player's wait only by as
    long as its author really kept the game waiting (PROTOCOL.md "Trust", Liveness).
    """
    return max(repo.commit(c).when for c in repo.first_parents(oid))


def waiting_since(repo: GameRepo, head: str, seen_at: int) -> int:
    """When this peer counts the game as waiting after ``head``: when it first saw it
    (``seen_at``, ``sync.seen``), so neither a move dated ahead (up to ``CLOCK_SKEW``)
    stretches the agreed wait nor one dated back shortens it; and never earlier than
    ``CLOCK_SKEW`` before the line's newest date, so that the abandon it then writes
    (``abandon_time``) is one every peer takes at once."""
    return max(seen_at, wait_start(repo, head) - CLOCK_SKEW)


def abandon_time(repo: GameRepo, parent: str, timeout: int) -> int:
    """The date an honest ``abandon`` on ``parent`` carries: now, or the earliest date every
    peer accepts (``timeout`` after ``wait_start``) when the line is dated ahead of this
    clock. The peer has counted the wait from when it first saw ``parent`` (``sync.seen``);
    this date only makes the abandon verify. It is at most ``CLOCK_SKEW`` ahead, since
    every commit on the line was taken within that of this clock before the wait began."""
    return max(int(time.time()), wait_start(repo, parent) + timeout)


def abandon_on(repo: GameRepo, tip: str) -> Commit | None:
    """The abandon commit on ``tip``'s first-parent line, if any (searched backwards
    over the reveals that may follow it; an abandoned game has no other moves)."""
    oid = tip
    for _ in range(64):
        c = repo.commit(oid)
        if len(c.parents) != 1:
            return None
        if trailer(c, "Catan-Action") is not None and isinstance(parse_action(c), Abandon):
            return c
        oid = c.parents[0]
    return None


def late_line(repo: GameRepo, tip: str, base: str, absent: str) -> bool:
    """True when ``tip``'s first parents back to ``base`` are all ``absent``'s commits."""
    oid, steps = tip, 0
    while oid != base:
        c = repo.commit(oid)
        if c.author != absent or not c.parents or steps > 10_000:
            return False
        oid, steps = c.parents[0], steps + 1
    return steps > 0


def extends(repo: GameRepo, old: str, new: str) -> bool:
    """True when a branch at ``old`` may move to ``new``: ``old`` is on ``new``'s
    first-parent line, or on the late line a closing merge near ``new`` joined."""
    if repo.is_ancestor(old, new):
        return True
    oid = new
    for _ in range(64):  # after a closing merge come only the deck reveals
        c = repo.commit(oid)
        if not c.parents:
            return False
        if len(c.parents) == 2 and '"kind":"abandon"' in (trailer(c, "Catan-Merge") or ""):
            return repo.is_ancestor(old, c.parents[1])
        oid = c.parents[0]
    return False


def outranked(repo: GameRepo, found: Commit, late: str, players: tuple[str, ...]) -> bool:
    """True when ``late`` holds an abandon written on the same commit as ``found`` by a
    player earlier in seat order: of two crossing abandons, that one wins.

    On a concurrent step the active player and an answerer may each abandon the other
    on one commit; each line is then the other's "late moves", and without a tie-break
    two opposite closing merges would both verify. Seat order cannot be ground.
    """
    rival = abandon_on(repo, late)
    return (
        rival is not None
        and rival.parents[0] == found.parents[0]
        and rival.author in players
        and players.index(rival.author) < players.index(found.author)
    )


@dataclass(frozen=True)
class Closing:
    """The closing merge to write: ``over`` (the abandon's line) then ``late``."""

    over: str
    late: str
    absent: str


def closing(repo: GameRepo, state_of, a: str, b: str) -> Closing | None:  # type: ignore[no-untyped-def]
    """The closing merge of two diverged heads ``a`` and ``b``, when one is an abandon's
    line and the other the absent player's late moves on the commit it waited after;
    None for any other fork (which stays a fork). ``state_of`` verifies a head."""
    for over, late in ((a, b), (b, a)):
        state: GameState = state_of(over)
        if state.abandoned == NOBODY:
            continue
        found = abandon_on(repo, over)
        absent = state.players[state.abandoned]
        if (
            found is not None
            and late_line(repo, late, found.parents[0], absent)
            and not outranked(repo, found, late, state.players)
        ):
            return Closing(over, late, absent)
    return None


def check_closing(repo: GameRepo, c: Commit, info: MergeInfo, over: GameState) -> None:
    """A closing merge joins an abandon's line and the absent player's late line."""
    if len(c.parents) != 2 or over.abandoned == NOBODY:
        raise VerificationError(
            f"{who(c)} is rejected: an abandon merge joins an abandoned game's line and one other"
        )
    if c.author not in over.players:  # red team: else check_vouched met a stranger (ValueError)
        raise VerificationError(
            f"{who(c)} is rejected: {c.author!r} holds no seat in this game, only a player "
            "may write a closing merge"
        )
    absent = over.players[over.abandoned]
    found = abandon_on(repo, c.parents[0])
    if list(info.answers) != [absent] or found is None:
        raise VerificationError(
            f"{who(c)} is rejected: its first parent is no abandoned line of {absent.capitalize()}"
        )
    if not late_line(repo, c.parents[1], found.parents[0], absent):
        raise VerificationError(
            f"{who(c)} is rejected: its second parent is not {absent.capitalize()}'s own moves "
            f"after {found.parents[0][:10]}, where the game was abandoned"
        )
    if outranked(repo, found, c.parents[1], over.players):
        raise VerificationError(
            f"{who(c)} is rejected: its second parent abandons the game on the same commit "
            f"{found.parents[0][:10]} by a player earlier in seat order, and that abandon wins"
        )
