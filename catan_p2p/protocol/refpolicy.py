"""What a valid ref update is: the one policy the hook, the fetch step and the audit share.

Anyone who may push to a plain remote can put junk beside a game (an unknown kind, a
nested answer, an upper-case name, a blob where a commit belongs, a log of a name that
is no seat). ``check_update`` says, for one ref moving from ``old`` to ``new``, why it
is not a ref of the game, or None:

- the name has a protocol shape under the game's prefix (PROTOCOL.md section 2): a
  player's log ``catan/<game>/<player>``, an answer ``catan/<game>/<kind>/<opening>/
  <player>`` of a kind of ``rules.steps``, or a chat ref ``catan-chat/<game>/<player>``,
  as a local ref or as a copy fetched from any source (``store.refnames.read_name``, which
  reads no object, so any number of junk names costs only their parsing);
- the player it names holds a seat (when the seats are known);
- it names a commit (an answer branch may also go away; a log or a chat ref may not,
  on a remote that guards its refs);
- on a guarded remote a log only moves forward (``liveness.extends``).

The server hook (``net.hook``) asks it first and then verifies the commits; a peer's
fetch step lets its copy of any fetched ref it refuses go (``drop_junk``,
``keep_fetched``), so one junk ref stops no reader; the audit reads only the refs it
accepts. The remote's copy of junk is the hook's business or, on a forge, nobody's:
peers never ask for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping

from catan_p2p.errors import CatanError, DamagedRepository
from catan_p2p.protocol import liveness
from catan_p2p.protocol.graph import CommitGraph
from catan_p2p.store.refnames import (
    ZERO,
    fetched,
    game_prefix,
    player_ref,
    read_name,
)

_OID = re.compile(r"^[0-9a-f]{40}$")
SHAPES = (
    "catan/<game>/<player>, catan/<game>/<kind>/<opening>/<player> or catan-chat/<game>/<player>"
)


def check_update(
    repo: CommitGraph,
    ref: str,
    old: str,
    new: str,
    game: str | None = None,
    seats: Callable[[], Collection[str] | None] | None = None,
    guard: bool = False,
) -> str | None:
    """Why ``ref`` may not move from ``old`` to ``new`` (``ZERO``: absent), or None.

    Args:
        game: the game the ref must belong to (None: the one its name says).
        seats: gives the players of the game, asked only once the name and the object
            pass (None, or None given: not known yet, any player name is taken).
        guard: the rules of a remote that guards its refs (``net.hook``): a log or a
            chat ref is never deleted and a log only moves forward. A reader (fetch,
            audit) takes what a remote holds as it is; whether a log may move there is
            the adoption's business (``replica.adopt``).
    """
    name = read_name(ref, game)
    if name is None:
        of = f"of game {game}" if game is not None else "of the protocol"
        return f"{ref} is no ref {of} (a ref of a game is {SHAPES})"
    if new == ZERO:
        if guard and name.kind is None:
            what = "chat" if name.chat else "log"
            return f"{ref}: a player's {what} cannot be deleted"
        return None
    if not names_a_commit(repo, new):
        return f"{ref}: {new[:10]} is not a commit here; a ref of the game names a commit"
    players = seats() if seats is not None else None
    if players is not None and name.player not in players:
        listed = ", ".join(players)
        return f"{ref}: {name.player!r} holds no seat of game {name.game} ({listed})"
    if guard and name.is_log and old != ZERO and not liveness.extends(repo, old, new):
        return f"{ref}: {new[:10]} does not extend {old[:10]}; a player's log is never rewritten"
    return None


def player_heads(
    repo: CommitGraph, game: str, seats: Collection[str] | None = None
) -> dict[str, str]:
    """Every known head of every seat's log (ref -> commit): local refs and fetched ones,
    only of a protocol shape, only of ``seats`` (None: any name, while the seats are not
    known yet)."""
    found = {**repo.refs.list(game_prefix(game)), **fetched(repo.refs, game)}
    out = {}
    for ref, oid in found.items():
        name = read_name(ref, game)
        if name is not None and name.is_log and (seats is None or name.player in seats):
            out[ref] = oid
    return out


def tracked_logs(
    repo: CommitGraph, game: str, seats: Collection[str]
) -> dict[str, tuple[str, int]]:
    """Each seat's log as last fetched, from any source (the shared remote, its own
    point, a relaying seat's), with its commit's date (seat -> (commit, time)): when a
    peer was last heard of. Of several copies, the newest commit counts."""
    out: dict[str, tuple[str, int]] = {}
    for ref, oid in player_heads(repo, game, seats).items():
        if not ref.startswith("refs/remotes/"):
            continue
        name = read_name(ref, game)
        assert name is not None  # player_heads keeps only the protocol's names
        when = repo.commit(oid).when
        if name.player not in out or when > out[name.player][1]:
            out[name.player] = (oid, when)
    return out


def anchor(heads: Mapping[str, str], game: str, local: Iterable[str] = ()) -> str:
    """The head whose genesis is the game's: a local seat's own branch before any fetched
    one (a fetched ref may come from anyone and start another history)."""
    own = [player_ref(game, p) for p in local]
    for ref in [*own, *sorted(heads)]:
        if ref in heads and not ref.startswith("refs/remotes/"):
            return heads[ref]
    return next(iter(heads.values()))


def is_junk(repo: CommitGraph, ref: str, oid: str, game: str) -> bool:
    """Whether a fetched ref is one a reader does not take (``check_update``): of no
    protocol shape, or naming no commit."""
    return check_update(repo, ref, ZERO, oid, game) is not None


def names_a_commit(repo: CommitGraph, oid: str) -> bool:
    """Whether ``oid`` is a commit this repository holds (not a blob, tree or tag)."""
    if not _OID.match(oid):
        return False
    try:
        repo.commit(oid)
    except DamagedRepository:  # this machine's own copy: said as such, not as junk
        raise
    except (CatanError, KeyError, ValueError, OSError, RecursionError):
        return False
    return True
