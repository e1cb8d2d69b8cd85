"""``catan-p2p bench``: storage, diff and latency benchmarks beside the thesis figures.

The benchmarks live in the repository's ``benchmarks/`` package (beside ``catan_p2p/``),
so this command needs a checkout of the project, not only the installed package.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from catan_p2p.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p bench``."""
    parser.add_argument(
        "--quick", action="store_true", help="one game per player count, a minute or two"
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        metavar="N",
        help="hot-seat games per player count (default 100, about 20 minutes)",
    )
    parser.add_argument(
        "--out",
        default="benchmarks/results",
        metavar="DIR",
        help="folder for results.json, report.md and the plots (default: benchmarks/results)",
    )


def run(args: argparse.Namespace) -> int:
    root = Path(__file__).resolve().parents[2]
    if (root / "benchmarks" / "run.py").exists() and str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        bench = importlib.import_module("benchmarks.run")
    except ModuleNotFoundError as exc:
        raise UsageError(
            "the benchmarks are not found next to this catan_p2p; run `catan-p2p bench` "
            "from a checkout of the project"
        ) from exc
    return bench.run_args(args)
