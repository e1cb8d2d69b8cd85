#!/usr/bin/env python3
"""A ``pre-receive`` hook for a shared catan_p2p remote: it refuses what peers would refuse.

Install it in the bare repository every peer pushes to (the server needs catan_p2p
installed for the Python that runs it):

    cp tools/pre_receive.py /srv/catan.git/hooks/pre-receive && chmod +x $_

For every pushed ref of a game (``refs/heads/catan/<game>/...``) it checks that:
- a player's log only moves forward (no rewrite, no deletion) and every new commit
  verifies: right author, legal action, derived dice and draws, exact tree;
- a temporary answer branch holds one verified answer on its opening commit (its owner
  may delete it).
Anything else pushed to the repository is let through. A refused push names the commit,
the player and the rule, so the cheat never reaches the other peers.
"""

from __future__ import annotations

import sys
from pathlib import Path

from catan_p2p.errors import CatanError
from catan_p2p.store.catfile import CatFileStore
from catan_p2p.store.refs import PREFIX, ZERO, game_of, parse_ref
from catan_p2p.sync.repo import GameRepo
from catan_p2p.sync.verify import Verifier


def check_update(repo: GameRepo, old: str, new: str, ref: str) -> str | None:
    """Why this ref update must be refused, or None to accept it."""
    if not ref.startswith(PREFIX + "/"):
        return None
    game = game_of(ref)
    try:
        player, kind, opening = parse_ref(ref, game)
    except CatanError as exc:
        return str(exc)
    if new == ZERO:
        return None if kind is not None else f"{ref}: a player's log cannot be deleted"
    try:
        genesis = repo.genesis_of(new)
        genesis_state, info = repo.state_of(genesis)
        verifier = Verifier(repo, info)
        verifier.trust(genesis, genesis_state)
        if kind is not None:
            action, _ = verifier.verify_answer(new, opening or "", kind)
            if action.player != player:
                return f"{ref}: holds an answer of {action.player}, not of {player}"
            return None
        if old != ZERO:
            if not repo.is_ancestor(old, new):
                return f"{ref}: {new[:10]} does not extend {old[:10]}; a player's log is never rewritten"
            verifier.trust(old, repo.state_of(old)[0])
        verifier.verify(new)
    except CatanError as exc:
        return f"{ref}: {exc}"
    return None


def main() -> int:
    repo = GameRepo(Path.cwd())
    repo.store = CatFileStore(repo.git_dir)  # sees the quarantined objects of this push
    refused = []
    for line in sys.stdin:
        parts = line.split()
        if len(parts) == 3:
            reason = check_update(repo, *parts)
            if reason:
                refused.append(reason)
    for reason in refused:
        print(f"catan-p2p: refused {reason}", file=sys.stderr)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
