"""Board generation speed and the scores of the usual boards.

Run: ``.venv/bin/python benchmarks/boards.py [--repeat N] [--json]``. Reports, per radius
and kind, the median and worst wall time of ``make_board`` over N seeds, and the scores
of the standard board, random boards (mean, min, max) and the fairest and wildest
balanced boards. The issue's target: a balanced 19-tile board in under 1 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from catan_p2p.boards import make_board, score_board
from catan_p2p.rules.board import STANDARD_BOARD


def _timed(kind: str, seed: int, radius: int, balance: float | None) -> tuple[float, float]:
    started = time.perf_counter()
    board = make_board(kind, seed, radius, balance)
    elapsed = time.perf_counter() - started
    return elapsed, score_board(board).score


def run(repeat: int) -> dict:
    results: dict = {"standard_score": round(score_board(STANDARD_BOARD).score, 4), "boards": []}
    cases = [
        ("random", None),
        ("balanced", 0.0),
        ("balanced", 0.15),
        ("balanced", 0.5),
        ("balanced", 1.0),
    ]
    for radius in (2, 3, 4, 5):
        for kind, balance in cases:
            times, scores = [], []
            for seed in range(repeat):
                t, s = _timed(kind, seed, radius, balance)
                times.append(t)
                scores.append(s)
            results["boards"].append(
                {
                    "radius": radius,
                    "kind": kind,
                    "balance": balance,
                    "median_s": round(statistics.median(times), 4),
                    "max_s": round(max(times), 4),
                    "score_mean": round(statistics.mean(scores), 4),
                    "score_min": round(min(scores), 4),
                    "score_max": round(max(scores), 4),
                }
            )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="seeds per case")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = run(args.repeat)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"standard board score {results['standard_score']}")
    print(
        f"{'radius':>6} {'kind':>9} {'balance':>7} {'median s':>9} {'max s':>7}  "
        "score mean [min..max]"
    )
    for row in results["boards"]:
        balance = "-" if row["balance"] is None else f"{row['balance']:g}"
        print(
            f"{row['radius']:>6} {row['kind']:>9} {balance:>7} {row['median_s']:>9.4f} "
            f"{row['max_s']:>7.4f}  {row['score_mean']:.3f} "
            f"[{row['score_min']:.3f}..{row['score_max']:.3f}]"
        )


if __name__ == "__main__":
    main()
