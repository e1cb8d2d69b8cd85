"""A ref lock whose owner was killed is cleared; a live one, or Git's, never is.

The holders and racers are real processes: a lock outlives its owner only when the
owner is SIGKILLed, and only processes can race to clear it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from catan_p2p.errors import ForkError
from catan_p2p.store import reflock
from catan_p2p.store.formats import object_id
from catan_p2p.store.objects import GitObjectStore
from catan_p2p.store.reflock import OWNERS, RefLock, lock_path
from catan_p2p.store.refnames import player_ref
from catan_p2p.store.refs import Refs
from catan_p2p.store.repo import init_repo

NAME = player_ref("g", "red")

pytestmark = [
    pytest.mark.skipif(reflock.fcntl is None, reason="stale locks need flock"),
    pytest.mark.slow,  # real Git repositories and lock holders in other processes
]

# Takes the lock, says so, and keeps it until told (or killed).
HOLDER = """
import sys
from pathlib import Path
from catan_p2p.store.reflock import RefLock
lock = RefLock(Path(sys.argv[1]), sys.argv[2])
lock.take()
print("held", flush=True)
sys.stdin.readline()
lock.release()
print("released", flush=True)
"""

# On each "go": one try at the lock (clearing a dead owner's); a winner keeps it until
# the next line, so a second winner in the same round would be two live holders.
RACER = """
import sys
from pathlib import Path
from catan_p2p.errors import ForkError
from catan_p2p.store.reflock import RefLock
lock = RefLock(Path(sys.argv[1]), sys.argv[2])
print("ready", flush=True)
for line in sys.stdin:
    try:
        lock.take()
    except ForkError:
        print("lost", flush=True)
        continue
    print("won", flush=True)
    sys.stdin.readline()
    lock.release()
    print("released", flush=True)
"""


def _start(script: str, git_dir: Path, name: str = NAME) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", script, str(git_dir), name],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _say(proc: subprocess.Popen, line: str = "") -> None:
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def _hold(git_dir: Path, name: str = NAME) -> subprocess.Popen:
    holder = _start(HOLDER, git_dir, name)
    assert holder.stdout.readline() == "held\n"
    return holder


def _kill(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


def _git(git_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True)


TREE = object_id(b"tree", b"")
CONTENTS = tuple(
    f"tree {TREE}\nauthor a <a> 0 +0000\ncommitter a <a> 0 +0000\n\n{m}\n".encode() for m in "abc"
)
A, B, C = (object_id(b"commit", data) for data in CONTENTS)


@pytest.fixture
def git_dir(tmp_path: Path) -> Path:
    """A repository holding commits A, B and C (Git's branches point at commits)."""
    git_dir = init_repo(tmp_path / "r")
    store = GitObjectStore(git_dir)
    store.write(b"tree", b"")
    for data in CONTENTS:
        store.write(b"commit", data)
    Refs(git_dir).set(NAME, A, None)
    return git_dir


def test_a_lock_left_by_a_killed_writer_is_cleared_by_the_next_write(git_dir: Path):
    _kill(_hold(git_dir))
    assert lock_path(git_dir / NAME).exists()
    Refs(git_dir).set(NAME, B, A)
    assert Refs(git_dir).get(NAME) == B
    assert not lock_path(git_dir / NAME).exists()
    assert _git(git_dir, "update-ref", NAME, C, B).returncode == 0  # Git can write it too
    assert _git(git_dir, "fsck", "--strict").returncode == 0


def test_a_lock_left_by_a_killed_forked_child_is_cleared_while_its_parent_lives(git_dir: Path):
    """A child forked after its parent wrote a ref is a writer of its own: killed holding
    a lock, the lock is stale although the parent that wrote before it still runs."""
    Refs(git_dir).set(NAME, B, A)  # this process is an owner in the repository now
    pid = os.fork()
    if pid == 0:  # the child: take the lock and die holding it
        try:
            RefLock(git_dir, NAME).take()
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert status == 0 and lock_path(git_dir / NAME).exists()
    Refs(git_dir).set(NAME, C, B)
    assert Refs(git_dir).get(NAME) == C and not lock_path(git_dir / NAME).exists()


def test_a_lock_held_by_a_live_writer_is_never_taken(git_dir: Path):
    holder = _hold(git_dir)
    try:
        with pytest.raises(ForkError, match=rf"another writer .*held by pid {holder.pid}"):
            Refs(git_dir).set(NAME, B, A)  # however slow the holder is
        assert lock_path(git_dir / NAME).exists()
        _say(holder)
        assert holder.stdout.readline() == "released\n"
    finally:
        holder.kill()
        holder.wait()
    Refs(git_dir).set(NAME, B, A)
    assert Refs(git_dir).get(NAME) == B


def test_git_waits_for_a_lock_of_ours(git_dir: Path):
    holder = _hold(git_dir)
    try:
        refused = _git(git_dir, "update-ref", NAME, B, A)
        assert refused.returncode != 0 and "lock" in refused.stderr
    finally:
        _kill(holder)
    assert _git(git_dir, "update-ref", NAME, B, A).returncode != 0, "Git never clears locks"
    Refs(git_dir).set(NAME, B, A)
    assert _git(git_dir, "update-ref", NAME, C, B).returncode == 0


@pytest.mark.parametrize("content", [A + "\n", "", "something else\n"])
def test_a_lock_written_by_git_is_always_respected(git_dir: Path, content: str):
    """Git's lock holds the new id (or nothing yet); however old, it is Git's to remove."""
    lock = lock_path(git_dir / NAME)
    lock.write_text(content)
    os.utime(lock, (0, 0))  # no age makes it ours to clear
    with pytest.raises(ForkError, match="another writer"):
        Refs(git_dir).set(NAME, B, A)
    assert lock.read_text() == content
    lock.unlink()
    Refs(git_dir).set(NAME, B, A)


def test_racers_clearing_one_stale_lock_never_both_win(git_dir: Path):
    racers = [_start(RACER, git_dir) for _ in range(4)]
    try:
        for racer in racers:
            assert racer.stdout.readline() == "ready\n"
        for _round in range(6):
            _kill(_hold(git_dir))  # a stale lock for them to clear
            for racer in racers:
                _say(racer, "go")
            results = [racer.stdout.readline() for racer in racers]
            assert results.count("won\n") == 1, results
            assert set(results) <= {"won\n", "lost\n"}, results
            winner = racers[results.index("won\n")]
            _say(winner)
            assert winner.stdout.readline() == "released\n"
    finally:
        for racer in racers:
            racer.kill()
            racer.wait()


def test_dead_owners_files_are_removed_and_live_ones_kept(git_dir: Path):
    live = _hold(git_dir, player_ref("g", "blue"))
    try:
        _kill(_hold(git_dir))
        owners = git_dir / OWNERS
        names = {p.name.split("-")[0] for p in owners.iterdir()}
        assert str(live.pid) in names and len(names) == 3  # this process owns one too
        reflock._remove_dead_owners(owners)
        names = {p.name.split("-")[0] for p in owners.iterdir()}
        assert names == {str(live.pid), str(os.getpid())}
    finally:
        _kill(live)


def test_without_flock_a_lock_is_gits_plain_file_and_is_never_cleared(git_dir: Path, monkeypatch):
    monkeypatch.setattr(reflock, "fcntl", None)
    refs = Refs(git_dir)
    refs.set(NAME, B, A)
    refs.delete(NAME, B)
    refs.set(NAME, A, None)
    lock = RefLock(git_dir, NAME)
    lock.take()  # and "killed": never released
    assert lock.lock.read_bytes() == b""
    with pytest.raises(ForkError, match=f"another writer .*{lock.lock.name}"):
        refs.set(NAME, B, A)
