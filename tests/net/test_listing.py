"""The lobby's listing over the one transport: a hostile remote keeps its bounds."""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from catan_p2p.errors import RemoteError, RemoteStopped
from catan_p2p.net.listing import bring_tips, ls_remote, on_this_disk
from catan_p2p.net.transport import run_git
from catan_p2p.store import gitcmd
from catan_p2p.store.refnames import PREFIX

pytestmark = pytest.mark.network  # real Git transports, a silent server


def _junk_remote(path: Path, refs: int, name: str = "g{i}/red") -> Path:
    """A bare remote with ``refs`` game-shaped refs (``name`` with its number) on one
    junk commit."""
    gitcmd.run(None, "init", "-q", "--bare", str(path), check=True)
    tree = gitcmd.run(path, "mktree", input="", check=True).stdout.strip()
    who = {f"GIT_{k}_{v}": "junk" for k in ("AUTHOR", "COMMITTER") for v in ("NAME", "EMAIL")}
    commit = gitcmd.run(path, "commit-tree", tree, "-m", "junk", env=who, check=True).stdout.strip()
    lines = "".join(f"create {PREFIX}/{name.format(i=i)} {commit}\n" for i in range(refs))
    gitcmd.run(path, "update-ref", "--stdin", input=lines, check=True)
    return path


@pytest.fixture
def silent_remote():
    """A ``git://`` URL whose server accepts and then never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held: list = []
    threading.Thread(target=lambda: held.append(server.accept()), daemon=True).start()
    yield f"git://127.0.0.1:{server.getsockname()[1]}/x.git"
    server.close()


def test_a_remote_that_lists_more_than_the_bound_is_stopped_with_one_sentence(tmp_path):
    remote = _junk_remote(tmp_path / "junk.git", 200)
    assert len(ls_remote(str(remote), time.monotonic() + 20)) == 200
    with pytest.raises(RemoteError, match=r"cannot list the games .*wrote more than 1,000 bytes"):
        ls_remote(str(remote), time.monotonic() + 20, limit=1000)


def test_a_listing_stopped_at_its_deadline_lets_git_clear_its_locks(silent_remote):
    """Stopped with SIGTERM (Git removes its ``.lock`` files then), never killed outright."""
    started: list[subprocess.Popen] = []
    with pytest.raises(RemoteStopped, match="timed out after 0.5 s"):
        run_git(None, "ls-remote", silent_remote, timeout=0.5, limit=1000, on_start=started.append)
    assert started[0].returncode == -signal.SIGTERM


def test_a_silent_remote_costs_the_listing_its_deadline_and_no_more(silent_remote):
    begun = time.monotonic()
    with pytest.raises(RemoteError, match=r"cannot list the games .*timed out"):
        ls_remote(silent_remote, time.monotonic() + 1.0)
    assert time.monotonic() - begun < 10


def test_a_remote_on_this_disk_is_read_in_place_and_another_is_fetched(tmp_path):
    remote = _junk_remote(tmp_path / "r.git", 2)
    tips = {oid: ref for ref, oid in ls_remote(str(remote), time.monotonic() + 20).items()}
    assert on_this_disk(str(remote)) == remote
    assert bring_tips(str(remote), tmp_path / "unused", tips, time.monotonic() + 20) == remote
    assert not (tmp_path / "unused").exists()
    cache = bring_tips(f"file://{remote}", tmp_path / "cache.git", tips, time.monotonic() + 20)
    assert cache == tmp_path / "cache.git"
    (oid,) = tips
    assert gitcmd.run(cache, "cat-file", "-t", oid).stdout.strip() == "commit"


def test_a_url_that_would_be_an_option_is_refused_before_git_runs():
    with pytest.raises(Exception, match="not a Git URL"):
        ls_remote("--upload-pack=touch /tmp/x", time.monotonic() + 5)


def test_a_game_discovered_on_a_remote_full_of_junk_names_is_read_within_the_bound(
    tmp_path, monkeypatch
):
    """``join`` lists a game's logs with ``ls-remote``: a remote that holds more names of
    the game's shape than the bound is stopped with one sentence, never read whole."""
    from catan_p2p.net import transport

    remote = _junk_remote(tmp_path / "junk.git", 300, name="g/p{i}")
    mine = tmp_path / "mine.git"
    gitcmd.run(None, "init", "-q", "--bare", str(mine), check=True)
    assert len(transport.discover_logs(mine, "g", url=str(remote))) == transport.DISCOVER_LOGS
    monkeypatch.setattr(transport, "MAX_LISTING", 2000)
    with pytest.raises(RemoteStopped, match="wrote more than"):
        transport.discover_logs(mine, "g", url=str(remote))
