"""A/B of two speed-ups in the store, against the simpler way they replace.

1. Moving a ref: ``Refs.set`` rewrites an existing loose ref in place under a lock that
   is a hard link to it (store/refs.py), against Git's own write-then-rename (write
   ``<ref>.lock``, rename it over the ref), which ``Refs`` also uses for a new ref.
2. Writing a commit's objects as one small pack: our ``write_pack`` (store/objects.py,
   one ``bytes`` built in memory, spare files from the pool) against gitdb's
   ``PackEntity.create`` (streams, a temporary file, renames; left out where gitdb is not
   installed: the package no longer uses it, ``pip install -e .[bench]`` brings it), and
   against one loose object per file (the way without packs).

The target is compute <= 2 ms per commit at 4 players (benchmarks/report.md); a
speed-up stays only when its gain matters against it. Run::

    python -m benchmarks.ab_store [--n 400] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from catan_p2p.bots import make_bot
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import new_game
from catan_p2p.sim import next_actor
from catan_p2p.store.codec import GameInfo, StateWriter
from catan_p2p.store.formats import MemoryObjectStore
from catan_p2p.store.objects import GitObjectStore, write_pack
from catan_p2p.store.refnames import player_ref
from catan_p2p.store.refs import Refs
from catan_p2p.store.repo import init_repo
from catan_p2p.store.spares import SpareFiles
from catan_p2p.trust.engine import step

TARGET_MS = 2.0  # compute per commit at 4 players


def _in_place_set(git_dir: Path, name: str, new: str, expected: str | None) -> None:
    """The replaced way (store/refs.py before): a lock that is a hard link to the ref,
    then the 41 bytes rewritten in place with pread/pwrite."""
    path = git_dir / name
    lock = path.with_name(path.name + ".lock")
    os.link(path, lock)
    try:
        fd = os.open(path, os.O_RDWR)
        try:
            old = os.pread(fd, 256, 0)
            if (old.decode().strip() or None) != expected:
                raise RuntimeError("moved")
            data = (new + "\n").encode()
            os.pwrite(fd, data, 0)
            if len(old) != len(data):
                os.ftruncate(fd, len(data))
        finally:
            os.close(fd)
    finally:
        os.unlink(lock)


def _rename_set(git_dir: Path, name: str, new: str, expected: str | None) -> None:
    """Git's way: create ``<ref>.lock`` exclusively, check, write, rename over the ref."""
    path = git_dir / name
    lock = path.with_name(path.name + ".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        current = path.read_text().strip() or None if path.exists() else None
        if current != expected:
            raise RuntimeError("moved")
        os.write(fd, (new + "\n").encode())
    finally:
        os.close(fd)
    os.replace(lock, path)


def _ms(samples: list[float]) -> dict:
    ms = sorted(s * 1e3 for s in samples)
    return {
        "median_ms": round(statistics.median(ms), 4),
        "p90_ms": round(ms[int(len(ms) * 0.9)], 4),
        "mean_ms": round(statistics.fmean(ms), 4),
    }


def ab_refs(workdir: Path, n: int) -> dict:
    """Time to move one player's ref, each way; the ways alternate, so disk noise is shared."""
    ways = {
        "in_place": _in_place_set,
        "write_then_rename": _rename_set,
    }
    dirs = {way: init_repo(workdir / f"refs-{way}") for way in ways}
    name = player_ref("g", "red")
    ids = [f"{i:040x}" for i in range(n + 1)]
    for git_dir in dirs.values():
        Refs(git_dir).set(name, ids[0], None)
    samples: dict[str, list[float]] = {way: [] for way in ways}
    for i in range(n):
        for way, move in ways.items():
            t0 = time.perf_counter()
            move(dirs[way], name, ids[i + 1], ids[i])
            samples[way].append(time.perf_counter() - t0)
    for git_dir in dirs.values():
        assert Refs(git_dir).get(name) == ids[n]
    return {way: _ms(s) for way, s in samples.items()}


def ab_refs_in_game(workdir: Path, games: int) -> dict:
    """Milliseconds per action of whole 4-player hot-seat games, with refs moved each way.

    The micro-benchmark above moves one ref with nothing else going on; in a game each
    action also writes a pack, and every local seat's ref moves, so a rename's flush
    waits for more. The ways alternate game by game.
    """
    from catan_p2p.session.git import GitSession
    from catan_p2p.session.start import create_game
    from catan_p2p.sim import play_session_game

    players = ("red", "blue", "white", "orange")
    ways = {"in_place": Refs.set, "write_then_rename": None}
    original = Refs.set
    samples: dict[str, list[float]] = {way: [] for way in ways}
    for g in range(games):
        for way in ways:
            path = workdir / f"game-{way}-{g}"
            game = create_game(path, players, seed=f"ab{g}", game_id="g")
            session = GitSession(path, game)
            if way == "write_then_rename":
                Refs.set = lambda self, name, new, old: _rename_set(self.git_dir, name, new, old)
            try:
                bots = {p: make_bot("random", f"ab{g}/{p}") for p in players}
                t0 = time.perf_counter()
                result = play_session_game(session, bots, check_invariants=False)
                samples[way].append((time.perf_counter() - t0) / result.actions)
            finally:
                Refs.set = original
                session.close()
    return {way: _ms(s) for way, s in samples.items()}


def commit_objects(n: int, seed: str = "ab") -> list[dict[str, tuple[bytes, bytes]]]:
    """The new objects of each of ``n`` commits of a 4-player bot game (trees and blobs)."""
    state = new_game(("red", "blue", "white", "orange"))
    bots = {p: make_bot("random", f"{seed}/{p}") for p in state.players}
    store = MemoryObjectStore()
    writer = StateWriter(store, GameInfo("g", seed))
    writer.write(state)
    batches = []
    i = 0
    while len(batches) < n:
        if state.is_over:
            state = new_game(state.players)
        player = next_actor(state)
        action = bots[player].decide(state, legal_actions(state, player))
        state = step(state, action, derive_chance(seed, str(i)))[0]
        i += 1
        before = set(store.objects)
        writer.write(state)
        batch = {o: store.objects[o] for o in store.objects.keys() - before}
        commit = b"tree %s\n\ncommit %d" % (next(iter(batch), "0" * 40).encode(), i)
        batch[store.write(b"commit", commit)] = (b"commit", commit)
        batches.append(batch)
    return batches


def _gitdb_pack(pack_dir: Path, objects: dict[str, tuple[bytes, bytes]]) -> None:
    from gitdb.base import OStream
    from gitdb.pack import PackEntity

    streams = [
        OStream(bytes.fromhex(oid), kind, len(data), _Reader(data))
        for oid, (kind, data) in objects.items()
    ]
    PackEntity.create(iter(streams), str(pack_dir), object_count=len(streams))


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int = -1) -> bytes:
        data, self.data = (self.data, b"") if size < 0 else (self.data[:size], self.data[size:])
        return data


def ab_packs(workdir: Path, n: int) -> dict:
    """Median time to write one commit's objects, each way (fresh repository each)."""
    batches = commit_objects(n)
    out: dict = {"objects_per_commit": round(statistics.fmean(len(b) for b in batches), 2)}
    ways = ["ours_with_spares", "ours_without_spares", "gitdb_pack", "loose_objects"]
    if importlib.util.find_spec("gitdb") is None:
        ways.remove("gitdb_pack")
    dirs = {way: init_repo(workdir / f"packs-{way}") for way in ways}
    stores = {way: GitObjectStore(dirs[way]) for way in ways}
    spares = SpareFiles(dirs["ours_with_spares"] / "catan-p2p-spares")
    spares.start()
    time.sleep(0.5)  # the pool fills before the first commit
    samples: dict[str, list[float]] = {way: [] for way in ways}
    block = 25  # the ways take turns by blocks of commits, so disk noise is shared
    for start in range(0, len(batches), block):
        for way, batch in ((w, b) for w in ways for b in batches[start : start + block]):
            pack_dir = dirs[way] / "objects" / "pack"
            t0 = time.perf_counter()
            if way == "ours_with_spares":
                write_pack(pack_dir, batch, spares)
            elif way == "ours_without_spares":
                write_pack(pack_dir, batch)
            elif way == "gitdb_pack":
                _gitdb_pack(pack_dir, batch)
            else:
                for kind, data in batch.values():
                    stores[way].write(kind, data)
            samples[way].append(time.perf_counter() - t0)
            time.sleep(0.002)  # the pool refills between commits, as between moves
    spares.close()
    for store in stores.values():
        store.close()
    out.update({way: _ms(s) for way, s in samples.items()})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=400, help="ref moves and commits per way")
    parser.add_argument("--games", type=int, default=3, help="whole games per ref way")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--out", type=Path, help="also write the result as JSON here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ab-store-") as tmp:
        result = {
            "target_compute_ms_per_commit": TARGET_MS,
            "refs": ab_refs(Path(tmp), args.n),
            "refs_in_game_ms_per_action": ab_refs_in_game(Path(tmp), args.games),
            "packs": ab_packs(Path(tmp), args.n),
        }
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    if args.json:
        print(json.dumps(result))
    else:
        for part in ("refs", "refs_in_game_ms_per_action", "packs"):
            for way, figures in result[part].items():
                print(f"{part:5} {way:22} {figures}", file=sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
