"""A/B of how a commit's objects are compressed (store/objects.py ``_pack_entry``).

Every object a commit writes goes into its small pack as its own zlib stream: about
4.2 objects per commit, a few hundred bytes each. A profile of a 4-player hot-seat game
(py-spy, 500 Hz) put the compressing at 15 % of ``Peer.record``, the largest part of a
commit's compute, though the bytes are few: for small objects the cost is setting up
the compressor, not compressing. Compared:

- ``zlib``: the standard library's zlib, level 1 with the hash table at ``memLevel`` 5,
  for every object (the way before);
- ``zlib-ng``: zlib-ng's level 1 (``zlib_ng``), whose set-up is cheap, for every object:
  but its streams are larger, and packing a finished game keeps most signed commits
  whole, as they were written (trees and blobs become deltas, which Git compresses anew);
- ``zlib-ng, commits zlib`` (the way chosen): zlib-ng for trees and blobs, zlib for
  commits;
- ``isal``: Intel's ISA-L level 1 (``isal_zlib``, from the ``bench`` extra), for every
  object: the same bytes as zlib in half its time alone, yet the games it recorded were
  not measurably quicker (paired ratios 0.91 to 1.01 in three runs).

Measured three ways: (1) the objects of one deterministic 4-player game, each
compressed in turn by each way (best of ``--rounds`` passes, microseconds per object,
bytes); (2) the same game played whole with each way in turn, in one process (median
compute per commit as ``catan-p2p bench`` counts it, wall per commit, and the time
spent compressing inside the game, where caches are cold); (3) the bytes of the
finished game's repository. Run::

    python -m benchmarks.ab_deflate [--rounds N] [--games N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from benchmarks import ab_commit, gitgames
from catan_p2p.store import objects

Way = Callable[[bytes, bytes], bytes]  # (kind, data) -> zlib stream


def _zlib(data: bytes) -> bytes:
    z = zlib.compressobj(1, zlib.DEFLATED, zlib.MAX_WBITS, 5)
    return z.compress(data) + z.flush()


def _ways() -> dict[str, Way]:
    from zlib_ng import zlib_ng

    def ng(data: bytes) -> bytes:
        return zlib_ng.compress(data, 1)

    ways: dict[str, Way] = {
        "zlib": lambda kind, data: _zlib(data),
        "zlib-ng": lambda kind, data: ng(data),
        "zlib-ng, commits zlib": lambda kind, data: _zlib(data) if kind == b"commit" else ng(data),
    }
    try:
        from isal import isal_zlib
    except ImportError:
        return ways
    ways["isal"] = lambda kind, data: isal_zlib.compress(data, 1)
    return ways


class _Swapped:
    """``objects._pack_entry`` compressing with ``way`` (and timing it) while in use;
    with ``keep``, the objects it compressed are kept in ``seen``."""

    def __init__(self, way: Way, keep: bool = False) -> None:
        self.way, self.seconds, self.keep = way, 0.0, keep
        self.seen: list[tuple[bytes, bytes]] = []

    def __enter__(self) -> _Swapped:
        self._saved = objects.deflate, objects.deflate_quick
        kind_now = [b""]
        original_entry = objects._pack_entry

        def entry(kind: bytes, data: bytes) -> bytes:
            kind_now[0] = kind
            if self.keep:
                self.seen.append((kind, data))
            return original_entry(kind, data)

        def compress(data: bytes) -> bytes:
            t0 = time.perf_counter()
            try:
                return self.way(kind_now[0], data)
            finally:
                self.seconds += time.perf_counter() - t0

        self._entry = original_entry
        objects._pack_entry = entry
        objects.deflate = objects.deflate_quick = compress
        return self

    def __exit__(self, *exc: object) -> None:
        objects.deflate, objects.deflate_quick = self._saved
        objects._pack_entry = self._entry


def alone(rounds: int) -> dict:
    with _Swapped(_ways()["zlib"], keep=True) as swapped:
        ab_commit.game()
    data = swapped.seen
    out = {}
    for name, way in _ways().items():
        best = min(_timed(way, data) for _ in range(rounds))
        packed = [way(k, d) for k, d in data]
        assert all(zlib.decompress(p) == d for p, (_, d) in zip(packed, data, strict=True))
        out[name] = {
            "us_per_object": round(best / len(data) * 1e6, 2),
            "bytes": sum(map(len, packed)),
        }
    return {"objects": len(data), "raw_bytes": sum(len(d) for _, d in data), "ways": out}


def _timed(way: Way, data: list[tuple[bytes, bytes]]) -> float:
    t0 = time.perf_counter()
    for kind, d in data:
        way(kind, d)
    return time.perf_counter() - t0


def in_game(games: int) -> dict:
    ways = _ways()
    ab_commit._deterministic()
    got: dict[str, list[dict]] = {name: [] for name in ways}
    with tempfile.TemporaryDirectory(prefix="ab-deflate-") as tmp:
        for r in range(games):
            order = list(ways.items()) if r % 2 == 0 else list(ways.items())[::-1]
            for i, (name, way) in enumerate(order):
                with _Swapped(way) as swapped:
                    folder = Path(tmp) / f"{r}-{i}"
                    run = gitgames.play_hotseat(folder, 4, "bench/4p/0", 20_000)
                store = gitgames.storage(run.git_dir)
                n = store["commits"]
                got[name].append(
                    {
                        "compute_ms_median": statistics.median(run.latency.compute_ms),
                        "wall_ms_per_commit": run.seconds * 1e3 / n,
                        "deflate_ms_per_commit": swapped.seconds * 1e3 / n,
                        "game_bytes": store["apparent_bytes"],
                        "object_bytes_in_store": store["object_bytes_in_store"],
                    }
                )

    def summary(rows: list[dict]) -> dict:
        return {k: round(statistics.median(r[k] for r in rows), 4) for k in rows[0]}

    def ratio(key: str, name: str) -> float:
        pairs = zip(got[name], got["zlib"], strict=True)
        return round(statistics.median(a[key] / b[key] for a, b in pairs), 3)

    keys = ("compute_ms_median", "wall_ms_per_commit", "game_bytes")
    return {
        "games_per_way": games,
        "median": {name: summary(rows) for name, rows in got.items()},
        "ratio_over_zlib": {n: {k: ratio(k, n) for k in keys} for n in ways if n != "zlib"},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="passes over the objects")
    parser.add_argument("--games", type=int, default=6, help="whole games per way")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = {"alone": alone(args.rounds), "in_game": in_game(args.games)}
    text = json.dumps(result, indent=2)
    (Path(__file__).parent / "results" / "ab_deflate.json").write_text(text + "\n")
    print(json.dumps(result) if args.json else text)


if __name__ == "__main__":
    main()
