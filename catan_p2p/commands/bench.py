"""``catan-p2p bench``: storage, diff and latency benchmarks beside the thesis figures.

The benchmarks live in the repository's ``benchmarks/`` package (beside ``catan_p2p/``),
so this command needs a checkout of the project, not only the installed package. They
build on every layer of ``catan_p2p``, so this command imports none of them: it runs
them as their own program, ``python -m benchmarks``, in the checkout.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from catan_p2p.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p bench``."""
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one game per player count, a smoke run: about a minute on a quiet machine, "
        "several under load",
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
    if not (root / "benchmarks" / "run.py").exists():
        raise UsageError(
            "the benchmarks are not found next to this catan_p2p; run `catan-p2p bench` "
            "from a checkout of the project"
        )
    argv = ["--out", args.out] + (["--quick"] if args.quick else [])
    if args.games is not None:
        argv += ["--games", str(args.games)]
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path}  # the checkout's benchmarks, from any folder
    return subprocess.run([sys.executable, "-m", "benchmarks", *argv], env=env).returncode
