"""Objects written straight into a real repository: packs Git can read, made from spare files."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from catan_p2p.store.objects import GitObjectStore, commit_data, tree_data, write_pack
from catan_p2p.store.spares import SpareFiles
from catan_p2p.sync.repo import init_repo


def _git(git_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True, check=False
    )


def _eventually(check, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return check()


def _one_commit(store: GitObjectStore, text: str) -> str:
    blob = store.write(b"blob", text.encode())
    tree = store.write(b"tree", tree_data({"turn.json": (False, blob)}))
    return store.write(b"commit", commit_data(tree, [], "red", "red@catan", 0, text))


def test_a_batch_lands_as_one_pack_that_git_reads_and_leaves_no_spares_behind(tmp_path: Path):
    git_dir = init_repo(tmp_path / "repo")
    store = GitObjectStore(git_dir)
    commits = []
    for i in range(6):  # the first may find no spare ready yet; later ones use them
        with store.batch():
            commits.append(_one_commit(store, f"action {i}\n"))
    packs = sorted((git_dir / "objects" / "pack").iterdir())
    assert [p.suffix for p in packs] == [".idx", ".pack"] * 6, packs
    for c in commits:
        assert _git(git_dir, "cat-file", "-t", c).stdout.strip() == "commit"
    fsck = _git(git_dir, "fsck", "--strict")
    assert fsck.returncode == 0, fsck.stderr
    spare_dir = store.spares.directory
    store.close()
    assert not spare_dir.exists()  # the spares and their directory are gone


def test_a_spare_is_filled_and_linked_and_its_own_name_removed(tmp_path: Path):
    spares = SpareFiles(tmp_path / "spares", keep=2)
    target = tmp_path / "pack-1.pack"
    assert _eventually(lambda: spares.place(target, b"the pack") or target.exists())
    assert target.read_bytes() == b"the pack"
    assert _eventually(lambda: target.stat().st_nlink == 1)  # the spare's name is gone
    # A retry with the same name leaves the file that is there.
    assert _eventually(lambda: spares.place(target, b"other bytes"))
    assert target.read_bytes() == b"the pack"
    spares.close()
    assert not (tmp_path / "spares").exists()


def test_spares_left_by_a_killed_process_are_removed_and_live_ones_kept(tmp_path: Path):
    directory = tmp_path / "spares"
    directory.mkdir()
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    orphan = directory / f"{gone}-7"
    alive = directory / f"{os.getppid()}-3"  # the process that runs pytest's parent
    orphan.write_bytes(b"")
    alive.write_bytes(b"")
    spares = SpareFiles(directory)
    spares.place(tmp_path / "x", b"x")  # starts the pool
    assert _eventually(lambda: not orphan.exists())
    assert alive.exists()
    spares.close()


def test_with_no_spare_ready_the_pack_is_written_all_the_same(tmp_path: Path):
    git_dir = init_repo(tmp_path / "repo")
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the spares would go")
    spares = SpareFiles(blocked / "spares")
    store = GitObjectStore(git_dir)
    blob = store.write(b"blob", b"x")  # loose, to pack below
    objects = {blob: (b"blob", b"x")}
    for _ in range(3):
        name = write_pack(git_dir / "objects" / "pack", objects, spares)
    assert not spares.place(tmp_path / "y", b"y")
    assert (git_dir / "objects" / "pack" / f"{name}.idx").exists()
    verify = _git(git_dir, "verify-pack", str(git_dir / "objects" / "pack" / f"{name}.idx"))
    assert verify.returncode == 0, verify.stderr
    spares.close()
