"""Objects written straight into a real repository: packs Git can read, made from spare files."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from catan_p2p.errors import DamagedRepository, StateFileError
from catan_p2p.store.formats import commit_data, object_id, tree_data
from catan_p2p.store.objects import GitObjectStore, write_pack
from catan_p2p.store.repo import init_repo
from catan_p2p.store.spares import KEEP, SpareFiles


def _git(git_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True, check=False
    )


def _eventually(check, seconds: float = 60.0) -> bool:
    """True once ``check()`` is; ``seconds`` only bounds the wait on a loaded machine."""
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


@pytest.mark.slow
def test_a_batch_lands_as_one_pack_that_git_reads_and_leaves_no_spares_behind(tmp_path: Path):
    git_dir = init_repo(tmp_path / "repo")
    store = GitObjectStore(git_dir)
    store.spares.start()
    commits = []
    for i in range(6):
        assert _eventually(lambda: store.spares.ready == KEEP)
        with store.batch():
            commits.append(_one_commit(store, f"action {i}\n"))
        assert store.spares.placed == 2 * (i + 1)  # the pack and its index, from spares
    packs = sorted((git_dir / "objects" / "pack").iterdir())
    assert [p.suffix for p in packs] == [".idx", ".pack"] * 6, packs
    for c in commits:
        assert _git(git_dir, "cat-file", "-t", c).stdout.strip() == "commit"
    fsck = _git(git_dir, "fsck", "--strict")
    assert fsck.returncode == 0, fsck.stderr
    spare_dir = store.spares.directory
    store.close()
    assert not spare_dir.exists()  # the spares, their lock and their directory are gone


@pytest.mark.slow
def test_a_forked_child_writes_through_spares_of_its_own(tmp_path: Path):
    """A child forked while its parent's spares are ready never fills one of them (their
    descriptors are shared: two writers of one file make a damaged pack), and its exit
    removes none of them."""
    git_dir = init_repo(tmp_path / "repo")
    store = GitObjectStore(git_dir)
    store.spares.start()
    assert _eventually(lambda: store.spares.ready == KEEP)
    pid = os.fork()
    if pid == 0:  # the child: three commits of its own, then a clean exit
        code = 1
        try:
            with open(tmp_path / "child", "w") as out:
                for i in range(3):
                    with store.batch():
                        out.write(_one_commit(store, f"child {i}\n") + "\n")
            store.close()
            code = 0
        finally:
            os._exit(code)
    assert os.waitpid(pid, 0)[1] == 0
    assert store.spares.ready == KEEP and store.spares.placed == 0
    commits = [_one_commit_batch(store, f"parent {i}\n") for i in range(3)]
    assert store.spares.placed == 6  # the parent's own spares, untouched by the child
    commits += (tmp_path / "child").read_text().split()
    for c in commits:
        assert _git(git_dir, "cat-file", "-t", c).stdout.strip() == "commit"
    fsck = _git(git_dir, "fsck", "--strict")
    assert fsck.returncode == 0, fsck.stderr
    store.close()


@pytest.mark.slow
def test_a_forked_child_reads_through_a_cat_file_of_its_own(tmp_path: Path):
    """A child forked while its parent's ``cat-file`` runs asks one of its own, and lets go
    of the parent's pipes: the parent's reader still stops at the end of its input."""
    git_dir = init_repo(tmp_path / "repo")
    writer = GitObjectStore(git_dir)
    first, second = _one_commit(writer, "one\n"), _one_commit(writer, "two\n")
    writer.close()
    store = GitObjectStore(git_dir)
    assert store.read(first)[0] == b"commit"  # the parent's cat-file runs now
    parent_cat_file = store.reader._proc
    done_r, done_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: one read, say so, wait to be let go
        code = 1
        try:
            os.close(done_r)
            os.close(go_w)
            code = 0 if store.read(second) == (b"commit", _commit_bytes(git_dir, second)) else 2
            os.write(done_w, b"x")
            os.read(go_r, 1)
            store.close()
        finally:
            os._exit(code)
    os.close(done_w)
    os.close(go_r)
    assert os.read(done_r, 1) == b"x"
    store.close()  # the child still runs, holding its copies of the parent's pipes
    assert parent_cat_file.returncode == 0  # it saw the end of its input, not a kill
    os.write(go_w, b"x")
    assert os.waitpid(pid, 0)[1] == 0


def _commit_bytes(git_dir: Path, oid: str) -> bytes:
    return _git(git_dir, "cat-file", "commit", oid).stdout.encode()


def _one_commit_batch(store: GitObjectStore, text: str) -> str:
    assert _eventually(lambda: store.spares.ready >= 2)
    with store.batch():
        return _one_commit(store, text)


def test_a_spare_is_filled_and_linked_and_its_own_name_removed(tmp_path: Path):
    spares = SpareFiles(tmp_path / "spares", keep=2)
    spares.start()
    target = tmp_path / "pack-1.pack"
    assert _eventually(lambda: spares.ready == 2)
    assert spares.place(target, b"the pack")
    assert target.read_bytes() == b"the pack"
    assert _eventually(lambda: target.stat().st_nlink == 1)  # the spare's name is gone
    # A retry with the same name leaves the file that is there.
    assert _eventually(lambda: spares.ready == 2)
    assert spares.place(target, b"other bytes")
    assert target.read_bytes() == b"the pack"
    spares.close()
    assert not (tmp_path / "spares").exists()


_POOL_IN_A_PROCESS = """
import os, sys, time
from pathlib import Path
from catan_p2p.store.spares import KEEP, SpareFiles
spares = SpareFiles(Path(sys.argv[1]))
spares.start()
while spares.ready < KEEP:
    time.sleep(0.01)
print("ready", flush=True)
if sys.argv[2] == "die":
    os.kill(os.getpid(), 9)
time.sleep(60)
"""


@pytest.mark.slow
def test_spares_of_a_killed_process_are_removed_and_a_live_ones_kept(tmp_path: Path):
    directory = tmp_path / "spares"

    def files_of(pid: int) -> list[str]:
        return [p.name for p in directory.iterdir() if p.name.startswith(f"{pid}-")]

    killed = subprocess.run(
        [sys.executable, "-c", _POOL_IN_A_PROCESS, str(directory), "die"],
        capture_output=True,
        text=True,
    )
    assert killed.returncode == -9 and "ready" in killed.stdout, killed.stderr
    (killed_pid,) = {int(p.name.partition("-")[0]) for p in directory.iterdir()}
    assert len(files_of(killed_pid)) == KEEP + 1  # its spares and its lock, left behind
    live = subprocess.Popen(
        [sys.executable, "-c", _POOL_IN_A_PROCESS, str(directory), "live"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert live.stdout.readline().strip() == "ready"
        assert files_of(killed_pid) == []  # removed by the pool that started next
        spares = SpareFiles(directory)
        spares.start()
        assert _eventually(lambda: spares.ready == KEEP)
        spares.close()
        assert len(files_of(live.pid)) == KEEP + 1  # a running pool's files are kept
    finally:
        live.kill()
        live.wait()


@pytest.mark.slow
def test_where_files_cannot_be_linked_the_pool_stops_and_packs_are_written(tmp_path: Path):
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("needs a second filesystem at /dev/shm")
    spare_dir = Path(tempfile.mkdtemp(dir=shm)) / "spares"
    spares = SpareFiles(spare_dir)
    spares.start()
    assert _eventually(lambda: spares.ready == KEEP)
    git_dir = init_repo(tmp_path / "repo")
    objects = {object_id(b"blob", b"x"): (b"blob", b"x")}
    name = write_pack(git_dir / "objects" / "pack", objects, spares)  # the link fails: EXDEV
    assert spares.placed == 0 and not spares.place(tmp_path / "y", b"y")
    verify = _git(git_dir, "verify-pack", str(git_dir / "objects" / "pack" / f"{name}.idx"))
    assert verify.returncode == 0, verify.stderr
    assert not spare_dir.exists()
    spare_dir.parent.rmdir()


@pytest.mark.slow
def test_with_no_spare_ready_the_pack_is_written_all_the_same(tmp_path: Path):
    git_dir = init_repo(tmp_path / "repo")
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the spares would go")
    spares = SpareFiles(blocked / "spares")
    objects = {object_id(b"blob", b"x"): (b"blob", b"x")}
    for _ in range(3):
        name = write_pack(git_dir / "objects" / "pack", objects, spares)
    assert spares.placed == 0
    pack_dir = git_dir / "objects" / "pack"
    assert sorted(p.name for p in pack_dir.iterdir()) == [f"{name}.idx", f"{name}.pack"]
    verify = _git(git_dir, "verify-pack", str(pack_dir / f"{name}.idx"))
    assert verify.returncode == 0, verify.stderr
    spares.close()


@pytest.mark.slow
def test_a_pack_whose_index_never_came_is_ignored_as_git_ignores_it(tmp_path: Path):
    """A crash between writing a pack and its index must not hide the other packs."""
    git_dir = init_repo(tmp_path / "repo")
    writer = GitObjectStore(git_dir)
    with writer.batch():
        kept = _one_commit(writer, "kept\n")
    pack_dir = git_dir / "objects" / "pack"
    name = write_pack(pack_dir, {object_id(b"blob", b"x"): (b"blob", b"x")})
    (pack_dir / f"{name}.idx").unlink()  # the crash: the pack is there, its index is not
    writer.close()
    reader = GitObjectStore(git_dir)
    assert reader.read(kept)[0] == b"commit"
    assert not reader.has(object_id(b"blob", b"x"))
    assert _git(git_dir, "fsck", "--strict").returncode == 0


@pytest.mark.slow
def test_the_store_runs_where_os_has_no_pread_pwrite_or_fcntl(tmp_path: Path, monkeypatch):
    """Windows has no os.pread/os.pwrite and no fcntl: recording must not need them."""
    from catan_p2p.bots import make_bot
    from catan_p2p.net.driver import Driver
    from catan_p2p.session.git import GitSession
    from catan_p2p.session.start import create_game
    from catan_p2p.store import reflock, spares

    for name in ("pread", "pwrite"):
        monkeypatch.delattr(os, name, raising=False)
    monkeypatch.setattr(spares, "fcntl", None)
    monkeypatch.setattr(spares, "msvcrt", None)
    monkeypatch.setattr(reflock, "fcntl", None)
    path = tmp_path / "game"
    create_game(path, ("red", "blue"), seed="w", game_id="g")
    session = GitSession(path, "g")
    Driver(session, {p: make_bot("random", p) for p in session.players}).play(60)
    head = session.head
    session.close()
    again = GitSession(path, "g")
    assert again.head == head and again.repo.depth(head) >= 60
    again.close()
    assert _git(path / ".git", "fsck", "--strict").returncode == 0


@pytest.mark.slow
def test_a_read_follows_an_object_a_repack_moved_and_a_missing_one_fails_at_once(
    tmp_path: Path,
):
    """A background ``git repack -d`` moves a loose object into a new pack (and deletes
    the loose file) after the store's reader last looked: the read finds it (Git looks at
    the packs again). An object that is nowhere is a clear error."""
    git_dir = init_repo(tmp_path / "repo")
    wanted = object_id(b"blob", b"moved about")
    subprocess.run(
        ["git", "--git-dir", str(git_dir), "hash-object", "-w", "--stdin"],
        input=b"moved about", capture_output=True, check=True,
    )  # fmt: skip
    assert _git(git_dir, "update-ref", "refs/tags/kept", wanted).returncode == 0  # packed
    first = object_id(b"blob", b"read first")
    subprocess.run(
        ["git", "--git-dir", str(git_dir), "hash-object", "-w", "--stdin"],
        input=b"read first", capture_output=True, check=True,
    )  # fmt: skip
    store = GitObjectStore(git_dir)
    assert store.read(first) == (b"blob", b"read first")  # the reader is running: no packs
    assert _git(git_dir, "repack", "-a", "-d", "-q").returncode == 0
    assert not (git_dir / "objects" / wanted[:2] / wanted[2:]).exists()
    assert store.read(wanted) == (b"blob", b"moved about")
    with pytest.raises(StateFileError, match="is missing"):
        store.read(object_id(b"blob", b"never written"))
    store.close()


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncated", "cut to its header", "bytes flipped"])
def test_a_damaged_pack_is_a_clear_error_not_a_traceback(tmp_path: Path, damage: str):
    """A pack cut short or with bytes changed (a full disk, a bad copy) makes a read fail
    with a ``DamagedRepository`` naming the pack (gitdb's smmap raised AttributeError on
    a truncated pack, gitdb a zlib.error on changed bytes); the store reads on afterwards."""
    git_dir = init_repo(tmp_path / "repo")
    writer = GitObjectStore(git_dir)
    with writer.batch():
        commit = _one_commit(writer, "to be damaged\n" * 40)
    fine = writer.write(b"blob", b"loose and fine")
    writer.close()
    pack = next((git_dir / "objects" / "pack").glob("pack-*.pack"))
    data = pack.read_bytes()
    pack.chmod(0o644)
    if damage == "truncated":
        pack.write_bytes(data[: len(data) // 2])
    elif damage == "cut to its header":
        pack.write_bytes(data[:12])
    else:
        pack.write_bytes(data[:12] + bytes(b ^ 0x55 for b in data[12:-20]) + data[-20:])
    reader = GitObjectStore(git_dir)
    with pytest.raises(DamagedRepository, match=pack.name):
        reader.read(commit)
    assert reader.read(fine) == (b"blob", b"loose and fine")
    reader.close()


@pytest.mark.slow
def test_each_kind_s_compressor_writes_streams_git_checks_and_inflates(tmp_path: Path):
    """Trees and blobs (zlib-ng) and commits (zlib) as Git reads them: ``verify-pack``
    inflates every entry and checks its id, and the bytes come back as written."""
    git_dir = init_repo(tmp_path / "repo")
    store = GitObjectStore(git_dir)
    texts = {f"{i}.json": os.urandom(300 * i).hex() + "\n" for i in range(1, 6)}
    with store.batch():
        blobs = {name: store.write(b"blob", text.encode()) for name, text in texts.items()}
        tree = store.write(b"tree", tree_data({n: (False, b) for n, b in blobs.items()}))
        commit = store.write(b"commit", commit_data(tree, [], "red", "red@catan", 0, "x" * 900))
    store.close()
    (idx,) = (git_dir / "objects" / "pack").glob("*.idx")
    verify = _git(git_dir, "verify-pack", "-v", str(idx))
    assert verify.returncode == 0, verify.stderr
    assert _git(git_dir, "fsck", "--strict").returncode == 0
    for name, text in texts.items():
        assert _git(git_dir, "cat-file", "blob", blobs[name]).stdout == text
    assert _git(git_dir, "cat-file", "-t", commit).stdout.strip() == "commit"
    assert _git(git_dir, "rev-parse", f"{commit}^{{tree}}").stdout.strip() == tree
