"""A/B of the object reader: ours (store/catfile.py), gitdb, dulwich, GitPython's reader.

- ``ours``: one ``git cat-file --batch`` child over store/gitcmd.py (``CatFile``).
- ``gitdb``: the store's reader before (pure Python, deltas resolved in Python).
- ``dulwich``: ``DiskObjectStore.get_raw`` in this process (its compiled helpers).
- ``gitpython``: GitPython's persistent ``cat-file --batch`` (``Git.get_object_data``).

One bot game (4 players) read back in three layouts: **packed** as ``GameRepo.pack``
leaves a finished game (``git repack -a -d``: one pack, trees and blobs as deltas),
**played** as a game stands while it is played (one small pack per commit, rolled up by
``git repack --geometric=2 -d`` every ``REPACK_EVERY`` commits, as ``GameRepo`` does) and
**loose** (the same objects unpacked, one file each). A round opens a reader, reads
every commit (or every tree) of the game once and closes it; its cost is this
process's CPU plus the CPU of the child the reader started (what ``RUSAGE_CHILDREN``
gains when the child is reaped), so a reader that hands the work to Git pays for Git's
part, start-up included. The readers take turns round by round; per reader the median
over rounds and the paired ratio against ``ours`` (median of the rounds' ratios).
``start_ms`` is one reader opened, one commit read and the reader closed; ``import_ms``
the CPU of a fresh interpreter importing the reader, less one importing nothing.

Run (``pip install -e .[bench]`` brings dulwich and GitPython; a reader whose library is
missing is left out)::

    python -m benchmarks.ab_reader [--actions 600] [--rounds 15] [--out PATH]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.gitgames import play_hotseat
from catan_p2p.store import gitcmd
from catan_p2p.store.catfile import CatFile
from catan_p2p.store.formats import parse_tree
from catan_p2p.store.objects import write_pack
from catan_p2p.store.repo import REPACK_EVERY, init_repo

#: A reader: open(git_dir) -> handle, read(handle, oid) -> (kind, bytes), close(handle).
Reader = tuple[Callable, Callable, Callable]


def _ours() -> Reader:
    return CatFile, lambda r, oid: r.read(oid), lambda r: r.close()


def _gitdb() -> Reader:
    from gitdb import GitDB
    from gitdb.util import mman

    def read(db, oid: str) -> tuple[bytes, bytes]:
        stream = db.stream(bytes.fromhex(oid))
        return stream.type, stream.read()

    def close(db) -> None:
        mman.collect()  # unmap the packs, as the store did on close

    return (lambda git_dir: GitDB(str(git_dir / "objects"))), read, close


def _dulwich() -> Reader:
    from dulwich.object_store import DiskObjectStore
    from dulwich.objects import object_class

    def read(store, oid: str) -> tuple[bytes, bytes]:
        num, data = store.get_raw(oid.encode())
        return object_class(num).type_name, data

    return (lambda git_dir: DiskObjectStore(str(git_dir / "objects"))), read, lambda s: s.close()


def _gitpython() -> Reader:
    import git as gitpython  # GitPython starts its own child: ours starts through gitcmd

    def read(g, oid: str) -> tuple[bytes, bytes]:
        _sha, kind, _size, data = g.get_object_data(oid)
        return kind.encode() if isinstance(kind, str) else kind, data

    return (lambda git_dir: gitpython.Git(str(git_dir))), read, lambda g: g.clear_cache()


READERS: dict[str, tuple[Callable[[], Reader], str]] = {
    "ours": (_ours, "catan_p2p.store.catfile"),
    "gitdb": (_gitdb, "gitdb"),
    "dulwich": (_dulwich, "dulwich.object_store"),
    "gitpython": (_gitpython, "git.cmd"),  # the whole of GitPython: git.cmd imports it
}


def _children_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _round(reader: Reader, git_dir: Path, oids: list[str], kind: bytes) -> tuple[float, float]:
    """(own, child) CPU seconds of one reader opened, every oid read, the reader closed."""
    opener, read, close = reader
    child0, own0 = _children_cpu(), time.process_time()
    handle = opener(git_dir)
    for oid in oids:
        if read(handle, oid)[0] != kind:
            raise AssertionError(f"{oid} read back as another kind")
    close(handle)
    return time.process_time() - own0, _children_cpu() - child0


def _played(packed: Path, played: Path) -> int:
    """Lay the objects of ``packed`` into ``played`` as play does; how many packs."""
    order = gitcmd.run(packed, "rev-list", "--reverse", "--topo-order", "--all").stdout.split()
    seen: set[str] = set()
    with CatFile(packed) as reader:
        for n, commit in enumerate(order, 1):
            batch = {}
            todo = [commit]
            while todo:
                oid = todo.pop()
                if oid in seen:
                    continue
                seen.add(oid)
                kind, data = reader.read(oid) or (b"", b"")
                batch[oid] = (kind, data)
                if kind == b"commit":
                    todo.append(data.split(b"\n", 1)[0].split()[1].decode())
                elif kind == b"tree":
                    todo.extend(oid for _, oid in parse_tree(data).values())
            write_pack(played / "objects" / "pack", batch)
            if n % REPACK_EVERY == 0:
                gitcmd.run(played, "repack", "--geometric=2", "-d", "-q")
    return len(list((played / "objects" / "pack").glob("pack-*.pack")))


def _game(workdir: Path, actions: int) -> tuple[dict[str, Path], list[str], list[str], dict]:
    """The game in each layout; its commits, its trees, and what the layouts hold."""
    packed = play_hotseat(workdir, 4, "ab-reader", actions).git_dir
    assert gitcmd.run(packed, "repack", "-a", "-d", "-q").returncode == 0  # as GameRepo.pack
    commits = gitcmd.run(packed, "rev-list", "--all").stdout.split()
    trees: list[str] = []
    seen: set[str] = set()
    with CatFile(packed) as reader:
        todo = [reader.read(c)[1].split(b"\n", 1)[0].split()[1].decode() for c in commits]
        while todo:
            tree = todo.pop()
            if tree in seen:
                continue
            seen.add(tree)
            trees.append(tree)
            found = reader.read(tree)
            assert found is not None
            todo.extend(oid for is_tree, oid in parse_tree(found[1]).values() if is_tree)
    check = "--batch-check=%(deltabase)"
    bases = gitcmd.run(packed, "cat-file", "--batch-all-objects", check).stdout.split()
    deltas = sum(1 for base in bases if base.strip("0"))
    loose = init_repo(workdir / "loose")
    pack = next((packed / "objects" / "pack").glob("pack-*.pack")).read_bytes()
    done = gitcmd.run(loose, "unpack-objects", "-q", input=pack, text=False)
    assert done.returncode == 0, done.stderr
    played = init_repo(workdir / "played")
    packs = _played(packed, played)
    layouts = {"packed": packed, "played": played, "loose": loose}
    held = {"objects_stored_as_deltas_when_packed": deltas, "packs_when_played": packs}
    return layouts, commits, trees, held


def _import_ms(module: str, repeats: int = 5) -> float:
    """Median CPU of a fresh interpreter importing ``module``, less one importing nothing."""

    def cpu(code: str) -> float:
        before = _children_cpu()
        subprocess.run([sys.executable, "-c", code], check=True)
        return _children_cpu() - before

    paired = [cpu(f"import {module}") - cpu("pass") for _ in range(repeats)]
    return round(statistics.median(paired) * 1e3, 1)


def run(actions: int, rounds: int) -> dict:
    available = {}
    for name, (make, _module) in READERS.items():
        try:
            available[name] = make()
        except ImportError:
            print(f"{name}: not installed, left out", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ab-reader-") as tmp:
        layouts, commits, trees, held = _game(Path(tmp), actions)
        work = {"commit": (commits, b"commit"), "tree": (trees, b"tree")}
        own: dict = {}
        child: dict = {}
        for r in range(rounds):
            for layout, git_dir in layouts.items():
                for what, (oids, kind) in work.items():
                    names = list(available)
                    names = names[r % len(names) :] + names[: r % len(names)]  # turns
                    for name in names:
                        o, c = _round(available[name], git_dir, oids, kind)
                        own.setdefault((layout, what, name), []).append(o / len(oids))
                        child.setdefault((layout, what, name), []).append(c / len(oids))
        start = {}
        for name, reader in available.items():
            packed = layouts["packed"]
            costs = [sum(_round(reader, packed, commits[:1], b"commit")) for _ in range(rounds)]
            start[name] = round(statistics.median(costs) * 1e3, 2)
    out: dict = {
        "game": {
            "players": 4,
            "actions": actions,
            "commits": len(commits),
            "trees": len(trees),
            **held,
        },
        "rounds": rounds,
        "versions": _versions(),
        "us_per_object": {},
        "start_ms": start,
        "import_ms": {name: _import_ms(READERS[name][1]) for name in available},
    }
    for (layout, what, name), owns in own.items():
        totals = [o + c for o, c in zip(owns, child[(layout, what, name)], strict=True)]
        base = [
            o + c
            for o, c in zip(own[(layout, what, "ours")], child[(layout, what, "ours")], strict=True)
        ]
        out["us_per_object"].setdefault(f"{layout} {what}", {})[name] = {
            "cpu": round(statistics.median(totals) * 1e6, 1),
            "own": round(statistics.median(owns) * 1e6, 1),
            "child": round(statistics.median(child[(layout, what, name)]) * 1e6, 1),
            "vs_ours": round(
                statistics.median(t / b for t, b in zip(totals, base, strict=True)), 2
            ),
        }
    return out


def _versions() -> dict[str, str]:
    versions = {"git": gitcmd.run(None, "--version").stdout.split()[-1]}
    for dist in ("gitdb", "dulwich", "GitPython"):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, default=600, help="actions of the bot game")
    parser.add_argument("--rounds", type=int, default=15, help="rounds per reader and layout")
    parser.add_argument("--out", type=Path, help="also write the result as JSON here")
    args = parser.parse_args(argv)
    result = run(args.actions, args.rounds)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["game"]))
    for case, figures in result["us_per_object"].items():
        for name, f in figures.items():
            print(f"{case:15} {name:10} {f}")
    print("start_ms", result["start_ms"])
    print("import_ms", result["import_ms"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
