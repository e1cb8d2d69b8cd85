"""The game's own fetch and push keep their bounds: a remote that says too much through
Git (a hook's output on a push, a server's words on a fetch) is stopped with one sentence,
is never held whole in memory, and leaves no lock in our repository."""

from __future__ import annotations

import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from catan_p2p.errors import RemoteStopped
from catan_p2p.net import transport
from catan_p2p.store import gitcmd
from catan_p2p.store.refnames import PREFIX

pytestmark = pytest.mark.network  # real Git transports to hostile remotes on this disk

#: What the hostile remotes write: far more than the bound (``MAX_TOLD``), and finite, so
#: a reader with no bound (the old one) ends too, having held all of it.
FLOOD = 64 << 20
LOG = f"{PREFIX}/g/red"


def _script(path: Path, body: str) -> Path:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def _flood(to: str) -> str:
    """A shell line writing ``FLOOD`` bytes of lines to ``to`` (a hostile remote's words)."""
    return f"yes 'remote junk junk junk junk junk junk junk junk' | head -c {FLOOD} >{to}"


def _repo_with_log(path: Path) -> Path:
    """A bare repository holding one commit on the red seat's log of game ``g``."""
    gitcmd.run(None, "init", "-q", "--bare", str(path), check=True)
    tree = gitcmd.run(path, "mktree", input="", check=True).stdout.strip()
    who = {f"GIT_{k}_{v}": "t" for k in ("AUTHOR", "COMMITTER") for v in ("NAME", "EMAIL")}
    commit = gitcmd.run(path, "commit-tree", tree, "-m", "c", env=who, check=True).stdout.strip()
    gitcmd.run(path, "update-ref", LOG, commit, check=True)
    return path


def _locks(git_dir: Path) -> list[Path]:
    return sorted(git_dir.rglob("*.lock"))


def _stopped(call) -> tuple[str, int]:
    """What stopped ``call`` (it must raise RemoteStopped), and the most memory Python
    held at once while it ran."""
    tracemalloc.start()
    try:
        with pytest.raises(RemoteStopped) as stopped:
            call()
        return str(stopped.value), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("hook", ["pre-receive", "post-receive"])
def test_a_push_whose_remote_hook_floods_us_is_stopped_with_one_sentence(tmp_path, hook):
    mine = _repo_with_log(tmp_path / "mine.git")
    remote = tmp_path / "remote.git"
    gitcmd.run(None, "init", "-q", "--bare", str(remote), check=True)
    _script(remote / "hooks" / hook, f"cat >/dev/null\n{_flood('&2')}")
    transport.set_remote(mine, str(remote))

    said, peak = _stopped(lambda: transport.push(mine, [LOG], timeout=120))

    assert said == "git push wrote more than 1 MB; check the remote and retry"
    assert "\n" not in said
    assert peak < 8 << 20, f"held {peak:,} bytes of the remote's words"
    assert _locks(mine) == []


def test_a_fetch_whose_remote_floods_us_is_stopped_with_one_sentence(tmp_path):
    """The remote's upload-pack (here a wrapper the remote's owner put in front of Git's)
    writes without end before it serves: its words reach our Git's stderr."""
    remote = _repo_with_log(tmp_path / "remote.git")
    mine = tmp_path / "mine.git"
    gitcmd.run(None, "init", "-q", "--bare", str(mine), check=True)
    server = _script(tmp_path / "upload-pack", f'{_flood("&2")}\nexec git-upload-pack "$@"')
    transport.set_remote(mine, str(remote))
    transport.set_config(mine, "remote.origin.uploadpack", str(server))

    said, peak = _stopped(lambda: transport.fetch(mine, "g", logs=[LOG], timeout=120))

    assert said == "git fetch wrote more than 1 MB; check the remote and retry"
    assert peak < 8 << 20, f"held {peak:,} bytes of the remote's words"
    assert _locks(mine) == []


def test_a_push_whose_remote_hook_never_ends_is_stopped_long_before_its_deadline(tmp_path):
    """A hook that writes for ever: the bound stops it, not the deadline (which the old
    reader waited for, holding every byte)."""
    mine = _repo_with_log(tmp_path / "mine.git")
    remote = tmp_path / "remote.git"
    gitcmd.run(None, "init", "-q", "--bare", str(remote), check=True)
    _script(remote / "hooks" / "pre-receive", "exec yes 'remote: junk' >&2")
    transport.set_remote(mine, str(remote))
    begun = time.monotonic()
    said, _ = _stopped(lambda: transport.push(mine, [LOG], timeout=600))
    assert said == "git push wrote more than 1 MB; check the remote and retry"
    assert time.monotonic() - begun < 300  # stopped by the bound: the deadline is 600 s
    assert _locks(mine) == []


def test_what_an_honest_remote_says_reaches_the_player(tmp_path):
    """Below the bound nothing is lost: a refusing hook's line is in the sentence."""
    mine = _repo_with_log(tmp_path / "mine.git")
    remote = tmp_path / "remote.git"
    gitcmd.run(None, "init", "-q", "--bare", str(remote), check=True)
    _script(remote / "hooks" / "pre-receive", "echo 'catan-p2p: not your seat' >&2\nexit 1")
    transport.set_remote(mine, str(remote))
    with pytest.raises(transport.RemoteError, match="not your seat"):
        transport.push(mine, [LOG])


def test_a_long_stdin_is_fed_while_git_answers():
    """stdin is written in the loop that reads: past a pipe's size, neither side waits
    on the other."""
    names = "".join(f"refs/heads/x{i}\n" for i in range(20_000))  # ~380 kB
    said = transport.run_git(None, "hash-object", "--stdin", stdin=names)
    assert said.returncode == 0
    assert said.stdout == gitcmd.run(None, "hash-object", "--stdin", input=names).stdout


def test_a_fetch_and_a_push_of_an_honest_remote_pass_within_the_bounds(tmp_path):
    """The bounds cost an honest transfer nothing: stdin fed, refs brought and sent."""
    remote = _repo_with_log(tmp_path / "remote.git")
    mine = tmp_path / "mine.git"
    gitcmd.run(None, "init", "-q", "--bare", str(mine), check=True)
    transport.set_remote(mine, str(remote))
    assert transport.fetch(mine, "g", logs=[LOG, f"{PREFIX}/g/blue"]) == {f"{PREFIX}/g/blue"}
    tip = gitcmd.run(mine, "rev-parse", transport.tracking_ref(LOG), check=True).stdout
    gitcmd.run(mine, "update-ref", f"{PREFIX}/g/blue", tip.strip(), check=True)
    assert transport.push(mine, [f"{PREFIX}/g/blue"]) == frozenset()
    assert gitcmd.run(remote, "rev-parse", f"{PREFIX}/g/blue").stdout == tip


def _cli(*args: str) -> subprocess.CompletedProcess:
    """``catan-p2p`` as a real process (stdin closed: nobody at the keyboard)."""
    command = [sys.executable, "-m", "catan_p2p.cli", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )


def test_sync_stopped_by_a_flooding_hook_says_one_sentence_and_leaves_no_lock(tmp_path):
    """``catan-p2p sync`` whose push meets a hook that floods: exit 1, one sentence naming
    what stopped it, no traceback, no ``.lock`` left in the player's repository."""
    remote = tmp_path / "remote.git"
    gitcmd.run(None, "init", "-q", "--bare", str(remote), check=True)
    red, blue = tmp_path / "red", tmp_path / "blue"
    made = _cli(
        "new",
        "--players",
        "red,blue",
        "--seed",
        "flood",
        "--game",
        "g",
        "--repo",
        str(red),
        "--remote",
        str(remote),
    )
    assert made.returncode == 0, made.stderr
    joined = _cli("join", str(remote), "--game", "g", "--as", "blue", "--repo", str(blue))
    assert joined.returncode == 0, joined.stderr
    _script(remote / "hooks" / "pre-receive", f"cat >/dev/null\n{_flood('&2')}")

    synced = _cli("sync", "--repo", str(red))  # Red merges Blue's seat claim: a push

    said = [ln for ln in (synced.stdout + synced.stderr).splitlines() if "git push" in ln]
    assert synced.returncode == 1, synced.stdout + synced.stderr
    assert len(said) == 1 and "wrote more than 1 MB" in said[0], synced.stdout + synced.stderr
    assert "Traceback" not in synced.stderr
    assert len(synced.stdout + synced.stderr) < 2000
    assert _locks(red / ".git") == []
