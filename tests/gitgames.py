"""Helpers for the Git tests: real repositories in temporary folders, real bots."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from builders import git_identity

from catan_p2p.bots import make_bot
from catan_p2p.cli import main as cli_main
from catan_p2p.net.driver import Driver
from catan_p2p.protocol.message import action_message
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.rules.actions import Action
from catan_p2p.session.git import GitSession
from catan_p2p.session.keys import seat_key
from catan_p2p.session.start import create_game
from catan_p2p.sim import play_session_game
from catan_p2p.store.formats import commit_data, player_email
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.store.repo import Repository

FOUR = ("red", "blue", "white", "orange")
CLI = [sys.executable, "-m", "catan_p2p.cli"]

#: The repositories a protocol test runs on: ``MemoryRepo()`` (the quick loop)
#: and a real Git repository on disk, whose ``git init`` is a process: that run is slow,
#: and ``./test.sh --quick`` skips it (see tests/conftest.py).
REPOSITORIES = ("memory", pytest.param("disk", marks=pytest.mark.slow))


def new_repo(kind: str, folder: Path) -> Path | MemoryRepo:
    """Where a test's game goes: a new in-memory repository, or ``folder/game`` on disk."""
    return MemoryRepo() if kind == "memory" else folder / "game"


def hotseat_game(
    path: Path, players=FOUR, seed: str = "s", game: str = "g", strategy: str = "random"
):
    """A finished hot-seat game recorded in ``path``; returns (session, result)."""
    create_game(path, list(players), seed=seed, game_id=game)
    session = GitSession(path, game)
    bots = {p: make_bot(strategy, f"{seed}/{p}") for p in players}
    result = play_session_game(session, bots)
    return session, result


def copy_game(played: Path | MemoryRepo, path: Path) -> Path | MemoryRepo:
    """A copy of the game repository ``played`` (closed) at ``path``, for a test to change.

    A fixture that plays its game once (module scope) hands each test its own copy: the
    copy is a few milliseconds, playing the set-up again a few tenths of a second. An
    in-memory repository is copied into a new one (its objects never change, so they
    are shared; its refs are copied), ``path`` is then unused.
    """
    if isinstance(played, MemoryRepo):
        repo = MemoryRepo()
        repo.store.objects.update(played.store.objects)
        repo.refs.refs.update(played.refs.refs)
        return repo
    shutil.copytree(played, path, symlinks=True)
    return path


def play_some(session: GitSession, actions: int, seed: str = "x") -> None:
    """Let bots play ``actions`` actions for the session's seats (all of them in hot-seat)."""
    bots = {p: make_bot("random", f"{seed}/{p}") for p in session.players}
    Driver(session, bots).play(actions)


def forge_commit(
    repo: Repository,
    parent: str,
    author: str,
    action: Action,
    tree: str,
    message: str | None = None,
    game: str = "g",
) -> str:
    """Write a commit the way a cheating peer could: any author, action and tree.

    It is signed with the author's own seat key from this machine's keys (the tests'
    CATAN_P2P_HOME), so what it tests is the check after the signature.
    """
    return sign_commit(repo, parent, author, action, tree, seat_key(author), message, game)


def sign_commit(
    repo: Repository,
    parent: str,
    author: str,
    action: Action,
    tree: str,
    key: SeatKey | None,
    message: str | None = None,
    game: str = "g",
) -> str:
    """Write a commit as a cheating peer could: any author, action, tree, key (or none)."""
    fields = (
        tree,
        [parent],
        author,
        player_email(author),
        1_700_000_000,
        message or action_message(action, game),
    )
    data = commit_data(*fields)
    if key is not None:
        data = commit_data(*fields, key.sign(data))
    return repo.store.write(b"commit", data)


def git(*args: str, cwd: Path | None = None, check: bool = True, input: str | None = None) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=check,
        capture_output=True,
        text=True,
        input=input,
        env=git_identity(),  # a test's own plain commits name their author
    ).stdout


def cli(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``catan-p2p`` as a real subprocess."""
    env = dict(os.environ)
    return subprocess.run(
        [*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )


def settle(sessions, rounds: int = 6) -> None:  # type: ignore[no-untyped-def]
    """Sync around the table until a whole round moves no head.

    One round is not always enough: a sync may record what nobody chooses, and that can
    be the next seat's cue. After a robbery, the robbed seat's sync gives the card and
    the robber's sync merges it, so a seat that synced earlier in the round sees the
    merge only in the next one (issue 23: a full run failed on "two heads" that way,
    when its bots happened to stop right after a robbery).
    """
    before = None
    for _ in range(rounds):
        for s in sessions.values():
            s.sync()
        heads = tuple(s.head for s in sessions.values())
        if heads == before:
            return
        before = heads
    raise AssertionError(f"the peers did not settle in {rounds} rounds of sync: {before}")


def two_players(tmp_path: Path, timeout: str | None, remote: Path | None = None):
    """Red creates a game on a bare remote (or ``remote``), Blue joins, set-up starts."""
    if remote is None:
        remote = tmp_path / "remote.git"
        git("init", "-q", "--bare", str(remote))
    red, blue = tmp_path / "red", tmp_path / "blue"
    limit = ["--timeout", timeout] if timeout else []
    new = ["new", "--players", "red,blue", *limit, "--game", "g", "--repo", str(red)]
    assert cli_main([*new, "--remote", str(remote)]) == 0
    assert cli_main(["join", str(remote), "--game", "g", "--as", "blue", "--repo", str(blue)]) == 0
    assert cli_main(["sync", "--repo", str(red)]) == 0  # red merges the claims: set-up starts
    assert cli_main(["sync", "--repo", str(blue)]) == 0
    return remote, red, blue
