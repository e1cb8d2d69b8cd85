"""When a player comes back too late: the abandon wins, and one merge joins the lines.

An ``abandon`` (``rules.actions.Abandon``) and a late move of the absent player can
both be written on the commit the game waited after: two lines; and two players may
each end the game on that commit before seeing the other's abandon. **One abandon
wins**, by a rule every peer reads from the commits alone (``loses``): an abandon wins
over the absent player's late moves, and of two abandons on one commit the one by the
player earlier in seat order wins. To bring every branch back onto one line without
rewinding any, **the winning abandon's author**, and nobody else, joins each losing line
with a **closing merge**: first parent its own abandoned line, second the losing line's
tip, the abandoned line's state as its tree, ``Catan-Merge:
{"answers":["<absent>"],"kind":"abandon"}``. One writer writes one line of merges, so
two closing merges can never cross; every branch then fast-forwards to the last one.
The session writes the merges, the verifier checks them (PROTOCOL.md "Liveness").
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from catan_p2p.errors import VerificationError
from catan_p2p.protocol.graph import CommitGraph
from catan_p2p.protocol.message import ABANDON, MergeInfo, is_abandon, is_closing, who
from catan_p2p.rules.state import NOBODY, GameState
from catan_p2p.store.formats import Commit

KIND = ABANDON
#: How far ahead of a peer's clock any commit may be dated (clocks differ); one dated
#: further ahead is refused for now (``verify.check_not_ahead``).
CLOCK_SKEW = 300


def wait_start(repo: CommitGraph, oid: str) -> int:
    """When the game began waiting after ``oid``: the newest commit time on its first-parent
    line, not ``oid``'s own time alone.

    Red team: a player who dated its own ``end_turn`` hours back could otherwise abandon
    the next player at once (the wait counted from the backdated time). Counting from the
    newest time before it, a backdated commit shortens the next player's wait only by as
    long as its author really kept the game waiting (PROTOCOL.md "Trust", Liveness).
    """
    return max(repo.commit(c).when for c in repo.first_parents(oid))


def waiting_since(repo: CommitGraph, head: str, seen_at: int) -> int:
    """When this peer counts the game as waiting after ``head``: when it first saw it
    (``seen_at``, ``replica.seen``), so neither a move dated ahead (up to ``CLOCK_SKEW``)
    stretches the agreed wait nor one dated back shortens it; and never earlier than
    ``CLOCK_SKEW`` before the line's newest date, so that the abandon it then writes
    (``abandon_time``) is one every peer takes at once."""
    return max(seen_at, wait_start(repo, head) - CLOCK_SKEW)


def abandon_time(repo: CommitGraph, parent: str, timeout: int, now: int) -> int:
    """The date an honest ``abandon`` on ``parent`` carries: now, or the earliest date every
    peer accepts (``timeout`` after ``wait_start``) when the line is dated ahead of this
    clock. The peer has counted the wait from when it first saw ``parent`` (``replica.seen``);
    this date only makes the abandon verify. It is at most ``CLOCK_SKEW`` ahead, since
    every commit on the line was taken within that of this clock before the wait began."""
    return max(now, wait_start(repo, parent) + timeout)


def abandon_on(repo: CommitGraph, tip: str) -> Commit | None:
    """The abandon commit on ``tip``'s first-parent line, if any (searched backwards
    over the deck reveals and closing merges that may follow it; an abandoned game has
    no other moves)."""
    oid = tip
    for _ in range(64):
        c = repo.commit(oid)
        if is_abandon(c):
            return c
        if len(c.parents) != 1 and not is_closing(c):
            return None
        oid = c.parents[0]
    return None


def late_line(repo: CommitGraph, tip: str, base: str, absent: str) -> bool:
    """True when ``tip``'s first parents back to ``base`` are all ``absent``'s commits."""
    oid, steps = tip, 0
    while oid != base:
        c = repo.commit(oid)
        if c.author != absent or not c.parents or steps > 10_000:
            return False
        oid, steps = c.parents[0], steps + 1
    return steps > 0


def extends(repo: CommitGraph, old: str, new: str) -> bool:
    """True when a branch at ``old`` may move to ``new``: ``old`` is on ``new``'s
    first-parent line, or on a line a closing merge behind ``new`` joined (``_joined``)."""
    return repo.is_ancestor(old, new) or _joined(repo, old, new)


class Offer(Enum):
    """What a line offered to a branch is to it (``offered``)."""

    HELD = "held"  # the branch has it: its head, behind it, or a late line the head joined
    AHEAD = "ahead"  # the branch may move to it
    APART = "apart"  # neither: the two have diverged


def offered(repo: CommitGraph, head: str, target: str) -> Offer:
    """Where a branch at ``head`` stands to ``target``, each line asked about once: the
    usual cases (behind, a descendant on the first-parent line) before any search of the
    closing merges."""
    if target == head or repo.is_ancestor(target, head):
        return Offer.HELD
    if repo.is_ancestor(head, target):
        return Offer.AHEAD
    if _joined(repo, target, head):
        return Offer.HELD
    return Offer.AHEAD if _joined(repo, head, target) else Offer.APART


def _joined(repo: CommitGraph, old: str, new: str) -> bool:
    """True when ``old`` is on a line a closing merge behind ``new`` joined (at any
    depth: a closing merge's second parent may hold closing merges of its own).

    Only deck reveals and closing merges follow an abandon, so each line is searched
    back to its abandon (64 commits at most), and 256 commits in all: a hostile history
    costs no more.
    """
    budget, todo = 256, [new]
    while todo and budget > 0:
        oid = todo.pop()
        for _ in range(64):
            budget -= 1
            c = repo.commit(oid)
            if is_closing(c):
                if repo.is_ancestor(old, c.parents[1]):
                    return True
                todo.append(c.parents[1])
            elif len(c.parents) != 1 or is_abandon(c):
                break  # nothing before an abandon (or a genesis, or a step's merge) is closed
            oid = c.parents[0]
    return False


def _passed(repo: CommitGraph, closer: str, line: str, over: str) -> bool:
    """True when ``line`` is closing merges by ``closer`` on a commit of ``over``'s line:
    the deck reveal its author wrote on that commit while the closer merged crossed them."""
    oid = line
    for _ in range(16):
        c = repo.commit(oid)
        if not is_closing(c) or c.author != closer:
            return False
        oid = c.parents[0]
        if repo.is_ancestor(oid, over):
            return True
    return False


def loses(
    repo: CommitGraph,
    found: Commit,
    line: str,
    absent: str,
    players: tuple[str, ...],
    over: str | None = None,
) -> bool:
    """True when ``line`` gives way to the abandon ``found`` (on ``over``'s line): it holds
    ``absent``'s own late moves after the commit ``found`` waited after, or an abandon on
    that same commit by a player later in seat order (then whatever followed that
    abandon), or closing merges of ``found``'s author that a deck reveal on ``over``'s
    line crossed (revealing is others' turn while the closer merges; the next closing
    merge takes the earlier ones in, so its author's line never rewinds).

    Red team: two players ending the game on one commit before seeing each other's
    abandon (the same absent player, or each other on a concurrent step) made two lines
    that no rule ranked, and the game split for good. Seat order cannot be ground, and
    every peer reads it from the commits alone.
    """
    base = found.parents[0]
    rival = abandon_on(repo, line)
    if rival is not None and rival.oid == found.oid:
        return over is not None and _passed(repo, found.author, line, over)
    if rival is not None and rival.parents[0] == base:
        return (
            rival.author in players
            and found.author in players
            and players.index(found.author) < players.index(rival.author)
        )
    return late_line(repo, line, base, absent)


@dataclass(frozen=True)
class Closing:
    """The closing merge to write: ``over`` (the abandon's line) then ``late``."""

    over: str
    late: str
    absent: str
    by: str  # the author of the abandon that wins: the one seat that may write the merge


def awaited(close: Closing) -> str:
    """What a peer says while the winning abandon's author has yet to join two lines."""
    return (
        f"the game was ended without {close.absent.capitalize()}; lines {close.over[:10]} "
        f"and {close.late[:10]} wait for {close.by.capitalize()}'s closing merge, which "
        "its next sync writes (nothing to do here)"
    )


def closing(repo: CommitGraph, state_of, a: str, b: str) -> Closing | None:  # type: ignore[no-untyped-def]
    """The closing merge of two diverged heads ``a`` and ``b``, when one is an abandon's
    line and the other the absent player's late moves on the commit it waited after;
    None for any other fork (which stays a fork). ``state_of`` verifies a head."""
    for over, late in ((a, b), (b, a)):
        state: GameState = state_of(over)
        if state.abandoned == NOBODY:
            continue
        found = abandon_on(repo, over)
        absent = state.players[state.abandoned]
        if found is not None and loses(repo, found, late, absent, state.players, over):
            return Closing(over, late, absent, found.author)
    return None


def check_closing(repo: CommitGraph, c: Commit, info: MergeInfo, over: GameState) -> None:
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
    if c.author != found.author:
        raise VerificationError(
            f"{who(c)} is rejected: only {found.author.capitalize()}, whose abandon "
            f"{found.oid[:10]} wins, may write its closing merges (one writer, one line)"
        )
    if not loses(repo, found, c.parents[1], absent, over.players, c.parents[0]):
        raise VerificationError(
            f"{who(c)} is rejected: its second parent is neither {absent.capitalize()}'s own "
            f"moves after {found.parents[0][:10]}, where the game was abandoned, nor an "
            "abandon on that commit by a player later in seat order, nor its author's "
            "closing merges on its first parent's line"
        )
