"""A remote that talks without end: the game's own fetch and push keep their bound.

What a remote says reaches a peer through Git: its hooks' lines on a push, its server's
``remote:`` lines on a fetch (over ssh or a local path the server's stderr is Git's).
Every transfer reads them within ``transport.MAX_TOLD``: past it Git is stopped with
SIGTERM (so it removes its locks) and the peer gets one sentence, long before the
transfer's deadline, having kept at most ``MAX_SAID`` of it in memory.
"""

from __future__ import annotations

import stat
import time
from pathlib import Path

import pytest

from catan_p2p.errors import RemoteStopped
from catan_p2p.net import transport
from catan_p2p.store import gitcmd
from catan_p2p.store.refnames import game_prefix

pytestmark = pytest.mark.network  # real Git transfers between repositories on disk

GAME = "chatter"
#: Far more than the bound (1 MB): eight of it.
JUNK = "yes 'remote: catan-p2p: junk junk junk junk' | head -c 8000000 >&2"
#: Slow enough for the old reader's deadline to be the only stop.
DEADLINE = 60.0


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _repo_with_a_log(path: Path) -> tuple[Path, str]:
    """A repository whose ``red`` log of ``GAME`` holds one commit; its git dir and ref."""
    gitcmd.run(None, "init", "-q", str(path), check=True)
    git_dir = path / ".git"
    tree = gitcmd.run(git_dir, "mktree", input="", check=True).stdout.strip()
    who = {f"GIT_{k}_{v}": "red" for k in ("AUTHOR", "COMMITTER") for v in ("NAME", "EMAIL")}
    commit = gitcmd.run(git_dir, "commit-tree", tree, "-m", "one", env=who, check=True)
    ref = f"{game_prefix(GAME)}/red"
    gitcmd.run(git_dir, "update-ref", ref, commit.stdout.strip(), check=True)
    return git_dir, ref


def _locks(git_dir: Path) -> list[Path]:
    return sorted(git_dir.rglob("*.lock"))


def _stopped(call) -> tuple[RemoteStopped, float]:
    begun = time.monotonic()
    with pytest.raises(RemoteStopped) as stopped:
        call()
    return stopped.value, time.monotonic() - begun


@pytest.mark.parametrize(
    "hook",
    [JUNK + "\nexit 0", JUNK + "\nexit 1", "exec yes 'remote: catan-p2p: junk' >&2"],
    ids=["then-accepts", "then-refuses", "never-ends"],
)
def test_a_push_whose_remote_hook_talks_without_end_is_stopped_at_the_bound(tmp_path, hook):
    remote = tmp_path / "remote.git"
    gitcmd.run(None, "init", "-q", "--bare", str(remote), check=True)
    _script(remote / "hooks" / "pre-receive", hook)
    git_dir, ref = _repo_with_a_log(tmp_path / "red")
    transport.set_remote(git_dir, str(remote))
    error, took = _stopped(lambda: transport.push(git_dir, [ref], timeout=DEADLINE))
    assert "git push wrote more than 1 MB; check the remote and retry" in str(error)
    assert took < DEADLINE / 2  # stopped by the bound, not by the deadline
    assert _locks(git_dir) == []


def test_a_fetch_whose_server_talks_without_end_is_stopped_at_the_bound(tmp_path):
    remote = tmp_path / "remote.git"
    gitcmd.run(None, "init", "-q", "--bare", str(remote), check=True)
    theirs, ref = _repo_with_a_log(tmp_path / "theirs")
    gitcmd.run(theirs, "push", "-q", str(remote), f"{ref}:{ref}", check=True)
    git_dir, _ = _repo_with_a_log(tmp_path / "red")
    transport.set_remote(git_dir, str(remote))
    # The server as a hostile host runs it: its words first, then the real answer.
    server = _script(tmp_path / "upload-pack", JUNK + '\nexec git-upload-pack "$@"')
    transport.set_config(git_dir, "remote.origin.uploadpack", str(server))
    error, took = _stopped(
        lambda: transport.fetch(git_dir, GAME, logs=[ref], players=["red"], timeout=DEADLINE)
    )
    assert "git fetch wrote more than 1 MB; check the remote and retry" in str(error)
    assert took < DEADLINE / 2
    assert _locks(git_dir) == []
    # The same remote answering as an honest server does is fetched whole.
    transport.unset_config(git_dir, "remote.origin.uploadpack")
    assert transport.fetch(git_dir, GAME, logs=[ref], players=["red"]) == frozenset()
    assert gitcmd.run(git_dir, "rev-parse", transport.tracking_ref(ref)).returncode == 0


def test_what_an_honest_remote_says_is_kept_whole(tmp_path):
    """Below the bound nothing changes: a refusing hook's line reaches the player."""
    remote = tmp_path / "remote.git"
    gitcmd.run(None, "init", "-q", "--bare", str(remote), check=True)
    _script(remote / "hooks" / "pre-receive", "echo 'catan-p2p: not your seat' >&2\nexit 1")
    git_dir, ref = _repo_with_a_log(tmp_path / "red")
    transport.set_remote(git_dir, str(remote))
    with pytest.raises(transport.RemoteError, match="not your seat"):
        transport.push(git_dir, [ref])


def test_git_reading_a_long_stdin_while_it_talks_is_fed_whole():
    """stdin is written in the same loop that reads: a fetch's few hundred refspecs and
    Git's answer never wait on each other."""
    specs = "".join(f"refs/heads/x{i}\n" for i in range(20_000))  # ~380 kB, past a pipe
    said = transport.run_git(None, "hash-object", "--stdin", stdin=specs)
    expected = gitcmd.run(None, "hash-object", "--stdin", input=specs).stdout
    assert said.returncode == 0 and said.stdout == expected
