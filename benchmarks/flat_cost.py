"""Flat cost: game 1 against game N, in one process and one repository.

A relay or club remote holds many games and a bot or window process lives long, so the
time per action and the memory of a process must not grow with the games a repository
holds or a process has played. This plays ``--games`` 4-player bot games one after
the other into one repository (as ``catan-p2p simulate --git`` does) and reports, per
game, the milliseconds per action (recording: apply, write, the other local seats
fast-forwarding, refs) and the process's resident memory after it. Run::

    python -m benchmarks.flat_cost [--games 50] [--out benchmarks/results/flat_cost.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from catan_p2p.bots import make_bot
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.sim import play_session_game

PLAYERS = ("red", "blue", "white", "orange")


def rss_mb() -> float:
    """Resident memory of this process now (Linux ``/proc``; else the peak so far)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (2**20 if sys.platform == "darwin" else 2**10)


def play(repo: Path, games: int, seed: str, progress: bool) -> list[dict]:
    rows = []
    for g in range(1, games + 1):
        game = create_game(repo, PLAYERS, seed=f"{seed}-{g}", game_id=f"flat-{g}")
        session = GitSession(repo, game)
        bots = {p: make_bot("random", f"{seed}-{g}/{p}") for p in PLAYERS}
        t0 = time.perf_counter()
        result = play_session_game(session, bots, check_invariants=False)
        seconds = time.perf_counter() - t0
        session.close()
        gc.collect()
        row = {
            "game": g,
            "actions": result.actions,
            "ms_per_action": round(seconds / result.actions * 1e3, 3),
            "rss_mb": round(rss_mb(), 1),
        }
        rows.append(row)
        if progress:
            print(row, file=sys.stderr, flush=True)
    return rows


def summary(rows: list[dict]) -> dict:
    def part(sel: list[dict]) -> dict:
        return {
            "ms_per_action": round(statistics.median(r["ms_per_action"] for r in sel), 3),
            "rss_mb": round(max(r["rss_mb"] for r in sel), 1),
        }

    n = len(rows)
    k = max(1, n // 10)
    return {
        "games": n,
        "game_1": {"ms_per_action": rows[0]["ms_per_action"], "rss_mb": rows[0]["rss_mb"]},
        f"game_{n}": {"ms_per_action": rows[-1]["ms_per_action"], "rss_mb": rows[-1]["rss_mb"]},
        f"first_{k}_games": part(rows[:k]),
        f"last_{k}_games": part(rows[-k:]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seed", default="flat")
    parser.add_argument("--repo", type=Path, help="record here (default: a temporary folder)")
    parser.add_argument("--out", type=Path, help="write the result as JSON here")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="flat-cost-") as tmp:
        repo = args.repo or Path(tmp) / "games"
        rows = play(repo, args.games, args.seed, not args.quiet)
    result = {"summary": summary(rows), "per_game": rows}
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["summary"], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
