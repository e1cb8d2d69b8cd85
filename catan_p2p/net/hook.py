"""The guard of a self-hosted remote: a ``pre-receive`` hook that refuses what peers refuse.

``catan-p2p host init PATH`` makes a bare repository with this hook in place. For
every pushed ref of a game it checks, before any peer can fetch the push:

- every new commit verifies from the derived genesis (signed by its player's seat
  key, legal, byte-canonical, exact tree);
- a player's log only moves forward, is never deleted, and only to a commit its owner
  signed or one its author already published on the author's own log (so nobody can
  write into another player's branch);
- no two player logs of a game diverge (one player signing two different moves on
  one commit, equivocation, is refused);
- an answer branch holds one verified answer of its owner on its opening commit.

- a chat ref (``refs/catan-chat/<game>/<player>``) of a seat only moves forward, by chat
  lines that seat signed (``protocol.chatlines``).

Hosted forges run no hooks: peers make every one of these checks themselves, the
hook only stops a cheat earlier. Anything outside ``refs/heads/catan/`` and
``refs/catan-chat/`` passes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from pathlib import Path

from catan_p2p import clock
from catan_p2p.errors import CatanError
from catan_p2p.printable import REFUSAL_CHARS, one_line
from catan_p2p.protocol import chatlines, liveness, refpolicy
from catan_p2p.protocol.genesis import genesis_of, open_genesis
from catan_p2p.protocol.verify import Verifier
from catan_p2p.store.catfile import CatFileStore
from catan_p2p.store.refnames import (
    CHAT_PREFIX,
    PREFIX,
    ZERO,
    RefName,
    game_prefix,
    player_ref,
    read_name,
)
from catan_p2p.store.repo import GameRepo, Repository


def check_update(
    repo: Repository, old: str, new: str, ref: str, after: dict[str, str] | None = None
) -> str | None:
    """Why this ref update must be refused, or None to accept it.

    The ref policy (``protocol.refpolicy.check_update``: name, seat, object, fast-forward)
    first, as a guard applies it; then the commits it brings are verified.

    Args:
        after: every ref of the repository as it would be once the whole push is
            accepted (defaults to the repository's refs with this update applied).
    """
    if not ref.startswith((PREFIX + "/", CHAT_PREFIX + "/")):
        return None  # not the game's: Git's business
    name = read_name(ref)
    try:
        if name is not None and name.chat:
            return _check_chat(repo, old, new, ref, name)
        game = name.game if name is not None else None
        reason = refpolicy.check_update(repo, ref, old, new, game, _seats(repo, new), guard=True)
        if reason is not None or new == ZERO or name is None:
            return reason
        if after is None:
            after = repo.refs.list(game_prefix(name.game))
        after = {**after, ref: new}
        return _check(repo, name, new, ref, after)
    except CatanError as exc:
        return f"{ref}: {exc}"
    except (ValueError, RecursionError) as exc:  # hostile bytes that slip past the parsers
        return f"{ref}: {new[:10]} cannot be read ({type(exc).__name__})"


def _seats(repo: Repository, new: str) -> Callable[[], tuple[str, ...]]:
    """The players of the game ``new`` starts from, read when the policy asks."""
    return lambda: open_genesis(repo, genesis_of(repo, new))[0].players


def _check(
    repo: Repository,
    name: RefName,
    new: str,
    ref: str,
    after: dict[str, str],
) -> str | None:
    """Verify what the update brings: one genesis for the game, every new commit."""
    game, player = name.game, name.player
    mine = game_prefix(game) + "/"
    after = _logs_and_answers(repo, game, {r: o for r, o in after.items() if r.startswith(mine)})
    genesis = genesis_of(repo, new)
    for other, oid in after.items():
        if other != ref and oid != ZERO and genesis_of(repo, oid) != genesis:
            return f"{ref}: {new[:10]} starts from another genesis than {other}"
    genesis_state, info = open_genesis(repo, genesis)
    verifier = Verifier(repo, info, genesis, genesis_state, clock=clock.now)
    _trust_accepted(repo, game, genesis, verifier)
    if name.kind is not None:
        action, _ = verifier.verify_answer(new, name.opening or "", name.kind)
        if action.player != player:
            return f"{ref}: holds an answer of {action.player}, not of {player}"
        return None
    verifier.verify(new)
    tip = repo.commit(new)
    if new != genesis and tip.author != player:
        published = after.get(player_ref(game, tip.author))
        if published is None or not repo.is_ancestor(new, published):
            return (
                f"{ref}: its new tip {new[:10]} is {tip.author.capitalize()}'s commit, which "
                f"{tip.author.capitalize()} has not published; only {player.capitalize()}'s "
                "key can move this branch"
            )
    for other, oid in after.items():
        other_name = read_name(other, game)
        if other == ref or oid == ZERO or other_name is None or not other_name.is_log:
            continue
        if not (liveness.extends(repo, oid, new) or liveness.extends(repo, new, oid)):
            return (
                f"{ref}: {new[:10]} diverges from {other} at {oid[:10]}; two histories of one "
                "game (equivocation) are refused"
            )
    return None


def _check_chat(repo: Repository, old: str, new: str, ref: str, name: RefName) -> str | None:
    """A chat ref is a seat's own: its new lines are chat lines that seat signed."""
    game, player = name.game, name.player
    try:  # the seat keys of the newest log here (the hook verified each when it came)
        logs = _logs_and_answers(repo, game, repo.refs.list(game_prefix(game)), logs_only=True)
        newest = max(logs.values(), key=repo.depth) if logs else None
        state = repo.state_of(newest)[0] if newest else None
    except (CatanError, ValueError) as exc:
        return f"{ref}: game {game} cannot be read here ({exc})"
    keys = dict(zip(state.players, state.seats, strict=True)) if state and state.seats else {}
    reason = refpolicy.check_update(repo, ref, old, new, game, lambda: keys or None, guard=True)
    if reason is not None:
        return reason
    if not keys:
        return f"{ref}: game {game} has no claimed seats here; chat comes after the claims"
    reason = chatlines.update_refusal(repo, None if old == ZERO else old, new, player, keys[player])
    return None if reason is None else f"{ref}: {reason}"


def _logs_and_answers(
    repo: Repository,
    game: str,
    refs: dict[str, str],
    seats: Collection[str] | None = None,
    logs_only: bool = False,
) -> dict[str, str]:
    """The refs of ``game`` (deletions in a push included) the ref policy takes as a
    reader: junk a remote took before its hook was installed is not read, so it blocks
    no honest push."""
    out = {}
    for ref, oid in refs.items():
        name = read_name(ref, game)
        if name is None or (logs_only and not name.is_log):
            continue
        if oid == ZERO or refpolicy.check_update(repo, ref, ZERO, oid, game, lambda: seats) is None:
            out[ref] = oid
    return out


def _trust_accepted(repo: Repository, game: str, genesis: str, verifier: Verifier) -> None:
    """Start from the player logs this remote holds: the hook verified each when it came.

    Only the commits a push adds are verified then, not the whole game again (a remote
    that ran without the hook before should be checked once with `catan-p2p verify`).
    """
    seats = open_genesis(repo, genesis)[0].players
    logs = _logs_and_answers(repo, game, repo.refs.list(game_prefix(game)), seats, logs_only=True)
    for oid in logs.values():
        if oid != genesis:
            try:
                if genesis_of(repo, oid) == genesis:
                    verifier.trust(oid, repo.state_of(oid)[0])
            except CatanError:
                continue  # unreadable: verify through it instead


def main() -> int:
    """Read ``old new ref`` lines on stdin (Git's pre-receive protocol); exit 1 to refuse."""
    repo = GameRepo(Path.cwd())
    repo.store = CatFileStore(repo.git_dir)  # sees the quarantined objects of this push
    updates = [line.split() for line in sys.stdin if len(line.split()) == 3]
    after = repo.refs.list(PREFIX)
    for _old, new, ref in updates:
        after[ref] = new
    refused = [r for old, new, ref in updates if (r := check_update(repo, old, new, ref, after))]
    for reason in refused:  # one line each, whatever a pushed commit made the sentence
        said = f"catan-p2p: refused {reason}"
        print(one_line(said, REFUSAL_CHARS), file=sys.stderr)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
