"""A/B of how a transfer's output is read (net/transport.py ``run_git``).

Every fetch and push reads what Git writes within a bound. Two readers: ``threads``
(a thread per pipe and one feeding stdin, while the caller waits for Git: what the
bounded listing used before) and ``select`` (one loop in the caller's thread). This
times a sync round's transfers with the checkout on ``PYTHONPATH``: ``ROUNDS`` fetches
of one game's two logs from a remote on this disk, nothing new after the first, then
``ROUNDS`` pushes of an unchanged log and ``ROUNDS`` listings (``ls-remote``, which the
old runner read with threads and the fetch and push without a bound), in one process: per call the median wall time
and the process's own CPU (the Python side of the read, Git's not counted). Run it
with each checkout in turn, alternating::

    PYTHONPATH=A python benchmarks/ab_runner.py --json ; PYTHONPATH=B python ...
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from catan_p2p.net import transport
from catan_p2p.store import gitcmd
from catan_p2p.store.refnames import game_prefix

ROUNDS = 200
GAME = "abrunner"


def _log(git_dir: Path, player: str) -> str:
    tree = gitcmd.run(git_dir, "mktree", input="", check=True).stdout.strip()
    who = {f"GIT_{k}_{v}": player for k in ("AUTHOR", "COMMITTER") for v in ("NAME", "EMAIL")}
    oid = gitcmd.run(git_dir, "commit-tree", tree, "-m", player, env=who, check=True)
    ref = f"{game_prefix(GAME)}/{player}"
    gitcmd.run(git_dir, "update-ref", ref, oid.stdout.strip(), check=True)
    return ref


def _timed(call, rounds: int) -> tuple[float, float]:
    """Median wall ms and mean own-CPU ms per call."""
    walls = []
    cpu0 = time.process_time()
    for _ in range(rounds):
        t0 = time.perf_counter()
        call()
        walls.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(walls), (time.process_time() - cpu0) * 1e3 / rounds


def measure(rounds: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="ab-runner-") as tmp:
        remote, mine = Path(tmp) / "remote.git", Path(tmp) / "red"
        gitcmd.run(None, "init", "-q", "--bare", str(remote), check=True)
        gitcmd.run(None, "init", "-q", str(mine), check=True)
        git_dir = mine / ".git"
        logs = [_log(git_dir, "red"), _log(git_dir, "blue")]
        gitcmd.run(git_dir, "push", "-q", str(remote), *(f"{r}:{r}" for r in logs), check=True)
        transport.set_remote(git_dir, str(remote))
        fetch = _timed(lambda: transport.fetch(git_dir, GAME, logs=logs), rounds)
        push = _timed(lambda: transport.push(git_dir, logs[:1]), rounds)
        listing = _timed(
            lambda: transport.run_git(git_dir, "ls-remote", str(remote), limit=1 << 20), rounds
        )
    return {
        "fetch_wall_ms": fetch[0],
        "fetch_cpu_ms": fetch[1],
        "push_wall_ms": push[0],
        "push_cpu_ms": push[1],
        "listing_wall_ms": listing[0],
        "listing_cpu_ms": listing[1],
        "reader": transport.__file__,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = measure(args.rounds)
    print(json.dumps(figures) if args.json else "\n".join(f"{k}: {v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
