"""A/B of the cost of a commit (issue 34, item 4): what justified each change, rerunnable.

1. ``pool``: the spare-file pool of this checkout against the one of another checkout
   (``--base DIR``, e.g. a worktree of main), the same deterministic 4-player hot-seat
   game played in turn with each, in one process: compute per commit (``Peer.record*``,
   as ``catan-p2p bench`` counts it) and the game's wall time, ratios pair by pair.
2. ``game``: one deterministic 4-player hot-seat game, its wall and compute per commit;
   run it from two checkouts in turn (a whole-process A/B) to compare any change::

       (cd A && python -m benchmarks.ab_commit game) ; (cd B && python -m benchmarks.ab_commit game)

The game is made deterministic by a fixed game id, genesis time and commit clock (commit
ids, hence the dice, otherwise depend on the second a commit is written). Run::

    python -m benchmarks.ab_commit pool|game [--base DIR] [--rounds N] [--json]
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import statistics
import tempfile
from pathlib import Path

from benchmarks import folders, gitgames
from catan_p2p import clock
from catan_p2p.store import objects

T0 = 1_700_000_000  # the fixed clock of the deterministic game
GAME_ID = "abcommit4"
MAX_ACTIONS = 20_000  # as benchmarks/run.py: a whole game


def _deterministic() -> None:
    clock.source = lambda: float(T0)
    gitgames.create_game = functools.partial(  # type: ignore[assignment]
        gitgames.create_game, game_id=GAME_ID, when=T0
    )


def _game(workdir: Path) -> tuple[float, float, int]:
    """Wall ms per commit, median compute ms per commit, commits of one 4-player game."""
    run = gitgames.play_hotseat(workdir, 4, "bench/4p/0", MAX_ACTIONS)
    commits = gitgames.storage(run.git_dir)["commits"]
    return run.seconds * 1e3 / commits, statistics.median(run.latency.compute_ms), commits


def game() -> dict:
    _deterministic()
    with tempfile.TemporaryDirectory(prefix="ab-commit-") as tmp:
        folders.spread(Path(tmp))  # away from the last run's freed files
        wall, compute, commits = _game(Path(tmp))
    return {"wall_ms_per_commit": wall, "compute_ms_median": compute, "commits": commits}


def pool(base: Path, rounds: int) -> dict:
    _deterministic()
    spec = importlib.util.spec_from_file_location(
        "base_spares", base / "catan_p2p" / "store" / "spares.py"
    )
    assert spec is not None and spec.loader is not None
    other = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(other)
    ways = {"this": objects.SpareFiles, "base": other.SpareFiles}
    got: dict[str, list[tuple[float, float]]] = {k: [] for k in ways}
    with tempfile.TemporaryDirectory(prefix="ab-commit-") as tmp:
        folders.spread(Path(tmp))
        for r in range(rounds):
            order = list(ways.items()) if r % 2 == 0 else list(ways.items())[::-1]
            for name, cls in order:
                objects.SpareFiles = cls  # type: ignore[misc]
                folder = Path(tmp) / f"{name}{r}"
                folder.mkdir()
                wall, compute, _ = _game(folder)
                got[name].append((compute, wall))
    objects.SpareFiles = ways["this"]  # type: ignore[misc]

    def ratio(i: int) -> float:
        return statistics.median(a[i] / b[i] for a, b in zip(got["this"], got["base"], strict=True))

    return {
        "compute_ms_median": {k: [round(c, 3) for c, _ in v] for k, v in got.items()},
        "wall_ms_per_commit": {k: [round(w, 3) for _, w in v] for k, v in got.items()},
        "ratio_compute_this_over_base": round(ratio(0), 3),
        "ratio_wall_this_over_base": round(ratio(1), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("pool", "game"))
    parser.add_argument("--base", type=Path, help="the other checkout (pool)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.what == "pool":
        if args.base is None:
            parser.error("pool needs --base DIR, the checkout to compare against")
        result = pool(args.base, args.rounds)
    else:
        result = game()
    print(json.dumps(result, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
