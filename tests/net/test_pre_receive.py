"""The shared remote's pre-receive hook refuses a cheat before any peer sees it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gitgames import cli, forge_commit, git

from catan_p2p.bots import make_bot
from catan_p2p.net.driver import play_round_robin
from catan_p2p.rules.actions import EndTurn
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import join_game
from catan_p2p.store.codec import StateWriter
from catan_p2p.store.refnames import player_ref

HOOK = Path(__file__).resolve().parents[2] / "tools" / "pre_receive.py"


def _guarded_remote(tmp_path: Path) -> Path:
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nexec {sys.executable} {HOOK}\n")
    hook.chmod(0o755)
    return remote


@pytest.mark.slow
@pytest.mark.network
def test_honest_play_passes_and_a_forged_commit_is_refused_at_the_remote(tmp_path: Path):
    remote = _guarded_remote(tmp_path)
    made = cli(
        "new",
        "--players",
        "red,blue",
        "--seed",
        "h",
        "--game",
        "g",
        "--repo",
        str(tmp_path / "red"),
        "--remote",
        str(remote),
    )
    assert made.returncode == 0, made.stderr
    red = GitSession(tmp_path / "red", "g", ("red",))
    blue = join_game(str(remote), tmp_path / "blue", "g", "blue")
    sessions = {"red": red, "blue": blue}
    bots = {p: make_bot("random", p) for p in sessions}

    def sync_ok(session) -> None:  # the seat's last push went through the hook
        assert session.sync().error is None

    # Set-up and a little more, every push checked by the hook.
    play_round_robin(sessions, bots, 12, before_act=sync_ok)
    for s in sessions.values():
        s.sync()
    accepted = git("rev-parse", "refs/heads/catan/g/red", cwd=remote).strip()
    assert accepted == red.head

    # Red's peer forges an action out of turn for blue's seat... on red's own branch.
    state = red.committed_state
    tree = StateWriter(red.repo.store, red.info).write(state)
    bad = forge_commit(red.repo, red.head, "blue", EndTurn("blue"), tree)
    red.repo.refs.set(player_ref("g", "red"), bad, red.head)
    push = subprocess.run(
        ["git", "push", "origin", "refs/heads/catan/g/red:refs/heads/catan/g/red"],
        cwd=tmp_path / "red",
        capture_output=True,
        text=True,
    )
    assert push.returncode != 0
    assert "catan-p2p: refused" in push.stderr and bad[:10] in push.stderr
    assert git("rev-parse", "refs/heads/catan/g/red", cwd=remote).strip() == accepted

    # A rewrite (force push of an older commit) is refused too.
    older = red.repo.commit(accepted).parents[0]
    forced = subprocess.run(
        ["git", "push", "--force", "origin", f"{older}:refs/heads/catan/g/red"],
        cwd=tmp_path / "red",
        capture_output=True,
        text=True,
    )
    assert forced.returncode != 0 and "never rewritten" in forced.stderr
    # Deleting a player's log is refused.
    deleted = subprocess.run(
        ["git", "push", "origin", ":refs/heads/catan/g/blue"],
        cwd=tmp_path / "red",
        capture_output=True,
        text=True,
    )
    assert deleted.returncode != 0 and "cannot be deleted" in deleted.stderr
