"""A ref lock left by a writer that died is cleared; a live one is never taken.

A process killed while it updates a ref leaves ``<ref>.lock`` behind. Before, nothing
removed it and every later update of that ref failed. Now a lock whose inode has not
changed for ``stale_after`` seconds is removed by the next writer, under an advisory lock
so that two writers finding it at once cannot both remove a lock (the second could
otherwise remove the first one's fresh lock), and exactly one compare-and-swap wins.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from catan_p2p.errors import ForkError
from catan_p2p.store import refs as refs_module
from catan_p2p.store.refs import Refs

OLD = "1" * 40
NAME = "refs/heads/catan/g/red"
STALE = 0.3


@pytest.fixture
def git_dir(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "r.git")], check=True)
    git_dir = tmp_path / "r.git"
    Refs(git_dir).set(NAME, OLD, None)
    return git_dir


def _killed_mid_update(git_dir: Path) -> Path:
    """A real process takes the ref's lock as ``Refs.set`` does, and is killed."""
    code = (
        "import os, signal, sys; ref = sys.argv[1]; os.link(ref, ref + '.lock'); "
        "os.kill(os.getpid(), signal.SIGKILL)"
    )
    done = subprocess.run([sys.executable, "-c", code, str(git_dir / NAME)])
    assert done.returncode == -signal.SIGKILL
    lock = git_dir / (NAME + ".lock")
    assert lock.exists()
    return lock


def test_a_lock_left_by_a_killed_writer_is_cleared_once_stale(git_dir):
    lock = _killed_mid_update(git_dir)
    refs = Refs(git_dir, stale_after=STALE)
    with pytest.raises(ForkError, match="delete that file") as fresh:
        refs.set(NAME, "2" * 40, OLD)  # just left: it could still be a live writer's
    assert str(lock) in str(fresh.value)
    time.sleep(STALE + 0.1)
    refs.set(NAME, "2" * 40, OLD)
    assert refs.get(NAME) == "2" * 40 and not lock.exists()


def test_a_stale_lock_on_a_ref_not_yet_written_is_cleared(git_dir):
    lock = git_dir / "refs/heads/catan/g/trade/abc/blue.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("half a ref")  # a writer died writing its lock, before the rename
    refs = Refs(git_dir, stale_after=STALE)
    time.sleep(STALE + 0.1)
    refs.set("refs/heads/catan/g/trade/abc/blue", "3" * 40, None)
    assert refs.get("refs/heads/catan/g/trade/abc/blue") == "3" * 40 and not lock.exists()


def test_a_live_writers_lock_is_never_taken(git_dir):
    lock = git_dir / (NAME + ".lock")
    os.link(git_dir / NAME, lock)  # held right now
    with pytest.raises(ForkError, match="being updated by another writer"):
        Refs(git_dir).set(NAME, "4" * 40, OLD)
    assert lock.exists() and Refs(git_dir).get(NAME) == OLD


def test_without_fcntl_a_stale_lock_is_named_not_removed(git_dir, monkeypatch):
    lock = _killed_mid_update(git_dir)
    monkeypatch.setattr(refs_module, "fcntl", None)
    time.sleep(STALE + 0.1)
    with pytest.raises(ForkError, match="delete that file"):
        Refs(git_dir, stale_after=STALE).set(NAME, "5" * 40, OLD)
    assert lock.exists()


def _race(git_dir: str, value: str, start: float, results) -> None:  # type: ignore[no-untyped-def]
    while time.time() < start:
        pass
    try:
        Refs(Path(git_dir), stale_after=STALE).set(NAME, value, OLD)
        results.put(value)
    except ForkError:
        results.put(None)


def test_writers_racing_to_clear_one_stale_lock_let_exactly_one_update_win(git_dir):
    context = multiprocessing.get_context("fork")
    for _round in range(10):
        Refs(git_dir).delete(NAME)
        Refs(git_dir).set(NAME, OLD, None)
        _killed_mid_update(git_dir)
        time.sleep(STALE + 0.1)
        results = context.Queue()
        start = time.time() + 0.2
        values = [f"{i:x}" * 40 for i in range(2, 8)]
        workers = [
            context.Process(target=_race, args=(str(git_dir), v, start, results)) for v in values
        ]
        for w in workers:
            w.start()
        for w in workers:
            w.join(20)
        won = [r for r in (results.get(timeout=5) for _ in workers) if r is not None]
        assert len(won) == 1, won  # compare-and-swap from OLD: one writer moves it
        assert Refs(git_dir).get(NAME) == won[0]
        assert not (git_dir / (NAME + ".lock")).exists()
