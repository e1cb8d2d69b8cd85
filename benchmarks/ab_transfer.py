"""A/B of the hot transfer: our plain ``git fetch`` (net/transport.py) against GitPython's.

The transfer a sync round makes: ten fetches of the two players' logs of one game from a
remote on this disk, in a fresh process (Python's start and imports included, as a
``catan-p2p sync`` pays them), into a repository that starts empty (the first fetch
brings the game, the nine others find nothing new). ``plain`` is ``transport.fetch``
(which also asks for the game's chat and answer refs: more work than the other way);
``gitpython`` is GitPython's ``Remote.fetch`` of the two logs' refspecs. The two take
turns, whole process by whole process; per way the median CPU (the process and every
Git it waited for), wall time and the Python process's peak memory (Git's own not
counted), and the paired ratios plain/gitpython.

Run (GitPython comes with ``pip install -e .[bench]``)::

    python -m benchmarks.ab_transfer [--runs 7] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FETCHES = 10


def child(way: str, local: str, url: str, game: str, logs: list[str]) -> None:
    """The measured process: ``FETCHES`` fetches of ``logs`` into ``local``."""
    if way == "plain":
        from catan_p2p.net import transport

        for _ in range(FETCHES):
            transport.fetch(Path(local), game, logs=logs, url=url)
    else:
        import git as gitpython

        from catan_p2p.store.refnames import tracking_ref

        remote = gitpython.Repo(local).remote("origin")
        specs = [f"+{ref}:{tracking_ref(ref, 'origin')}" for ref in logs]
        for _ in range(FETCHES):
            remote.fetch(specs)
    # The peak of this process since it started this program (``VmHWM``): the rusage of a
    # forked child also counts the parent's memory it had before ``exec``.
    status = Path("/proc/self/status").read_text()
    peak = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))
    print(int(peak) / 1024)


def _setup(workdir: Path, actions: int) -> tuple[str, str, list[str]]:
    """A two-player bot game to fetch from: its URL, its id and its players' logs."""
    from benchmarks.gitgames import play_hotseat
    from catan_p2p.store.refnames import player_ref
    from catan_p2p.store.repo import GameRepo

    run = play_hotseat(workdir, 2, "ab-transfer", actions)
    repo = GameRepo(run.git_dir)
    game = repo.games()[0]
    logs = [player_ref(game, p) for p in ("red", "blue")]  # play_hotseat's first two seats
    assert all(repo.refs.get(ref) for ref in logs)
    repo.close()
    return str(run.git_dir), game, logs


def _one(way: str, workdir: Path, n: int, url: str, game: str, logs: list[str]) -> dict:
    """One whole measured process: CPU (with its children), wall seconds, peak MiB."""
    from catan_p2p.net import transport
    from catan_p2p.store.repo import init_repo

    local = init_repo(workdir / f"{way}-{n}")
    transport.set_remote(local, url)
    argv = [sys.executable, "-m", "benchmarks.ab_transfer", "--child", way, str(local), url]
    start = time.monotonic()
    proc = subprocess.Popen([*argv, game, *logs], stdout=subprocess.PIPE)
    _pid, status, use = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, f"{way} failed"
    peak = float(proc.stdout.read())  # type: ignore[union-attr]
    proc.stdout.close()  # type: ignore[union-attr]
    return {"cpu": use.ru_utime + use.ru_stime, "wall": wall, "python_peak_mib": peak}


def run(runs: int, actions: int) -> dict:
    samples: dict[str, list[dict]] = {"plain": [], "gitpython": []}
    with tempfile.TemporaryDirectory(prefix="ab-transfer-") as tmp:
        url, game, logs = _setup(Path(tmp), actions)
        _one("plain", Path(tmp), -1, url, game, logs)  # a warm-up of the disk cache
        for n in range(runs):
            for way in ("plain", "gitpython") if n % 2 == 0 else ("gitpython", "plain"):
                samples[way].append(_one(way, Path(tmp), n, url, game, logs))
    out: dict = {"runs": runs, "fetches_per_run": FETCHES, "game_actions": actions}
    for way, rows in samples.items():
        out[way] = {k: round(statistics.median(r[k] for r in rows), 3) for k in rows[0]}
    out["plain_over_gitpython"] = {
        k: round(
            statistics.median(
                p[k] / g[k] for p, g in zip(samples["plain"], samples["gitpython"], strict=True)
            ),
            2,
        )
        for k in ("cpu", "wall", "python_peak_mib")
    }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="paired whole-process runs")
    parser.add_argument("--actions", type=int, default=200, help="actions of the game fetched")
    parser.add_argument("--out", type=Path, help="also write the result as JSON here")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        way, local, url, game, *logs = args.child
        child(way, local, url, game, logs)
        return 0
    result = run(args.runs, args.actions)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
